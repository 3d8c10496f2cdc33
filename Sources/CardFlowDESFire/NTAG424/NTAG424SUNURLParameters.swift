import CardFlow

/// The SUN fields of a URL a tag gave, found by their query parameter names.
///
/// Names understood (the ones NXP's application notes and common back ends use): `e`,
/// `picc_data` or `picc` for enciphered PICCData; `c`, `cmac` or `mac` for the SDMMAC; `enc`
/// for SDMENCFileData; `uid` and `ctr` for a plain mirror. A URL template that names them
/// otherwise (`?p={picc}&m={mac}`) gives its names to the initialiser. The query runs from the
/// first `?` to the fragment (`#`), the first pair of a name counts, values are not
/// percent-decoded (hex needs no escapes).
///
/// ```swift
/// let fields = try NTAG424SUNURLParameters(url: "https://example.org/tap?picc_data=EF96…&cmac=94EE…")
/// let message = try verifier.verify(fields)
/// ```
public struct NTAG424SUNURLParameters: Sendable, Hashable {
    /// Enciphered PICCData, when the tag mirrors it enciphered.
    public let piccData: [UInt8]?
    /// The UID of a plain mirror.
    public let uid: [UInt8]?
    /// The read counter of a plain mirror (3 bytes, most significant first in the URL).
    public let readCounter: UInt32?
    /// SDMENCFileData, when present.
    public let encFileData: [UInt8]?
    /// The SDMMAC.
    public let mac: [UInt8]

    static let piccDataNames = ["e", "picc_data", "picc"]
    static let macNames = ["c", "cmac", "mac"]
    static let uidNames = ["uid"]
    static let encFileDataNames = ["enc"]
    static let readCounterNames = ["ctr"]

    /// - Parameters:
    ///   - url: the URL the tag gave.
    ///   - piccDataName: the parameter holding enciphered PICCData, when not one of the usual names.
    ///   - macName: the parameter holding the SDMMAC, when not one of the usual names.
    /// - Throws: ``NTAG424SUNURLError`` for a URL without a query, without a MAC, without PICCData
    ///   or UID, or with a value that is not hex of the right size.
    public init(url: String, piccDataName: String? = nil, macName: String? = nil) throws(NTAG424SUNURLError) {
        // Read as UTF-8 bytes: a verifying back end parses every tap, and walking the URL's
        // characters cost more than the cryptography (every delimiter is ASCII, and no byte of a
        // multi-byte UTF-8 sequence is).
        var url = url
        let parsed = url.withUTF8 { text in
            Result { () throws(NTAG424SUNURLError) in
                try Self(utf8: text, piccDataName: piccDataName, macName: macName)
            }
        }
        self = try parsed.get()
    }

    private init(utf8 url: UnsafeBufferPointer<UInt8>, piccDataName: String?, macName: String?)
        throws(NTAG424SUNURLError)
    {
        guard let mark = url.firstIndex(of: UInt8(ascii: "?")) else { throw .noQuery }
        // The query runs to the fragment, if any (RFC 3986 §3.4–3.5).
        let fragment = url[(mark + 1)...].firstIndex(of: UInt8(ascii: "#")) ?? url.endIndex
        let query = UnsafeBufferPointer(rebasing: url[(mark + 1)..<fragment])
        func field(_ names: [String]) throws(NTAG424SUNURLError) -> [UInt8]? {
            for name in names {
                guard let value = Self.value(named: name, in: query) else { continue }
                let text = UnsafeBufferPointer(rebasing: query[value])
                // Hex with non-ASCII whitespace in it is still read, by the text parser.
                if let bytes = [UInt8](asciiHex: text) ?? (try? [UInt8](hex: String(decoding: text, as: UTF8.self))) {
                    return bytes
                }
                throw .notHex(parameter: name)
            }
            return nil
        }
        let macNames = macName.map { [$0] } ?? Self.macNames
        guard let mac = try field(macNames) else {
            throw .missing("SDMMAC (" + macNames.map { $0 + "=" }.joined(separator: ", ") + ")")
        }
        piccData = try field(piccDataName.map { [$0] } ?? Self.piccDataNames)
        uid = try field(Self.uidNames)
        encFileData = try field(Self.encFileDataNames)
        if let counter = try field(Self.readCounterNames) {
            guard counter.count == 3 else { throw .notHex(parameter: "ctr") }
            readCounter = counter.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        } else {
            readCounter = nil
        }
        guard piccData != nil || uid != nil else { throw .missing("PICCData (e=, picc_data=) or a plain uid=") }
        self.mac = mac
    }

    /// Where the value of the first `name=value` pair called `name` lies in `query`: the first of a
    /// repeated name counts, so a later one cannot override it; a pair without `=` is no pair.
    private static func value(named name: String, in query: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var start = query.startIndex
        while start < query.endIndex {
            let end = query[start...].firstIndex(of: UInt8(ascii: "&")) ?? query.endIndex
            if let equals = query[start..<end].firstIndex(of: UInt8(ascii: "=")),
                name.utf8.elementsEqual(query[start..<equals])
            {
                return (equals + 1)..<end
            }
            start = end + 1
        }
        return nil
    }
}

/// Why a URL holds no SUN message to verify.
public enum NTAG424SUNURLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL has no `?query`.
    case noQuery
    /// A needed parameter is absent.
    case missing(String)
    /// A parameter's value is not hex (or not of the size it must have).
    case notHex(parameter: String)

    public var description: String {
        switch self {
        case .noQuery: "the URL has no query with the SUN parameters"
        case .missing(let what): "the URL lacks \(what)"
        case .notHex(let parameter): "the URL's \(parameter)= is not hex of the right size"
        }
    }
}

extension NTAG424SUNVerifier {
    /// Verifies the SUN message in a URL's parameters (enciphered or plain mirror).
    ///
    /// - Throws: ``NTAG424SUNError`` as the other `verify` methods.
    public func verify(_ parameters: NTAG424SUNURLParameters) throws(NTAG424SUNError) -> NTAG424SUNMessage {
        if let piccData = parameters.piccData {
            return try verify(piccData: piccData, encFileData: parameters.encFileData, mac: parameters.mac)
        }
        return try verify(
            uid: parameters.uid, readCounter: parameters.readCounter, encFileData: parameters.encFileData,
            mac: parameters.mac)
    }
}
