/// Why NDEF could not be read from or written to a tag.
public enum NDEFTagError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The card has no NDEF Tag Application (SELECT D2760000850101 refused).
    case notAnNDEFTag
    case fileNotFound([UInt8])
    case malformedCapabilityContainer(String)
    case malformedNDEFFile(String)
    case readOnly
    case messageTooLarge(size: Int, capacity: Int)

    public var description: String {
        switch self {
        case .notAnNDEFTag: "the card is not an NDEF tag (no NDEF Tag Application D2760000850101)"
        case .fileNotFound(let id): "the tag has no file \(id.map { String($0, radix: 16, uppercase: true) }.joined())"
        case .malformedCapabilityContainer(let reason): "malformed capability container: \(reason)"
        case .malformedNDEFFile(let reason): "malformed NDEF file: \(reason)"
        case .readOnly: "the tag is read-only"
        case .messageTooLarge(let size, let capacity):
            "the NDEF message (\(size) bytes) exceeds the tag's capacity (\(capacity) bytes)"
        }
    }
}
