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

    func validateURL() throws(RelayError) {
        let lower = url.lowercased()
        guard lower.hasPrefix("ws://") || lower.hasPrefix("wss://"), url.split(separator: "/").count >= 2 else {
            throw .invalidURL(url)
        }
    }
}
