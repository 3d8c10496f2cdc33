/// Why a record or message cannot be encoded.
///
/// ```swift
/// do {
///     _ = try NDEFMessage([NDEFRecord(tnf: .unknown, type: Array("x".utf8))]).encoded()
/// } catch {
///     print(error)  // TNF 0x05 (unknown) must have an empty TYPE
/// }
/// ```
public enum NDEFEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A message needs at least one record.
    case noRecords
    /// TYPE is longer than 255 bytes.
    case typeTooLong(Int)
    /// ID is longer than 255 bytes.
    case idTooLong(Int)
    /// PAYLOAD is longer than 2^32-1 bytes.
    case payloadTooLong(Int)
    /// A TNF 0x00 (empty) record with a TYPE, ID or PAYLOAD.
    case fieldsInEmptyRecord
    /// TNF 0x05 (unknown) with a TYPE.
    case typeNotAllowed(TypeNameFormat)
    /// TNF 0x01...0x04 without a TYPE.
    case missingType(TypeNameFormat)
    /// TNF 0x06 (unchanged) and 0x07 (reserved) are not for records to encode.
    case typeNameFormatNotEncodable(TypeNameFormat)
    /// A chunk size below 1.
    case invalidChunkSize(Int)
    /// A Text record language code that is not 1...63 ASCII bytes (or 0 bytes).
    case invalidLanguageCode(String)
    /// A media type or external type name that is not printable ASCII, or an external type without ':'.
    case invalidTypeName(String)

    public var description: String {
        switch self {
        case .noRecords: "an NDEF message needs at least one record"
        case .typeTooLong(let count): "TYPE of \(count) bytes (at most 255)"
        case .idTooLong(let count): "ID of \(count) bytes (at most 255)"
        case .payloadTooLong(let count): "PAYLOAD of \(count) bytes (at most 4294967295)"
        case .fieldsInEmptyRecord: "a TNF 0x00 (empty) record must have no TYPE, ID or PAYLOAD"
        case .typeNotAllowed(let tnf): "TNF 0x0\(tnf.rawValue) (\(tnf)) must have an empty TYPE"
        case .missingType(let tnf): "TNF 0x0\(tnf.rawValue) (\(tnf)) needs a TYPE"
        case .typeNameFormatNotEncodable(let tnf): "TNF 0x0\(tnf.rawValue) (\(tnf)) cannot be encoded"
        case .invalidChunkSize(let size): "chunk size \(size) (at least 1)"
        case .invalidLanguageCode(let code): "language code '\(code)' is not at most 63 ASCII characters"
        case .invalidTypeName(let name): "'\(name)' is not a valid type name"
        }
    }
}
