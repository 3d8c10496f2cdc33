import CardFlow

/// Why NDEF could not be read from or written to a tag.
public enum NDEFTagError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The card has no NDEF Tag Application (SELECT D2760000850101 refused).
    case notAnNDEFTag
    /// The NDEF Tag Application was selected, but SELECT of this file (the capability container
    /// E103 or the NDEF file the container names) was refused with `6A 82`.
    case fileNotFound([UInt8])
    case malformedCapabilityContainer(String)
    case malformedNDEFFile(String)
    case readOnly
    case messageTooLarge(size: Int, capacity: Int)

    public var description: String {
        switch self {
        case .notAnNDEFTag: "the card is not an NDEF tag (no NDEF Tag Application D2760000850101)"
        case .fileNotFound(let id):
            "the NDEF Tag Application was selected, but it has no file \(id.hexString)"
        case .malformedCapabilityContainer(let reason): "malformed capability container: \(reason)"
        case .malformedNDEFFile(let reason): "malformed NDEF file: \(reason)"
        case .readOnly: "the tag is read-only"
        case .messageTooLarge(let size, let capacity):
            "the NDEF message (\(size) bytes) exceeds the tag's capacity (\(capacity) bytes)"
        }
    }
}
