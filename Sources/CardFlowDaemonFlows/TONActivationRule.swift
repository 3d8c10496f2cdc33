import CardFlow
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowTONCard
import Foundation

/// The parameters of a `ton-activate` flow:
///
/// ```json
/// {"kind": "ton-activate", "activationSecret": "ton.activation.{serial}", "pinSecret": "ton.pin"}
/// ```
///
/// The card's activation data (its 128-byte password, 32-byte common secret and 16-byte IV, as
/// one 176-byte secret P1 ‖ CS ‖ IV) comes from the key store, named by `activationSecret`:
/// `{serial}` stands for the card's 24-digit serial number (readable once the flow has made the
/// seed), `{csn}` for the CoinManager's card serial number in hex; a name without either is one
/// secret for every card. `pinSecret` names a secret of 4 ASCII digits, the PIN to set (5555,
/// the factory PIN, when absent). The card's HMAC key is stored in the same key store
/// (`ton.hmac.<serial>`). Nothing secret is in the configuration, the job log or the logs.
public struct TONActivationRule: DaemonFlow, Hashable {
    public static let kind = "ton-activate"
    public static let writesToCard = true
    public static let personalisesCard = true

    public var activationSecret: String
    public var pinSecret: String?

    public init(activationSecret: String, pinSecret: String? = nil) {
        self.activationSecret = activationSecret
        self.pinSecret = pinSecret
    }

    /// The placeholders `activationSecret` may hold.
    public static let placeholders = ["{serial}", "{csn}"]

    enum CodingKeys: String, CodingKey { case activationSecret, pinSecret }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        activationSecret = try container.decode(String.self, forKey: .activationSecret)
        pinSecret = try container.decodeIfPresent(String.self, forKey: .pinSecret)
        // A sample substitution must make a valid secret name, so a typo fails at load time.
        let sample = Self.placeholders.reduce(activationSecret) { $0.replacingOccurrences(of: $1, with: "0") }
        guard SecretNameRule.isValid(sample) else {
            throw DecodingError.dataCorruptedError(
                forKey: .activationSecret, in: container,
                debugDescription: "a secret name (letters, digits, . _ - : @ + /) with optional {serial} or {csn}")
        }
        if let pinSecret, !SecretNameRule.isValid(pinSecret) {
            throw DecodingError.dataCorruptedError(
                forKey: .pinSecret, in: container,
                debugDescription: "a secret name (letters, digits, . _ - : @ + /)")
        }
    }
}

extension TONActivationRule {
    /// Activate the card with activation data from the key store; one secret for every card is
    /// checked before the card is touched.
    public func job(_ context: DaemonFlowContext) async throws -> FlowJob {
        let keys = try context.requiredKeys()
        var pin = TONPin.default
        if let name = pinSecret {
            pin = try TONPin(String(decoding: try await DaemonFlowContext.secret(name, in: keys), as: UTF8.self))
        }
        let template = activationSecret
        let perCard = Self.placeholders.contains { template.contains($0) }
        if !perCard { _ = try TONActivationData(packed: try await DaemonFlowContext.secret(template, in: keys)) }
        let hmacKeys = TONHmacKeyStore(store: keys)
        let flow = TONActivation.flow(
            activationFor: { session in
                var name = template
                if name.contains("{serial}") {
                    let serial = try await TONWallet(channel: session, hmacKeys: hmacKeys).serialNumber()
                    name = name.replacingOccurrences(of: "{serial}", with: serial.description)
                }
                if name.contains("{csn}") {
                    name = name.replacingOccurrences(
                        of: "{csn}", with: try await TONCoinManager(channel: session).csn().hexString)
                }
                return try TONActivationData(packed: try await DaemonFlowContext.secret(name, in: keys))
            }, pin: pin, hmacKeys: hmacKeys
        )
        .map { state in JobOutcome(["state": state.message]) }
        return FlowJob(
            flow: flow,
            policy: { policy in
                var policy = policy
                policy.identity = TONActivation.cardIdentity
                return policy
            })
    }
}

extension FlowSpecification {
    /// Activate a TON Labs security card (``TONActivationRule``).
    public static func tonActivate(_ rule: TONActivationRule) -> FlowSpecification {
        FlowSpecification(rule)
    }
}
