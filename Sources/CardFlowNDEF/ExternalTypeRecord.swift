/// An NFC Forum external type record (TNF 0x04): the TYPE is `domain:type`, such as
/// `android.com:pkg` or `example.com:custom`, the payload is defined by the domain's owner.
///
/// ```swift
/// let record = try ExternalTypeRecord(type: "example.com:sensor", data: [0x01, 0x02]).record
/// record.tnf  // .external
/// ```
public struct ExternalTypeRecord: NDEFRecordView {
    /// The full type name, `domain:type`.
    public var type: String
    /// The payload.
    public var data: [UInt8]
    /// The record ID.
    public var id: [UInt8]

    /// Throws ``NDEFEncodingError/invalidTypeName(_:)`` unless `type` is 1...255 printable
    /// ASCII characters with a `:` between a domain and a type.
    public init(type: String, data: [UInt8], id: [UInt8] = []) throws(NDEFEncodingError) {
        guard Self.isValidName(Array(type.utf8)) else { throw .invalidTypeName(type) }
        self.type = type
        self.data = data
        self.id = id
    }

    /// The part before the first `:`.
    public var domain: String { String(type.prefix { $0 != ":" }) }
    /// The part after the first `:`.
    public var name: String { String(type.drop { $0 != ":" }.dropFirst()) }

    static func isValidName(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty, bytes.count <= 255, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
            let colon = bytes.firstIndex(of: UInt8(ascii: ":"))
        else { return false }
        return colon > 0 && colon < bytes.count - 1
    }

    /// Reads a TNF 0x04 record. Strict decoding also checks the `domain:type` form.
    public init(_ record: NDEFRecord, mode: NDEFDecodingMode) throws(NDEFDecodingError) {
        guard record.tnf == .external else {
            throw NDEFDecodingError(
                offset: 0, record: nil, problem: .wrongRecordType(expected: "external type (TNF 0x04)"))
        }
        if mode == .strict, !Self.isValidName(record.type) {
            throw NDEFDecodingError(
                offset: 0, record: nil, problem: .wrongRecordType(expected: "external type named domain:type"))
        }
        type = record.typeString
        data = record.payload
        id = record.id
    }

    public var record: NDEFRecord {
        NDEFRecord(tnf: .external, type: Array(type.utf8), id: id, payload: data)
    }
}
