/// A media-type record (TNF 0x02): the TYPE is an RFC 2046 media type such as `text/plain`
/// or `application/vnd.wfa.wsc`, the payload is the content.
///
/// ```swift
/// let vcard = try MIMERecord(mediaType: "text/vcard", data: Array("BEGIN:VCARD…".utf8))
/// vcard.record.tnf  // .media
/// ```
public struct MIMERecord: NDEFRecordView {
    /// The media type, as in the TYPE field.
    public var mediaType: String
    /// The content.
    public var data: [UInt8]
    /// The record ID.
    public var id: [UInt8]

    /// Throws ``NDEFEncodingError/invalidTypeName(_:)`` unless `mediaType` is 1...255 printable
    /// ASCII characters with a `/`.
    public init(mediaType: String, data: [UInt8], id: [UInt8] = []) throws(NDEFEncodingError) {
        guard Self.isValidMediaType(Array(mediaType.utf8)) else { throw .invalidTypeName(mediaType) }
        self.mediaType = mediaType
        self.data = data
        self.id = id
    }

    static func isValidMediaType(_ bytes: [UInt8]) -> Bool {
        !bytes.isEmpty && bytes.count <= 255 && bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F }
            && bytes.contains(UInt8(ascii: "/"))
    }

    /// Reads a TNF 0x02 record. Strict decoding also checks the media type's form.
    public init(_ record: NDEFRecord, mode: NDEFDecodingMode) throws(NDEFDecodingError) {
        guard record.tnf == .media else {
            throw NDEFDecodingError(
                offset: 0, record: nil, problem: .wrongRecordType(expected: "media-type (TNF 0x02)"))
        }
        if mode == .strict, !Self.isValidMediaType(record.type) {
            throw NDEFDecodingError(
                offset: 0, record: nil, problem: .wrongRecordType(expected: "media-type with a type/subtype TYPE"))
        }
        mediaType = record.typeString
        data = record.payload
        id = record.id
    }

    public var record: NDEFRecord {
        NDEFRecord(tnf: .media, type: Array(mediaType.utf8), id: id, payload: data)
    }
}
