import CardFlow

/// Why a text cannot be read as a pcscd + libccid transcript at all. Lines that are merely noise
/// are skipped, and conversation lines that cannot be kept are listed as
/// ``TranscriptProblem``s; these errors are for texts with nothing to replay.
public enum TranscriptParseError: Error, Sendable, Hashable, CustomStringConvertible, CategorizedError {
    /// The text is larger than the parser reads (`limit` bytes).
    case tooLarge(bytes: Int, limit: Int)
    /// No CCID message, APDU or logged error anywhere in the text.
    case noConversation(lines: Int)

    public var description: String {
        switch self {
        case .tooLarge(let bytes, let limit):
            "the log has \(bytes) bytes; transcripts of more than \(limit) bytes are not read"
        case .noConversation(let lines):
            "no CCID message, APDU or pcscd error in \(lines) line(s): is this a pcscd --debug log "
                + "with LIBCCID_ifdLogLevel=0x000F?"
        }
    }

    /// The text given is not a usable log: the user's input.
    public var category: ErrorCategory { .usage }
}
