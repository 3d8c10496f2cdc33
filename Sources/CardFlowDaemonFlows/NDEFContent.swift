import CardFlowNDEF

/// What an NDEF write puts on a tag: one URI or text record (`"uri"` or `"text"` in JSON).
public enum NDEFContent: Sendable, Hashable {
    case uri(String)
    case text(String)

    /// The one-record NDEF message, encoded.
    public func message() throws -> [UInt8] {
        let record: NDEFRecord
        switch self {
        case .uri(let uri): record = URIRecord(uri).record
        case .text(let text): record = try TextRecord(text).record
        }
        return try NDEFMessage([record]).encoded()
    }
}
