import CardFlow
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowRelay
import Foundation

/// The parameters of a `relay` flow: the card is synchronised by a remote service through cardd
/// (docs/relay-protocol.md).
///
/// ```json
/// {"kind": "relay", "url": "wss://sync.example.com/sync", "aids": ["D2760000850101"],
///  "tokenSecret": "relay.token", "caFile": "/etc/cardflow/relay-ca.pem",
///  "maxAPDUs": 2000, "idleTimeoutSeconds": 30}
/// ```
///
/// The bearer token is a key-store secret named by `tokenSecret` (never inline); `caFile` adds
/// trusted CA certificates for wss://; `aids` gate the card (the first that SELECTs admits it;
/// the seed's D2760000850101 when absent).
public struct RelayRule: DaemonFlow, Hashable {
    public static let kind = "relay"
    public static let writesToCard = true

    public var url: String
    public var aids: [[UInt8]]
    public var tokenSecret: String?
    public var caFile: String?
    public var maxAPDUs: Int
    public var idleTimeoutSeconds: Int
    /// Bound on the whole sync (the relay is one flow step, so this replaces the step deadline).
    public var maxSyncSeconds: Int

    public init(
        url: String, aids: [[UInt8]] = [RelayConfiguration.defaultAID], tokenSecret: String? = nil,
        caFile: String? = nil, maxAPDUs: Int = RelayLimits().maxAPDUs, idleTimeoutSeconds: Int = 30,
        maxSyncSeconds: Int = 600
    ) {
        self.url = url
        self.aids = aids
        self.tokenSecret = tokenSecret
        self.caFile = caFile
        self.maxAPDUs = maxAPDUs
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.maxSyncSeconds = maxSyncSeconds
    }

    /// The relay client's configuration, with the token already read from the key store.
    func configuration(token: String?) -> RelayConfiguration {
        RelayConfiguration(
            url: url, bearerToken: token, caFile: caFile, aids: aids,
            limits: RelayLimits(maxAPDUs: maxAPDUs, idleTimeout: .seconds(idleTimeoutSeconds)))
    }

    enum CodingKeys: String, CodingKey {
        case url, aids, tokenSecret, caFile, maxAPDUs, idleTimeoutSeconds, maxSyncSeconds
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func fail(_ key: CodingKeys, _ message: String) -> DecodingError {
            DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: message)
        }
        url = try container.decode(String.self, forKey: .url)
        do {
            try RelayConfiguration(url: url).validateURL()
        } catch {
            throw fail(.url, error.description)
        }
        aids =
            try container.decodeIfPresent([HexBytes].self, forKey: .aids)?.map(\.bytes) ?? [
                RelayConfiguration.defaultAID
            ]
        guard !aids.isEmpty, aids.count <= 16, aids.allSatisfy({ (5...16).contains($0.count) }) else {
            throw fail(.aids, "1 to 16 application IDs of 5 to 16 bytes")
        }
        tokenSecret = try container.decodeIfPresent(String.self, forKey: .tokenSecret)
        if let tokenSecret, !SecretNameRule.isValid(tokenSecret) {
            throw fail(.tokenSecret, "a secret name (letters, digits, . _ - : @ + /)")
        }
        if tokenSecret != nil {
            // Known at load time: a token would go in clear text to a remote host.
            do { try RelayConfiguration.checkTokenTransport(url: url) } catch { throw fail(.url, error.description) }
        }
        caFile = try container.decodeIfPresent(String.self, forKey: .caFile)
        maxAPDUs = try container.decodeIfPresent(Int.self, forKey: .maxAPDUs) ?? RelayLimits().maxAPDUs
        guard (1...100_000).contains(maxAPDUs) else { throw fail(.maxAPDUs, "1 to 100000 APDUs per sync") }
        idleTimeoutSeconds = try container.decodeIfPresent(Int.self, forKey: .idleTimeoutSeconds) ?? 30
        guard (1...3600).contains(idleTimeoutSeconds) else { throw fail(.idleTimeoutSeconds, "1 to 3600 seconds") }
        maxSyncSeconds = try container.decodeIfPresent(Int.self, forKey: .maxSyncSeconds) ?? 600
        guard (1...86_400).contains(maxSyncSeconds) else { throw fail(.maxSyncSeconds, "1 to 86400 seconds") }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(aids.map(HexBytes.init), forKey: .aids)
        try container.encodeIfPresent(tokenSecret, forKey: .tokenSecret)
        try container.encodeIfPresent(caFile, forKey: .caFile)
        try container.encode(maxAPDUs, forKey: .maxAPDUs)
        try container.encode(idleTimeoutSeconds, forKey: .idleTimeoutSeconds)
        try container.encode(maxSyncSeconds, forKey: .maxSyncSeconds)
    }
}

extension RelayRule {
    /// Connect to the relay service (its token from the key store) and let it drive the card;
    /// the connection closes when the flow ends.
    public func job(_ context: DaemonFlowContext) async throws -> FlowJob {
        var token: String?
        if let name = tokenSecret {
            token = String(decoding: try await context.secret(name), as: UTF8.self)
        }
        let relay = try RelayClient(configuration: configuration(token: token), logger: context.logger).job()
        let flow = relay.flow.map { result in
            var values = [
                "atr": result.identity.atr.hexString, "apdus": "\(result.apduCount)", "resumes": "\(result.resumes)",
            ]
            if let uid = result.identity.uid { values["uid"] = uid.hexString }
            if let message = result.message { values["message"] = message }
            return JobOutcome(values)
        }
        let syncBound = Duration.seconds(maxSyncSeconds)
        return FlowJob(
            flow: flow,
            policy: { base in
                var policy = relay.policy(base: base)
                policy.stepTimeout = syncBound
                return policy
            }, finish: { await relay.finish(after: $0) })
    }
}

extension FlowSpecification {
    /// Relay a remote service's APDUs to the card (``RelayRule``).
    public static func relay(_ rule: RelayRule) -> FlowSpecification {
        FlowSpecification(rule)
    }
}
