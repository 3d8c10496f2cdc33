import CardFlow
import CardFlowCrypto
import CardFlowSimulator
import Testing

@testable import CardFlowDESFire

/// AN10922 per-card application keys: the derivation itself, and provisioning simulated cards
/// with it (each card's key is the derivation for its own UID; a lifted card still resumes).
@Suite("DESFire AN10922 key diversification")
struct DESFireKeyDiversificationTests {
    static let master = try! DESFireKey(type: .aes, hex: "00112233445566778899AABBCCDDEEFF", version: 16)
    static let systemIdentifier = Array("NXP Abu".utf8)
    static let application = try! DESFireApplicationID(hex: "010203")

    static func plan(_ diversification: DESFireKeyDiversification) -> DESFireProvisioning {
        DESFireProvisioning(
            application: application, file: 1, size: 64, commMode: .enciphered,
            applicationKey: .diversified(diversification), data: DESFireEndToEndTests.text)
    }

    static func diversification() throws -> DESFireKeyDiversification {
        try DESFireKeyDiversification(masterKey: master, systemIdentifier: systemIdentifier)
    }

    /// The key the card must hold, computed with CardFlowCrypto directly (not through the DESFire type).
    static func expectedKey(uid: [UInt8]) throws -> [UInt8] {
        try AN10922.diversifyAES128(
            masterKey: master.bytes,
            input: uid + application.wire + systemIdentifier)
    }

    /// Authenticating to the application with the derived key works, with the master key fails,
    /// and the provisioned data reads back.
    static func checkCard(_ reader: CardFlow.Reader, derived: DESFireKey) async throws {
        try await reader.withSession(policy: DESFireEndToEndTests.policy) { session in
            let client = DESFireClient(channel: session)
            try await client.selectApplication(application)
            await #expect(throws: DESFireError.cardStatus(.authenticationError, command: .authenticateAES)) {
                try await client.authenticate(keyNumber: 0, key: master)
            }
            try await client.selectApplication(application)
            try await client.authenticate(keyNumber: 0, key: derived)
            let data = try await client.readData(file: 1)
            #expect(Array(data.prefix(DESFireEndToEndTests.text.count)) == DESFireEndToEndTests.text)
        }
    }

    @Test("AN10922 §2.2.1: UID 04782E21801D80, AID F54230 (wire 30 42 F5), \"NXP Abu\"; the version is the master's")
    func publishedExample() throws {
        let key = try Self.diversification().key(
            uid: [0x04, 0x78, 0x2E, 0x21, 0x80, 0x1D, 0x80], application: try DESFireApplicationID(hex: "F54230"))
        #expect(key.type == .aes)
        #expect(
            key.bytes == [
                0xA8, 0xDD, 0x63, 0xA3, 0xB8, 0x9D, 0x54, 0xB3, 0x7C, 0xA8, 0x02, 0x47, 0x3F, 0xDA, 0x91, 0x75,
            ])
        #expect(key.version == 16)
        #expect(!"\(try Self.diversification())".contains("00112233"))
    }

    @Test("bad master keys, system identifiers and UIDs are invalid arguments")
    func bounds() throws {
        #expect(throws: DESFireError.self) {
            try DESFireKeyDiversification(masterKey: try DESFireKey(type: .twoKey3DES, bytes: Self.master.bytes))
        }
        #expect(throws: DESFireError.self) {
            try DESFireKeyDiversification(masterKey: Self.master, systemIdentifier: [UInt8](repeating: 0x41, count: 22))
        }
        let longest = try DESFireKeyDiversification(
            masterKey: Self.master, systemIdentifier: [UInt8](repeating: 0x41, count: 21))
        _ = try longest.key(uid: [UInt8](repeating: 0x04, count: 7), application: Self.application)
        // A 10-byte UID leaves room for 18 bytes of system identifier only.
        #expect(throws: DESFireError.self) {
            try longest.key(uid: [UInt8](repeating: 0x04, count: 10), application: Self.application)
        }
        #expect(throws: DESFireError.self) { try longest.key(uid: [], application: Self.application) }
    }

    @Test("two cards with different UIDs get different keys, each the AN10922 derivation of its own UID")
    func twoCardsTwoKeys() async throws {
        var keys: [[UInt8]] = []
        var uids: [[UInt8]] = []
        for seed in [11, 12] {
            let (reader, _) = try await DESFireEndToEndTests.reader("sim:desfire,seed=\(seed)")
            let plan = Self.plan(try Self.diversification())
            let (result, _) = await DESFireEndToEndTests.collect(
                reader.run(plan.flow(), policy: plan.policy(base: DESFireEndToEndTests.policy)))
            let value = try result.get()
            #expect(value.readBack == DESFireEndToEndTests.text)
            let expected = try Self.expectedKey(uid: value.uid)
            let derived = try Self.diversification().key(uid: value.uid, application: Self.application)
            #expect(derived.bytes == expected)
            #expect(derived.version == Self.master.version)
            try await Self.checkCard(reader, derived: derived)
            keys.append(expected)
            uids.append(value.uid)
        }
        #expect(uids[0] != uids[1])
        #expect(keys[0] != keys[1])
    }

    @Test(
        "a diversified provision survives the card leaving after any APDU (ChangeKey included)",
        arguments: Array(1...18))
    func liftedAnywhere(_ lift: Int) async throws {
        let (reader, _) = try await DESFireEndToEndTests.reader("sim:desfire,lift-after=\(lift),return-after=30")
        let plan = Self.plan(try Self.diversification())
        let (result, events) = await DESFireEndToEndTests.collect(
            reader.run(plan.flow(), policy: plan.policy(base: DESFireEndToEndTests.policy)))
        let value = try result.get()
        #expect(value.readBack == DESFireEndToEndTests.text)
        // 19 APDUs with the UID query for the derivation (a lift after the last one would hit the
        // check below instead); lifted well before the last one, the flow must have resumed.
        if lift <= 17 {
            #expect(events.contains { if case .resumed = $0 { true } else { false } }, "lift-after=\(lift): \(events)")
        }
        try await Self.checkCard(
            reader, derived: try Self.diversification().key(uid: value.uid, application: Self.application))
    }

    @Test("a diversified provision on a random-UID card derives from the real UID and resumes")
    func randomUID() async throws {
        let (reader, _) = try await DESFireEndToEndTests.reader("sim:desfire,random-uid,lift-after=12,return-after=100")
        let plan = Self.plan(try Self.diversification())
        let (result, events) = await DESFireEndToEndTests.collect(
            reader.run(plan.flow(), policy: plan.policy(base: DESFireEndToEndTests.policy)))
        let value = try result.get()
        #expect(events.contains { if case .resumed = $0 { true } else { false } })
        try await Self.checkCard(
            reader, derived: try Self.diversification().key(uid: value.uid, application: Self.application))
    }
}
