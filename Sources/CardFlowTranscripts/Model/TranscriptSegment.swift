/// The events between two gaps of a transcript: a stretch of log known to be continuous.
///
/// A public copy of a long log often shows up in pieces; each piece is a segment, and a replay
/// starts over (resynchronises) at each segment's start.
public struct TranscriptSegment: Sendable, Hashable {
    /// Where the segment starts in the transcript (1-based line number).
    public let firstLine: Int
    /// The events in log order.
    public let events: [TranscriptEvent]

    /// A segment starting at `firstLine` with `events`.
    public init(firstLine: Int, events: [TranscriptEvent]) {
        self.firstLine = firstLine
        self.events = events
    }

    /// The CCID messages of the segment, in order.
    public var frames: [RecordedFrame] {
        events.compactMap { if case .frame(let frame) = $0 { frame } else { nil } }
    }
}
