import CardFlow
import CardFlowHex

/// A command a ``RecordedConversationCard`` did not expect: the exchange's position (0 is the
/// recording's first), the command the recording holds there (nil past its end) and the one
/// the host sent.
public struct RecordedConversationMismatch: Error, Sendable, Hashable, CustomStringConvertible, CategorizedError {
    /// The index of the exchange the command was compared with.
    public let position: Int
    /// The recorded command at that position; nil when the recording had ended.
    public let expected: [UInt8]?
    /// The command the host sent.
    public let received: [UInt8]
    /// The recording's source, so a report says whose bytes disagree.
    public let source: String

    public init(position: Int, expected: [UInt8]?, received: [UInt8], source: String) {
        self.position = position
        self.expected = expected
        self.received = received
        self.source = source
    }

    public var description: String {
        let sent = HexFormat.string(received, spaced: true)
        guard let expected else {
            return "the recording (\(source)) ended after \(position) exchanges; the host sent \(sent)"
        }
        return
            "exchange \(position) of the recording (\(source)): expected \(HexFormat.string(expected, spaced: true)), the host sent \(sent)"
    }

    /// The client sent what a real card was not sent: a card-level divergence.
    public var category: ErrorCategory { .card }
}
