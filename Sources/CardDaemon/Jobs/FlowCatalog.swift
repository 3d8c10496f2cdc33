import CardDaemonControl
import CardFlow
import DESFire
import ISO15693
import Logging
import NDEF
import Relay
import StorageCards
import TONCard

/// A flow ready to run, with what it needs of the session policy (e.g. DESFire's identity by
/// GetCardUID) and what must happen once it ended (a relay closes its connection).
public struct FlowJob: Sendable {
    public var flow: Flow<JobOutcome>
    public var policy: @Sendable (SessionPolicy) -> SessionPolicy
    /// Called once when the flow ended, with its error (nil when it succeeded).
    public var finish: @Sendable ((any Error)?) async -> Void

    public init(
        flow: Flow<JobOutcome>, policy: @escaping @Sendable (SessionPolicy) -> SessionPolicy = { $0 },
        finish: @escaping @Sendable ((any Error)?) async -> Void = { _ in }
    ) {
        self.flow = flow
        self.policy = policy
        self.finish = finish
    }
}

/// Builds the CardFlow ``/CardFlow/Flow`` a ``FlowSpecification`` names. Every flow starts by recording the
/// card's identity, so that the job log has it even when a later step fails.
public enum FlowCatalog {
    /// The flow with its keys and secrets taken from `keys` (flows that need none ignore it).
    ///
    /// - Throws: ``DaemonFlowError/noKeyStore`` when a flow needs keys and there is no store,
    ///   ``DaemonFlowError/missingSecret(_:)`` for a secret the flow needs now, the key store's
    ///   and the card layers' errors for empty slots, keys of the wrong type or bad secrets.
    public static func job(
        for specification: FlowSpecification, keys: (any KeyStore)?,
        logger: Logger = Logger(label: "cardd.flow")
    ) async throws -> FlowJob {
        switch specification {
        case .desfireProvision(let rule):
            return try await desfireJob(rule, keys: try required(keys))
        case .ntag424SUN(let rule):
            return try await ntag424SUNJob(rule, keys: try required(keys))
        case .classicValue(let rule):
            return try await classicValueJob(rule, keys: try required(keys))
        case .ntagNDEFProtect(let rule):
            return try await ntagNDEFProtectJob(rule, keys: rule.needsKeyStore ? try required(keys) : keys)
        case .tonActivate(let rule):
            return try await tonActivationJob(rule, keys: try required(keys))
        case .relay(let rule):
            var token: String?
            if let name = rule.tokenSecret {
                token = String(decoding: try await secret(name, in: try required(keys)), as: UTF8.self)
            }
            let relay = try RelayClient(configuration: rule.configuration(token: token), logger: logger).job()
            let flow = relay.flow.map { result in
                var values = [
                    "atr": result.identity.atr.hexString, "apdus": "\(result.apduCount)",
                    "resumes": "\(result.resumes)",
                ]
                if let uid = result.identity.uid { values["uid"] = uid.hexString }
                if let message = result.message { values["message"] = message }
                return JobOutcome(values)
            }
            let syncBound = Duration.seconds(rule.maxSyncSeconds)
            return FlowJob(
                flow: flow,
                policy: { base in
                    var policy = relay.policy(base: base)
                    policy.stepTimeout = syncBound
                    return policy
                }, finish: { await relay.finish(after: $0) })
        case .fleet:
            throw DaemonFlowError.fleetFlowNeedsClaim
        default:
            return FlowJob(flow: keylessFlow(for: specification))
        }
    }

    private static func required(_ keys: (any KeyStore)?) throws -> any KeyStore {
        guard let keys else { throw DaemonFlowError.noKeyStore }
        return keys
    }

    static func secret(_ name: String, in keys: any KeyStore) async throws -> [UInt8] {
        guard let secret = try await keys.secret(named: name) else { throw DaemonFlowError.missingSecret(name) }
        return secret.bytes
    }

    private static func desfireJob(_ rule: DESFireProvisioningRule, keys: any KeyStore) async throws -> FlowJob {
        let key = try await DESFireKey(slot: try KeySlot(rule.keySlot), in: keys)
        var piccKey = DESFireKey.defaultDES
        if let slot = rule.piccKeySlot { piccKey = try await DESFireKey(slot: try KeySlot(slot), in: keys) }
        // Diversified: the slot holds the AN10922 master key; a non-AES one fails here, before a card is touched.
        let applicationKey: DESFireProvisioning.ApplicationKeySource =
            rule.diversify
            ? .diversified(try DESFireKeyDiversification(masterKey: key, systemIdentifier: rule.systemIdentifier))
            : .shared(key)
        let provisioning = DESFireProvisioning(
            application: try DESFireApplicationID(
                UInt32(rule.aid[0]) << 16 | UInt32(rule.aid[1]) << 8 | UInt32(rule.aid[2])),
            file: rule.file, size: rule.size, commMode: DESFireCommMode(name: rule.comm) ?? .enciphered,
            applicationKey: applicationKey, data: rule.data, piccKey: piccKey)
        try provisioning.validate()
        let flow = provisioning.flow().map { result in
            var values = [
                "uid": result.uid.hexString, "aid": rule.aid.hexString, "file": "\(result.file)",
                "written": "\(result.readBack.count) bytes",
            ]
            if rule.diversify { values["key"] = "diversified (AN10922)" }
            return JobOutcome(values)
        }
        return FlowJob(flow: flow, policy: { provisioning.policy(base: $0) })
    }

    private static func ntag424SUNJob(_ rule: NTAG424SUNRule, keys: any KeyStore) async throws -> FlowJob {
        var masterKey = try DESFireKey(type: .aes, bytes: [UInt8](repeating: 0, count: 16))
        if let slot = rule.masterKeySlot { masterKey = try await DESFireKey(slot: try KeySlot(slot), in: keys) }
        var otherKeys: [UInt8: DESFireKey] = [:]
        for (number, slot) in [(UInt8(3), rule.key3Slot), (4, rule.key4Slot)] {
            if let slot { otherKeys[number] = try await DESFireKey(slot: try KeySlot(slot), in: keys) }
        }
        var newMasterKey: DESFireKey?
        if let slot = rule.newMasterKeySlot { newMasterKey = try await DESFireKey(slot: try KeySlot(slot), in: keys) }
        let plan = NTAG424SUNPersonalisation(
            template: try NTAG424SUNTemplate(url: rule.url), masterKey: masterKey,
            metaReadKey: try await DESFireKey(slot: try KeySlot(rule.metaKeySlot), in: keys),
            fileReadKey: try await DESFireKey(slot: try KeySlot(rule.fileKeySlot), in: keys),
            otherKeys: otherKeys, newMasterKey: newMasterKey)
        // Empty slots and keys that are not AES or have version 0 fail before a tag is touched.
        try plan.validate()
        let flow = plan.flow().map { result in
            JobOutcome([
                "uid": result.uid.hexString, "url": rule.url, "keysChanged": result.changedKeys ? "yes" : "no",
                "piccDataOffset": "\(plan.template.piccDataOffset)", "macOffset": "\(plan.template.macOffset)",
                "sunURL": result.url, "readCounter": result.message.readCounter.map { "\($0)" } ?? "",
            ])
        }
        return FlowJob(flow: flow)
    }

    private static func classicValueJob(_ rule: ClassicValueRule, keys: any KeyStore) async throws -> FlowJob {
        // A missing secret or one that is no 6-byte key fails here, before a card is touched.
        let transfer = rule.transfer(key: try ClassicKey(try await secret(rule.keySecret, in: keys)))
        try transfer.validate()
        let flow = transfer.flow().map { result in
            JobOutcome([
                "uid": result.uid.hexString, "block": "\(rule.block)", "before": "\(result.before)",
                "after": "\(result.after)",
            ])
        }
        return FlowJob(flow: flow)
    }

    private static func tonActivationJob(_ rule: TONActivationRule, keys: any KeyStore) async throws -> FlowJob {
        var pin = TONPin.default
        if let name = rule.pinSecret {
            pin = try TONPin(String(decoding: try await secret(name, in: keys), as: UTF8.self))
        }
        let template = rule.activationSecret
        let perCard = TONActivationRule.placeholders.contains { template.contains($0) }
        // One secret for every card: a missing or malformed one fails before the card is touched.
        if !perCard { _ = try TONActivationData(packed: try await secret(template, in: keys)) }
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
                return try TONActivationData(packed: try await secret(name, in: keys))
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

    /// The flows that need no keys.
    private static func keylessFlow(for specification: FlowSpecification) -> Flow<JobOutcome> {
        let identify = Flow.start("identify") { session in
            let identity = await session.identity
            var values = ["atr": identity.atr.hexString]
            if let uid = identity.uid { values["uid"] = uid.hexString }
            return JobOutcome(values)
        }
        switch specification {
        case .report:
            return identify
        case .apdus(let apdus, let expect):
            return identify.then("apdus", idempotent: false) { outcome, session in
                var outcome = outcome
                var answers: [String] = []
                for (index, bytes) in apdus.enumerated() {
                    let command = try CommandAPDU(bytes: bytes)
                    let response = try await session.send(command)
                    answers.append(response.encoded().hexString)
                    if let expect, response.statusWord.rawValue != expect {
                        throw DaemonFlowError.unexpectedStatus(
                            apdu: index, statusWord: response.statusWord.rawValue,
                            expected: expect)
                    }
                    await session.reportProgress(Double(index + 1) / Double(apdus.count))
                }
                outcome.values["responses"] = answers.joined(separator: " ")
                return outcome
            }
        case .ndefWrite(let content):
            return identify.then("ndef-write", idempotent: true) { outcome, session in
                let record: NDEFRecord
                switch content {
                case .uri(let uri): record = URIRecord(uri).record
                case .text(let text): record = try TextRecord(text).record
                }
                let message = try NDEFMessage([record]).encoded()
                let tag = try await StorageNDEFTag.detect(on: session)
                try await tag.writeMessageBytes(message)
                // Read back: a write the card acknowledged but did not keep is a failure, not a success.
                guard try await tag.readMessageBytes() == message else { throw DaemonFlowError.readBackMismatch }
                var outcome = outcome
                outcome.values["written"] = message.hexString
                return outcome
            }
        case .ndefRead:
            return identify.then("ndef-read") { outcome, session in
                let tag = try await StorageNDEFTag.detect(on: session)
                var outcome = outcome
                outcome.values["message"] = try await tag.readMessageBytes().hexString
                return outcome
            }
        case .iso15693Read(let first, let count):
            return identify.then("iso15693-read") { outcome, session in
                let tag = ISO15693Tag(channel: session)
                var outcome = outcome
                outcome.values["blocks"] = try await tag.readBlocks(first, count: count).hexString
                return outcome
            }
        case .desfireProvision, .ntag424SUN, .classicValue, .ntagNDEFProtect, .tonActivate, .relay, .fleet:
            preconditionFailure("job(for:keys:) builds the flows that need keys, a connection or a claim")
        }
    }
}

/// Why a daemon flow failed, beyond the card layers' own errors.
public enum DaemonFlowError: Error, Sendable, Hashable, CustomStringConvertible {
    case unexpectedStatus(apdu: Int, statusWord: UInt16, expected: UInt16)
    case readBackMismatch
    case noKeyStore
    case missingSecret(String)
    /// A fleet record's parameters (merged over the rule's template) are not a valid flow.
    case invalidFleetRecord(String)
    /// A `fleet` flow runs when a card arrives and a record is claimed for it, not on request.
    case fleetFlowNeedsClaim
    /// The host lost its claim on the record (lease expired unrenewed, or another host holds it
    /// now): the flow stopped before its next step.
    case fleetClaimLost(record: Int64)

    public var description: String {
        switch self {
        case .unexpectedStatus(let apdu, let sw, let expected):
            "APDU \(apdu + 1) answered \(String(format: "%04X", sw)), expected \(String(format: "%04X", expected))"
        case .readBackMismatch: "the data read back differs from what was written"
        case .missingSecret(let name): "the key store has no secret '\(name)'"
        case .noKeyStore:
            "this flow takes its keys from a key store, and cardd has none (set \"keyStore\" in the configuration)"
        case .invalidFleetRecord(let reason): "the fleet record cannot be run: \(reason)"
        case .fleetFlowNeedsClaim:
            "a fleet flow runs on the card a record was claimed for (a rule with \"fleet\" configured), not on request"
        case .fleetClaimLost(let record):
            "the claim on fleet record \(record) was lost (lease not renewed in time, or claimed by another host); "
                + "stopped before the next step"
        }
    }
}
