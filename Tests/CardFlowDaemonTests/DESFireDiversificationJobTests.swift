import CardFlow
import CardFlowDESFire
import CardFlowDaemon
import CardFlowDaemonFlows
import CardFlowDaemonTestSupport
import CardFlowSimulator
import Foundation
import Testing

/// cardd's `desfire-provision` rule with `"diversify": true`: the key slot holds an AN10922
/// master key and each card gets the key derived from its UID.
@Suite("cardd desfire-provision with AN10922 diversification", .serialized)
struct DESFireDiversificationJobTests {
    static let masterBytes: [UInt8] = Array(0x31...0x40)
    static let systemIdentifier = Array("NXP Abu".utf8)

    static func rule(diversify: Bool = true, systemIdentifier: [UInt8] = systemIdentifier) -> DESFireProvisioningRule {
        DESFireProvisioningRule(
            aid: [0x0A, 0x0B, 0x0C], file: 2, size: 48, comm: "enc", keySlot: 4, data: Array("door 17".utf8),
            diversify: diversify, systemIdentifier: systemIdentifier)
    }

    @Test func theOptionsDecodeRoundTripAndAreValidated() throws {
        let text = #"""
            {"kind": "desfire-provision", "aid": "0A0B0C", "file": 2, "size": 48, "keySlot": 4,
             "diversify": true, "systemIdentifier": "4E585020416275", "text": "door 17"}
            """#
        let decoded = try DaemonFlowKinds.standard.decoder().decode(FlowSpecification.self, from: Data(text.utf8))
        #expect(decoded == .desfireProvision(Self.rule()))
        let plain = #"{"kind": "desfire-provision", "aid": "0A0B0C", "file": 2, "size": 48, "keySlot": 4, "text": "a"}"#
        guard
            let rule = try DaemonFlowKinds.standard.decoder().decode(FlowSpecification.self, from: Data(plain.utf8))
                .flow(as: DESFireProvisioningRule.self)
        else {
            Issue.record("not a desfire-provision flow")
            return
        }
        #expect(!rule.diversify && rule.systemIdentifier.isEmpty)

        for flow: FlowSpecification in [
            .desfireProvision(Self.rule()), .desfireProvision(Self.rule(systemIdentifier: [])),
            .desfireProvision(Self.rule(systemIdentifier: [UInt8](repeating: 0x41, count: 18))),
            .desfireProvision(Self.rule(diversify: false, systemIdentifier: [])),
        ] {
            let data = try JSONEncoder().encode(flow)
            #expect(try DaemonFlowKinds.standard.decoder().decode(FlowSpecification.self, from: data) == flow)
        }
        // A rule without diversification encodes as before: no new keys.
        let encoded = String(
            decoding: try JSONEncoder().encode(FlowSpecification.desfireProvision(Self.rule(diversify: false))),
            as: UTF8.self)
        #expect(!encoded.contains("diversify") && !encoded.contains("systemIdentifier"), "\(encoded)")

        let bad: [(String, String)] = [
            (#""diversify": true, "systemIdentifier": "\#(String(repeating: "41", count: 19))""#, "0 to 18 bytes"),
            (#""systemIdentifier": "4E58""#, "only with \"diversify\": true"),
            (#""diversify": true, "systemIdentifier": "XYZ""#, "systemIdentifier"),
            (#""diversify": "yes""#, "diversify"),
        ]
        for (extra, expected) in bad {
            let line =
                #"{"kind": "desfire-provision", "aid": "0A0B0C", "file": 2, "size": 48, "keySlot": 4, "text": "a", \#(extra)}"#
            #expect {
                _ = try DaemonFlowKinds.standard.decoder().decode(FlowSpecification.self, from: Data(line.utf8))
            } throws: { error in
                "\(error)".contains(expected)
            }
        }
    }

    @Test func aJobWithDiversifyGivesTheCardItsDerivedKey() async throws {
        let keys = InMemoryKeyStore()
        try await keys.setKey(
            try StoredKey(algorithm: .aes128, bytes: Self.masterBytes, version: 2), in: try KeySlot(4))
        let virtual = VirtualCCIDReader(configuration: VirtualReaderConfiguration())
        await virtual.insert(DESFireCard(seed: 21))
        let reader = Reader.simulated(virtual, id: "sim:0")
        let configuration = DaemonConfiguration(
            readers: [],
            rules: [
                CardRule(
                    name: "badges", match: CardMatch(aid: [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x00]),
                    flow: .desfireProvision(Self.rule()))
            ])
        var uid: [UInt8] = []
        try await DaemonHarness.run(configuration: configuration, simulatedReaders: [reader], keys: keys) { harness in
            let record = try await harness.waitForJob { $0.rule == "badges" && $0.state != .running }
            #expect(record.state == .succeeded, "\(record.error ?? "")")
            #expect(record.lastStep == "read back")
            #expect(record.outcome?.values["key"] == "diversified (AN10922)")
            uid = try [UInt8](hex: try #require(record.outcome?.values["uid"]))
            // Neither the master key nor the derived one reaches the job log.
            let events = try await harness.daemon.jobLog?.events(of: record.id) ?? []
            #expect(!events.contains { $0.detail.contains("3132333435363738") })
        }
        #expect(uid.count == 7)

        let master = try DESFireKey(type: .aes, bytes: Self.masterBytes, version: 2)
        let application = try DESFireApplicationID(hex: "0A0B0C")
        let derived = try DESFireKeyDiversification(masterKey: master, systemIdentifier: Self.systemIdentifier)
            .key(uid: uid, application: application)
        #expect(derived.bytes != master.bytes)
        var policy = SessionPolicy()
        policy.connectTimeout = .seconds(2)
        try await Reader.simulated(virtual, id: "sim:check").withSession(policy: policy) { session in
            let client = DESFireClient(channel: session)
            try await client.selectApplication(application)
            await #expect(throws: DESFireError.cardStatus(.authenticationError, command: .authenticateAES)) {
                try await client.authenticate(keyNumber: 0, key: master)
            }
            try await client.selectApplication(application)
            try await client.authenticate(keyNumber: 0, key: derived)
            #expect(Array(try await client.readData(file: 2).prefix(7)) == Array("door 17".utf8))
        }
    }

    @Test func aNonAESMasterKeyFailsTheJobBeforeTheCardIsTouched() async throws {
        let keys = InMemoryKeyStore()
        try await keys.setKey(try StoredKey(algorithm: .twoKey3DES, bytes: Self.masterBytes), in: try KeySlot(4))
        let rule = CardRule(
            name: "badges", match: CardMatch(aid: [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x00]),
            flow: .desfireProvision(Self.rule()))
        try await DaemonHarness.run(readers: ["sim:desfire"], rules: [rule], keys: keys) { harness in
            let record = try await harness.waitForJob { $0.rule == "badges" && $0.state != .running }
            #expect(record.state == .failed)
            #expect(record.error?.contains("AES master key") == true, "\(record.error ?? "")")
            #expect(record.lastStep == nil)
        }
    }
}
