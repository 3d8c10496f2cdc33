/// The 3-bit Type Name Format (TNF) field of an NDEF record header: how to read the record's type.
///
/// ```swift
/// let record = NDEFRecord(tnf: .wellKnown, type: Array("U".utf8), payload: [0x04] + Array("example.com".utf8))
/// record.tnf.rawValue  // 1
/// ```
public enum TypeNameFormat: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 0x00: no type, no ID, no payload (the "empty record").
    case empty = 0
    /// 0x01: an NFC Forum well-known type (RTD), such as `T`, `U` or `Sp`.
    case wellKnown = 1
    /// 0x02: a media type (RFC 2046), such as `text/plain`.
    case media = 2
    /// 0x03: an absolute URI (RFC 3986) names the type.
    case absoluteURI = 3
    /// 0x04: an NFC Forum external type, `domain:type`.
    case external = 4
    /// 0x05: unknown payload type; the TYPE field must be empty.
    case unknown = 5
    /// 0x06: a continuation chunk of a chunked record; never appears on a reassembled record.
    case unchanged = 6
    /// 0x07: reserved by the NFC Forum. Strict decoding rejects it; lenient decoding keeps it.
    case reserved = 7

    public var description: String {
        switch self {
        case .empty: "empty"
        case .wellKnown: "well-known"
        case .media: "media"
        case .absoluteURI: "absolute URI"
        case .external: "external"
        case .unknown: "unknown"
        case .unchanged: "unchanged"
        case .reserved: "reserved"
        }
    }
}
