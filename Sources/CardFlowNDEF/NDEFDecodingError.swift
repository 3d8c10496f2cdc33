import CardFlow

/// Why bytes are not a valid NDEF message or record payload, and where.
///
/// `offset` counts from the start of the bytes given to the decoder: the message for
/// ``NDEFMessage/init(decoding:mode:)``, the record payload for the record views
/// (``TextRecord``, ``URIRecord``, ``SmartPosterRecord`` …). `record` is the index of the
/// record header on the wire (chunks count one each), or nil for payload problems.
///
/// ```swift
/// do {
///     _ = try NDEFMessage(decoding: [0xD1, 0x01, 0x0B, 0x55, 0x02], mode: .strict)
/// } catch let error as NDEFDecodingError {
///     print(error)  // byte 4 (record 0): PAYLOAD needs 11 bytes, only 1 left
/// }
/// ```
public struct NDEFDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Byte offset of the field or byte that is wrong.
    public let offset: Int
    /// Index of the record header the problem is in (nil for payload-level problems).
    public let record: Int?
    /// What is wrong.
    public let problem: Problem

    public init(offset: Int, record: Int?, problem: Problem) {
        self.offset = offset
        self.record = record
        self.problem = problem
    }

    /// A record header field, for ``Problem/truncated(_:needed:available:)``.
    public enum Field: String, Sendable, Hashable {
        case header = "record header"
        case typeLength = "TYPE_LENGTH"
        case payloadLength = "PAYLOAD_LENGTH"
        case idLength = "ID_LENGTH"
        case type = "TYPE"
        case id = "ID"
        case payload = "PAYLOAD"
    }

    /// The kinds of wrong bytes.
    public enum Problem: Sendable, Hashable {
        /// No bytes at all (strict; an NDEF message holds at least one record).
        case empty
        /// A field needs `needed` bytes but only `available` remain.
        case truncated(Field, needed: Int, available: Int)
        /// The first record does not have the MB flag (strict).
        case missingMessageBegin
        /// A record after the first has the MB flag (strict).
        case unexpectedMessageBegin
        /// The bytes end without a record with the ME flag (strict).
        case missingMessageEnd
        /// `count` bytes follow the record with the ME flag (strict).
        case trailingBytes(count: Int)
        /// TNF 0x07 is reserved (strict).
        case reservedTypeNameFormat
        /// A TNF 0x00 (empty) record declares a TYPE, ID or PAYLOAD (strict).
        case fieldsInEmptyRecord
        /// A TNF 0x00 (empty) record has the IL flag (strict).
        case idLengthInEmptyRecord
        /// TNF 0x05 (unknown) or 0x06 (unchanged) with a non-empty TYPE (strict).
        case typeNotAllowed(TypeNameFormat)
        /// TNF 0x01...0x04 with an empty TYPE (strict).
        case missingType(TypeNameFormat)
        /// TNF 0x06 (unchanged) on a record that does not continue a chunked record.
        case unexpectedUnchanged
        /// A chunk continuing a chunked record has a TNF other than 0x06.
        case chunkNotUnchanged(TypeNameFormat)
        /// A continuation chunk has the IL flag or an ID (strict).
        case idInContinuationChunk
        /// The ME flag is on a chunk with the CF flag, or the bytes end inside a chunked record.
        case unterminatedChunkedRecord
        /// A continuation chunk has the MB flag (strict).
        case messageBeginInChunk
        /// A record view got a record of another type (the expected type is named).
        case wrongRecordType(expected: String)
        /// A record view's payload is shorter than its format needs.
        case payloadTooShort(needed: Int, available: Int)
        /// Text that is not valid in the encoding it claims (`encoding` names it).
        case invalidText(encoding: String)
        /// A reserved bit is set (strict); `mask` says which.
        case reservedBits(mask: UInt8)
        /// A URI identifier code above 0x23 (strict; lenient reads it as 0x00).
        case undefinedURIPrefix(UInt8)
        /// A Smart Poster without exactly one URI record (`count` found).
        case smartPosterURICount(Int)
        /// A Smart Poster field record (action, size) with a payload of the wrong length.
        case smartPosterFieldLength(name: String, length: Int)
    }

    public var description: String {
        var text = "byte \(offset)"
        if let record { text += " (record \(record))" }
        return text + ": " + problem.description
    }
}

extension NDEFDecodingError.Problem: CustomStringConvertible {
    public var description: String {
        switch self {
        case .empty: "no bytes: an NDEF message holds at least one record"
        case .truncated(let field, let needed, let available):
            "\(field.rawValue) needs \(needed) byte\(needed == 1 ? "" : "s"), only \(available) left"
        case .missingMessageBegin: "the first record lacks the MB (message begin) flag"
        case .unexpectedMessageBegin: "MB (message begin) flag on a record after the first"
        case .missingMessageEnd: "the bytes end without a record with the ME (message end) flag"
        case .trailingBytes(let count): "\(count) byte\(count == 1 ? "" : "s") after the record with the ME flag"
        case .reservedTypeNameFormat: "TNF 0x07 is reserved"
        case .fieldsInEmptyRecord: "a TNF 0x00 (empty) record must have no TYPE, ID or PAYLOAD"
        case .idLengthInEmptyRecord: "a TNF 0x00 (empty) record must not have the IL flag"
        case .typeNotAllowed(let tnf): "TNF 0x0\(tnf.rawValue) (\(tnf)) must have TYPE_LENGTH 0"
        case .missingType(let tnf): "TNF 0x0\(tnf.rawValue) (\(tnf)) needs a TYPE"
        case .unexpectedUnchanged: "TNF 0x06 (unchanged) outside a chunked record"
        case .chunkNotUnchanged(let tnf):
            "a continuation chunk must have TNF 0x06 (unchanged), not 0x0\(tnf.rawValue) (\(tnf))"
        case .idInContinuationChunk: "a continuation chunk must not have an ID"
        case .unterminatedChunkedRecord: "chunked record without its final chunk (CF flag still set)"
        case .messageBeginInChunk: "MB (message begin) flag on a continuation chunk"
        case .wrongRecordType(let expected): "not a \(expected) record"
        case .payloadTooShort(let needed, let available):
            "payload needs \(needed) byte\(needed == 1 ? "" : "s"), only \(available) left"
        case .invalidText(let encoding): "text is not valid \(encoding)"
        case .reservedBits(let mask): "reserved bits set (mask 0x\([mask].hexString))"
        case .undefinedURIPrefix(let code): "URI identifier code 0x\([code].hexString) is not defined (0x00...0x23)"
        case .smartPosterURICount(let count): "a Smart Poster needs exactly one URI record, found \(count)"
        case .smartPosterFieldLength(let name, let length): "Smart Poster \(name) record with a \(length)-byte payload"
        }
    }
}
