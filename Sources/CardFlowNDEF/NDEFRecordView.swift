/// A typed view of one kind of record: reads a generic ``NDEFRecord`` and makes one.
///
/// ```swift
/// for record in message.records {
///     if let uri = try? URIRecord(record) { print(uri.uri) }
///     else if let text = try? TextRecord(record) { print(text.language, text.text) }
/// }
/// ```
public protocol NDEFRecordView: Sendable, Hashable {
    /// Reads `record`; throws ``NDEFDecodingError`` (offsets within the payload) when it is
    /// of another type or its payload is malformed.
    init(_ record: NDEFRecord, mode: NDEFDecodingMode) throws(NDEFDecodingError)
    /// The record this view describes (ID empty unless the view keeps one).
    var record: NDEFRecord { get }
}

extension NDEFRecordView {
    /// Reads `record` strictly.
    public init(_ record: NDEFRecord) throws(NDEFDecodingError) {
        try self.init(record, mode: .strict)
    }
}
