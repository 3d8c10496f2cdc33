import CardFlow
import Foundation

/// Where and how a ``RelayClient`` connects, which cards it accepts and its limits.
///
/// ```swift
/// var configuration = RelayConfiguration(url: "wss://sync.example.com/sync")
/// configuration.bearerToken = token
/// configuration.caFile = "/etc/cardflow/relay-ca.pem"   // trusted in addition to the system roots
/// configuration.aids = [try [UInt8](hex: "D2760000850101")]
/// ```
public struct RelayConfiguration: Sendable {
    /// The service, `ws://` or `wss://` (TLS with certificate verification).
    public var url: String
    /// Sent as `Authorization: Bearer <token>` on the WebSocket upgrade.
    public var bearerToken: String?
    /// A PEM file of CA certificates trusted in addition to the system roots (wss only).
    public var caFile: String?
    /// Applications tried in order by ISO SELECT; the first that answers 90 00 admits the card.
    public var aids: [[UInt8]]
    public var limits: RelayLimits

    /// The seed service's application (D2760000850101).
    public static let defaultAID: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]

    public init(
        url: String, bearerToken: String? = nil, caFile: String? = nil,
        aids: [[UInt8]] = [RelayConfiguration.defaultAID], limits: RelayLimits = RelayLimits()
    ) {
        self.url = url
        self.bearerToken = bearerToken
        self.caFile = caFile
        self.aids = aids
        self.limits = limits
    }

    /// Whether the URL asks for TLS.
    var usesTLS: Bool { url.lowercased().hasPrefix("wss://") }

    /// Checks the URL before anything is contacted: ws:// or wss://, and a host name for wss://.
    ///
    /// - Throws: ``RelayError/invalidURL(_:)`` with the reason.
    public func validateURL() throws(RelayError) {
        let lower = url.lowercased()
        guard lower.hasPrefix("ws://") || lower.hasPrefix("wss://"), url.split(separator: "/").count >= 2 else {
            throw .invalidURL(url)
        }
        if usesTLS, hostIsIPLiteral {
            // The TLS stack verifies (and sends as SNI) a host name; it refuses IP literals.
            throw .invalidURL("\(url) (wss:// needs a host name that the certificate names, not an IP address)")
        }
        if bearerToken != nil { try Self.checkTokenTransport(url: url) }
    }

    /// Refuses a URL that would carry a bearer token in clear text: ws:// is allowed only to a
    /// loopback host (127.0.0.0/8, ::1, localhost), where nothing leaves the machine.
    ///
    /// - Throws: ``RelayError/tokenOverPlainWebSocket(host:)``.
    public static func checkTokenTransport(url: String) throws(RelayError) {
        let configuration = RelayConfiguration(url: url)
        guard !configuration.usesTLS else { return }
        let host = configuration.host
        guard !Self.isLoopback(host: host) else { return }
        throw .tokenOverPlainWebSocket(host: host.isEmpty ? url : host)
    }

    /// The URL's host, without port or IPv6 brackets, lowercased.
    var host: String {
        guard let schemeEnd = url.range(of: "://") else { return "" }
        var authority = url[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        // user:password@host: the host follows the last '@'.
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("[") {
            return String(authority.dropFirst().prefix { $0 != "]" }).lowercased()
        }
        return String(authority.prefix { $0 != ":" }).lowercased()
    }

    /// 127.0.0.0/8 (dotted quad), ::1 (any spelling of it) and localhost.
    static func isLoopback(host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" || host == "localhost." { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4,
            parts.allSatisfy({ part in
                (1...3).contains(part.count) && part.allSatisfy { $0.isASCII && $0.isNumber }
                    && Int(part).map { $0 <= 255 } == true
            })
        {
            return parts[0] == "127"
        }
        if host.contains(":") {
            // ::1, 0:0:0:0:0:0:0:1, 0000::0001 …: every group zero but a last 1.
            let expanded = Self.expandIPv6(host)
            return expanded == [0, 0, 0, 0, 0, 0, 0, 1]
        }
        return false
    }

    private static func expandIPv6(_ text: String) -> [UInt16]? {
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            guard !part.isEmpty else { return [] }
            var result: [UInt16] = []
            for group in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(group.count), let value = UInt16(group, radix: 16) else { return nil }
                result.append(value)
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 8 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count < 8 else { return nil }
        return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
    }

    /// Whether the URL's host is an IPv4 or IPv6 literal.
    var hostIsIPLiteral: Bool {
        guard let schemeEnd = url.range(of: "://") else { return false }
        let authority = url[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" }
        if authority.hasPrefix("[") { return true }
        let host = authority.split(separator: ":", maxSplits: 1).first ?? ""
        return !host.isEmpty && host.allSatisfy { $0.isNumber || $0 == "." }
    }
}
