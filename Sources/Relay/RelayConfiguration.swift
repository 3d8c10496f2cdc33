import CardFlow

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

    public init(url: String, bearerToken: String? = nil, caFile: String? = nil,
                aids: [[UInt8]] = [RelayConfiguration.defaultAID], limits: RelayLimits = RelayLimits()) {
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
