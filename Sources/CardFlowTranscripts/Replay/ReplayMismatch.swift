import CardFlow

/// Where a replay stands: which segment of the transcript and which recorded command in it.
public struct ReplayPosition: Sendable, Hashable, CustomStringConvertible {
    /// The segment (0-based).
    public let segment: Int
    /// The recorded command within the segment (0-based).
    public let command: Int
    /// The transcript line where the segment starts.
    public let segmentLine: Int

    /// The position of recorded command `command` of segment `segment`, which starts at `segmentLine`.
    public init(segment: Int, command: Int, segmentLine: Int) {
        self.segment = segment
        self.command = command
        self.segmentLine = segmentLine
    }

    public var description: String { "segment \(segment + 1) (line \(segmentLine)), command \(command + 1)" }
}

/// A host command the recording does not accept: the frame the host sent, the frame the
/// recording expected there (nil when the recording had nothing left), and where.
public struct ReplayMismatch: Error, Sendable, Hashable, CustomStringConvertible, CategorizedError {
    /// Where in the transcript the replay was.
    public let position: ReplayPosition
    /// The command the recording has at this position, if any.
    public let expected: RecordedFrame?
    /// The host's command as sent.
    public let received: [UInt8]

    public var description: String {
        let sent = received.map(hexByte).joined(separator: " ")
        guard let expected else { return "at \(position): host sent \(sent), the recording has no command left" }
        return "at \(position): host sent -> \(sent); the recording expected \(expected)"
    }

    /// The driver did something the reader in the recording never saw: a reader-level difference.
    public var category: ErrorCategory { .reader }
}
