import CardFlow

/// The SUN fields of a URL a tag gave, found by their query parameter names.
///
/// Names understood (the ones NXP's application notes and common back ends use): `e`,
/// `picc_data` or `picc` for enciphered PICCData; `c`, `cmac` or `mac` for the SDMMAC; `enc`
/// for SDMENCFileData; `uid` and `ctr` for a plain mirror. A URL template that names them
/// otherwise (`?p={picc}&m={mac}`) gives its names to the initialiser.
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

    /// - Parameters:
    ///   - url: the URL the tag gave.
    ///   - piccDataName: the parameter holding enciphered PICCData, when not one of the usual names.
    ///   - macName: the parameter holding the SDMMAC, when not one of the usual names.
    /// - Throws: ``NTAG424SUNURLError`` for a URL without a query, without a MAC, without PICCData
    ///   or UID, or with a value that is not hex of the right size.
    public init(url: String, piccDataName: String? = nil, macName: String? = nil) throws(NTAG424SUNURLError) {
        guard let mark = url.firstIndex(of: "?") else { throw .noQuery }
        var values: [String: Substring] = [:]
        for pair in url[url.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            // The first of a repeated name counts; a later one cannot override it.
            if values[String(parts[0])] == nil { values[String(parts[0])] = parts[1].split(separator: "#").first ?? "" }
        }
        func field(_ names: [String]) throws(NTAG424SUNURLError) -> [UInt8]? {
            guard let name = names.first(where: { values[$0] != nil }), let text = values[name] else { return nil }
            do { return try [UInt8](hex: String(text)) } catch { throw .notHex(parameter: name) }
        }
        let macNames = macName.map { [$0] } ?? Self.macNames
        guard let mac = try field(macNames) else {
            throw .missing("SDMMAC (" + macNames.map { $0 + "=" }.joined(separator: ", ") + ")")
        }
        piccData = try field(piccDataName.map { [$0] } ?? Self.piccDataNames)
        uid = try field(["uid"])
        encFileData = try field(["enc"])
        if let counter = try field(["ctr"]) {
            guard counter.count == 3 else { throw .notHex(parameter: "ctr") }
            readCounter = counter.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        } else {
            readCounter = nil
        }
        guard piccData != nil || uid != nil else { throw .missing("PICCData (e=, picc_data=) or a plain uid=") }
        self.mac = mac
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
