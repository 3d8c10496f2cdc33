/// The NFC Forum well-known URI record (type `U`).
///
/// Payload: a URI identifier code that abbreviates a prefix (0x00 none, 0x01 `http://www.`,
/// 0x02 `https://www.`, 0x03 `http://`, 0x04 `https://`, … 0x23 `urn:nfc:`; see
/// ``prefixes``), then the rest of the URI in UTF-8. Encoding picks the longest prefix that
/// matches.
///
/// ```swift
/// let record = URIRecord("https://www.github.com").record
/// record.payload  // 02 "github.com"
/// try URIRecord(record).uri  // "https://www.github.com"
/// ```
public struct URIRecord: NDEFRecordView {
    /// The full URI (IRI), prefix included.
    public var uri: String
    /// The record ID (usually empty).
    public var id: [UInt8]

    public init(_ uri: String, id: [UInt8] = []) {
        self.uri = uri
        self.id = id
    }

    /// The URI identifier codes 0x00...0x23 and the prefixes they stand for (NFC Forum URI RTD).
    public static let prefixes: [String] = [
        "", "http://www.", "https://www.", "http://", "https://", "tel:",
        "mailto:", "ftp://anonymous:anonymous@", "ftp://ftp.", "ftps://",
        "sftp://", "smb://", "nfs://", "ftp://", "dav://", "news:",
        "telnet://", "imap:", "rtsp://", "urn:", "pop:", "sip:", "sips:",
        "tftp:", "btspp://", "btl2cap://", "btgoep://", "tcpobex://",
        "irdaobex://", "file://", "urn:epc:id:", "urn:epc:tag:",
        "urn:epc:pat:", "urn:epc:raw:", "urn:epc:", "urn:nfc:",
    ]

    /// The identifier code of the longest prefix of `uri` in ``prefixes`` (0 if none).
    public static func identifierCode(for uri: String) -> UInt8 {
        var best = 0
        for (code, prefix) in prefixes.enumerated() where code > 0 && uri.hasPrefix(prefix) {
            if prefix.utf8.count > prefixes[best].utf8.count { best = code }
        }
        return UInt8(best)
    }

    /// Reads a URI record. Strict decoding rejects identifier codes above 0x23 and invalid
    /// UTF-8; lenient decoding reads such codes as 0x00 (as the specification tells readers)
    /// and repairs the UTF-8.
    public init(_ record: NDEFRecord, mode: NDEFDecodingMode) throws(NDEFDecodingError) {
        guard record.isWellKnown("U") else {
            throw NDEFDecodingError(offset: 0, record: nil, problem: .wrongRecordType(expected: "URI (U)"))
        }
        guard let code = record.payload.first else {
            throw NDEFDecodingError(offset: 0, record: nil, problem: .payloadTooShort(needed: 1, available: 0))
        }
        var prefix = ""
        if Int(code) < Self.prefixes.count {
            prefix = Self.prefixes[Int(code)]
        } else if mode == .strict {
            throw NDEFDecodingError(offset: 0, record: nil, problem: .undefinedURIPrefix(code))
        }
        let rest = record.payload.dropFirst()
        if let text = String(validating: rest, as: UTF8.self) {
            uri = prefix + text
        } else if mode == .lenient {
            uri = prefix + String(decoding: rest, as: UTF8.self)
        } else {
            throw NDEFDecodingError(offset: 1, record: nil, problem: .invalidText(encoding: "UTF-8"))
        }
        id = record.id
    }

    public var record: NDEFRecord {
        let code = Self.identifierCode(for: uri)
        let rest = uri.utf8.dropFirst(Self.prefixes[Int(code)].utf8.count)
        return NDEFRecord(wellKnown: "U", id: id, payload: [code] + Array(rest))
    }
}
