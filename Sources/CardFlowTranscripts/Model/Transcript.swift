/// A pcscd + libccid debug log, parsed: the file's header, the conversation in segments, and the
/// lines the parser saw but did not keep.
public struct Transcript: Sendable, Hashable {
    /// What the file's header says.
    public var header: TranscriptHeader
    /// The conversation, split at gaps and at frames that could not be kept.
    public var segments: [TranscriptSegment]
    /// Lines that looked like conversation but were not kept, with the reason.
    public var problems: [TranscriptProblem]

    /// A transcript from its parts.
    public init(header: TranscriptHeader, segments: [TranscriptSegment], problems: [TranscriptProblem]) {
        self.header = header
        self.segments = segments
        self.problems = problems
    }

    /// Every event of every segment, in log order.
    public var events: [TranscriptEvent] { segments.flatMap(\.events) }

    /// The ATR the log or the header gives: the first `Card ATR:` line, the first answer to an
    /// IccPowerOn, else the header's `atr`.
    public var answerToReset: [UInt8]? {
        var pendingPowerOn = false
        for event in events {
            switch event {
            case .answerToReset(let atr): return atr
            case .frame(let frame) where frame.direction == .bulkOut:
                pendingPowerOn = frame.messageType == .iccPowerOn
            case .frame(let frame) where pendingPowerOn && frame.messageType == .dataBlock:
                if frame.bytes[7] & 0x40 == 0, !frame.payload.isEmpty { return Array(frame.payload) }
                pendingPowerOn = false
            default: continue
            }
        }
        return header.answerToReset
    }
}
