import CardFlow
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowDaemonFlows
import CardFlowDaemonTestSupport
import CardFlowSimulator
import CardFlowTONCard
import Foundation
import Testing

/// cardd's `ton-activate` flow on the simulated TON card (factory data vector A), with the
/// activation data and PIN taken from the key store.
@Suite("cardd TON activation")
struct TONActivationJobTests {
    static let factory = TONFactoryData.vectorA
    static let coinManager = CardMatch(aid: TONCommands.coinManagerAID)

    static func rule(_ activationSecret: String, pinSecret: String? = nil) -> CardRule {
        CardRule(
            name: "wallets", match: coinManager,
            flow: .tonActivate(TONActivationRule(activationSecret: activationSecret, pinSecret: pinSecret)))
    }

    static func keys(
        activationNamed name: String? = "ton.activation.\(factory.serialNumber)",
        bytes: [UInt8]? = nil
    ) async throws -> InMemoryKeyStore {
        let keys = InMemoryKeyStore()
        if let name {
            let activation = try TONActivationData(
                passwordHex: factory.password, commonSecretHex: factory.commonSecret,
                ivHex: factory.iv)
            try await keys.setSecret(try SecretBytes(bytes ?? activation.packed), named: name)
        }
        return keys
    }

    static func finished(_ harness: DaemonHarness) async throws -> JobRecord {
        try await harness.waitForJob { $0.rule == "wallets" && $0.state != .running }
    }

    @Test func aCardIsActivatedWithTheDataStoredUnderItsSerial() async throws {
        let keys = try await Self.keys()
        try await DaemonHarness.run(readers: ["sim:ton"], rules: [Self.rule("ton.activation.{serial}")], keys: keys) {
            harness in
            let record = try await Self.finished(harness)
            #expect(record.state == .succeeded, "\(record.error ?? "")")
            #expect(record.flow == "ton-activate")
            #expect(record.lastStep == "personalized")
            #expect(record.outcome?.values["state"] == TONActivation.successMessage)
            // The card's HMAC key is in the daemon's key store under its serial.
            let names = try await keys.listing().secrets.map(\.name)
            #expect(names.contains("ton.hmac.\(Self.factory.serialNumber)"), "\(names)")
            // No secret reaches the job log.
            let events = try await harness.daemon.jobLog?.events(of: record.id) ?? []
            #expect(!events.isEmpty)
            #expect(!events.contains { $0.detail.contains(String(Self.factory.password.prefix(16))) })
        }
    }

    @Test func aPINFromTheKeyStoreIsSet() async throws {
        let keys = try await Self.keys()
        try await keys.setSecret(try SecretBytes(Array("2468".utf8)), named: "ton.pin")
        try await DaemonHarness.run(
            readers: ["sim:ton"], rules: [Self.rule("ton.activation.{serial}", pinSecret: "ton.pin")],
            keys: keys
        ) { harness in
            let record = try await Self.finished(harness)
            #expect(record.state == .succeeded, "\(record.error ?? "")")
            // The card now takes 2468 and refuses 5555 (CHANGE_PIN to itself, through the control socket).
            let client = try await ControlClient.connect(path: harness.socket)
            func changePin(_ pin: String) async throws -> String? {
                let pin = try TONPin(pin)
                let apdus: [JSONValue] = [
                    .string(TONCommands.selectCoinManager.encoded().hexString),
                    .string(TONCommands.changePin(old: pin, new: pin).encoded().hexString),
                ]
                let answer = try await client.request([
                    "op": "apdu", "reader": "sim:0", "apdus": .array(apdus),
                    "follow": .bool(true),
                ])
                return answer["result"]?["outcome"]?["values"]?["responses"]?.stringValue
            }
            let withFactoryPIN = try await changePin("5555")
            let withStoredPIN = try await changePin("2468")
            await client.close()
            #expect(withFactoryPIN?.hasSuffix("9000") == false, "\(withFactoryPIN ?? "no answer")")
            #expect(withStoredPIN?.hasSuffix("9000") == true, "\(withStoredPIN ?? "no answer")")
        }
    }

    @Test func aCardWithoutStoredActivationDataFailsAtTheHashCheck() async throws {
        let keys = try await Self.keys(activationNamed: nil)
        try await DaemonHarness.run(readers: ["sim:ton"], rules: [Self.rule("ton.activation.{serial}")], keys: keys) {
            harness in
            let record = try await Self.finished(harness)
            #expect(record.state == .failed)
            #expect(
                record.error?.contains("ton.activation.\(Self.factory.serialNumber)") == true, "\(record.error ?? "")")
            #expect(record.lastStep == "applet state")
        }
    }

    @Test func activationDataOfAnotherCardIsRefusedByTheCard() async throws {
        let keys = try await Self.keys(bytes: [UInt8](repeating: 0x5A, count: 176))
        try await DaemonHarness.run(readers: ["sim:ton"], rules: [Self.rule("ton.activation.{serial}")], keys: keys) {
            harness in
            let record = try await Self.finished(harness)
            #expect(record.state == .failed)
            #expect(record.lastStep == "applet state")
            #expect(!(try await keys.listing().secrets.map(\.name).contains { $0.hasPrefix("ton.hmac.") }))
        }
    }

    @Test func aMissingSharedSecretOrBadPINFailsBeforeTheCardIsTouched() async throws {
        try await DaemonHarness.run(
            readers: ["sim:ton"], rules: [Self.rule("ton.activation.shared")],
            keys: try await Self.keys()
        ) { harness in
            let record = try await Self.finished(harness)
            #expect(record.state == .failed)
            #expect(record.error?.contains("no secret 'ton.activation.shared'") == true, "\(record.error ?? "")")
            #expect(record.lastStep == nil && record.cardATR == nil)
        }
        let keys = try await Self.keys(activationNamed: "ton.activation.shared")
        try await keys.setSecret(try SecretBytes(Array("12a4".utf8)), named: "ton.pin")
        try await DaemonHarness.run(
            readers: ["sim:ton"], rules: [Self.rule("ton.activation.shared", pinSecret: "ton.pin")],
            keys: keys
        ) { harness in
            let record = try await Self.finished(harness)
            #expect(record.state == .failed)
            #expect(record.lastStep == nil && record.cardATR == nil)
        }
    }

    @Test func rulesAreCheckedWhenTheConfigurationIsRead() throws {
        let good =
            #"{"rules": [{"name": "w", "flow": {"kind": "ton-activate", "activationSecret": "ton.activation.{csn}", "pinSecret": "p"}}]}"#
        let configuration = try DaemonFlowKinds.standard.decoder().decode(
            DaemonConfiguration.self, from: Data(good.utf8))
        #expect(
            configuration.rules.first?.flow
                == .tonActivate(TONActivationRule(activationSecret: "ton.activation.{csn}", pinSecret: "p")))
        for bad in [
            #"{"kind": "ton-activate"}"#, #"{"kind": "ton-activate", "activationSecret": "has space {serial}"}"#,
            #"{"kind": "ton-activate", "activationSecret": "ok", "pinSecret": ""}"#,
        ] {
            let text = #"{"rules": [{"name": "w", "flow": "# + bad + "}]}"
            #expect(throws: (any Error).self, "\(bad)") {
                try DaemonFlowKinds.standard.decoder().decode(DaemonConfiguration.self, from: Data(text.utf8))
            }
        }
    }
}
