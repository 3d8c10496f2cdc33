/// A URL laid out for SUN: the NDEF file an NTAG 424 DNA gets (one URI record with `e=` and `c=`
/// placeholders) and where the tag mirrors PICCData and the SDMMAC into it.
///
/// The URL may place the mirrors itself with `{picc}` (32 hex digits of enciphered PICCData) and
/// `{mac}` (16 hex digits of SDMMAC), both once, `{picc}` first; without them `e=…&c=…` is
/// appended to the query.
///
/// ```swift
/// let template = try NTAG424SUNTemplate(url: "https://example.org/tap")
/// template.ndefFile            // NLEN ‖ D1 01 … 55 04 "example.org/tap?e=000…&c=000…"
/// template.sdmSettings(metaReadKey: 2, fileReadKey: 1)   // PICCData at 25, SDMMAC at 60
/// ```
public struct NTAG424SUNTemplate: Sendable, Hashable {
    /// The URL as given.
    public let url: String
    /// The NDEF file: NLEN, then one short URI record.
    public let ndefFile: [UInt8]
    /// Where the 32 hex digits of PICCData go.
    public let piccDataOffset: UInt32
    /// Where the 16 hex digits of the SDMMAC go (the MAC input is empty: it starts there too).
    public let macOffset: UInt32

    /// URI identifier codes of the NFC Forum URI record type, longest prefix first.
    static let prefixes: [(text: String, code: UInt8)] = [
        ("https://www.", 0x02), ("http://www.", 0x01), ("https://", 0x04), ("http://", 0x03),
    ]

    /// The placeholder for enciphered PICCData in a URL that places the mirrors itself.
    public static let piccPlaceholder = "{picc}"
    /// The placeholder for the SDMMAC.
    public static let macPlaceholder = "{mac}"

    /// - Throws: ``NTAG424Error/invalidArgument(_:)`` for an empty URL, placeholders that are not
    ///   each there once with `{picc}` first (or only one of them), or a URL too long for the
    ///   256-byte NDEF file with its placeholders.
    public init(url: String) throws(NTAG424Error) {
        var rest = Substring(url)
        var code: UInt8 = 0
        if let prefix = Self.prefixes.first(where: { url.hasPrefix($0.text) }) {
            rest = rest.dropFirst(prefix.text.count)
            code = prefix.code
        }
        guard !rest.isEmpty else { throw .invalidArgument("the SUN URL is empty") }
        let piccDigits = Array(repeating: UInt8(ascii: "0"), count: 32)
        let macDigits = Array(repeating: UInt8(ascii: "0"), count: 16)
        let pieces = try Self.split(rest)
        let head: [UInt8]
        let middle: [UInt8]
        let tail: [UInt8]
        if let pieces {
            (head, middle, tail) = (Array(pieces.head.utf8), Array(pieces.middle.utf8), Array(pieces.tail.utf8))
        } else {
            (head, middle, tail) = (Array((rest + (rest.contains("?") ? "&" : "?") + "e=").utf8), Array("&c=".utf8), [])
        }
        let uri = head + piccDigits + middle + macDigits + tail
        // NLEN (2) and the record header D1 01 len 55 code (5) in front of the URI.
        guard uri.count + 7 <= 256 else {
            throw .invalidArgument("the SUN URL is \(uri.count + 7 - 256) bytes too long for the 256-byte NDEF file")
        }
        let record: [UInt8] = [0xD1, 0x01, UInt8(uri.count + 1), 0x55, code] + uri
        self.url = url
        self.ndefFile = [0x00, UInt8(record.count)] + record
        self.piccDataOffset = UInt32(7 + head.count)
        self.macOffset = UInt32(7 + head.count + 32 + middle.count)
    }

    /// The text around `{picc}` and `{mac}`, nil when the URL has neither.
    private static func split(_ url: Substring) throws(NTAG424Error) -> (
        head: Substring, middle: Substring, tail: Substring
    )? {
        let picc = url.ranges(of: piccPlaceholder)
        let mac = url.ranges(of: macPlaceholder)
        if picc.isEmpty, mac.isEmpty { return nil }
        guard picc.count == 1, mac.count == 1, picc[0].upperBound <= mac[0].lowerBound else {
            throw .invalidArgument("the SUN URL needs {picc} and {mac} once each, {picc} first")
        }
        return (url[..<picc[0].lowerBound], url[picc[0].upperBound..<mac[0].lowerBound], url[mac[0].upperBound...])
    }

    /// The NDEF file's settings for SUN: plain reads for anyone (phones), writes and changes with
    /// key 0, PICCData enciphered with `metaReadKey`, the SDMMAC with `fileReadKey`,
    /// GetFileCounters with key 0.
    public func fileSettings(metaReadKey: UInt8, fileReadKey: UInt8) -> NTAG424FileSettings {
        NTAG424FileSettings(
            commMode: .plain, accessRights: DESFireAccessRights(read: 0xE, write: 0, readWrite: 0, change: 0),
            sdm: NTAG424SDMSettings(
                metaReadKey: metaReadKey, fileReadKey: fileReadKey, counterRetrievalKey: 0,
                piccDataOffset: piccDataOffset, macInputOffset: macOffset, macOffset: macOffset))
    }

    /// The URI of an NDEF file holding one short URI record (as this template writes it), nil
    /// for anything else.
    public static func uri(inNDEFFile file: [UInt8]) -> String? {
        guard file.count >= 7, file[2] == 0xD1, file[3] == 0x01, file[5] == 0x55, file[4] >= 1 else { return nil }
        let length = Int(file[4]) - 1
        guard file.count >= 7 + length else { return nil }
        let prefix = prefixes.first { $0.code == file[6] }?.text ?? ""
        return prefix + String(decoding: file[7..<(7 + length)], as: UTF8.self)
    }
}
