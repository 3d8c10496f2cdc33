import CardFlow
import CardFlowDESFire
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowDaemonFlows
import CardFlowDaemonTestSupport
import Foundation
import Testing

/// cardd's `ntag424-sun` flow on the simulated NTAG 424 DNA, with the SDM keys from the key store.
@Suite("cardd NTAG 424 SUN personalisation")
struct NTAG424SUNJobTests {
    static let metaKey = [UInt8](repeating: 0x11, count: 16)
    static let fileKey = [UInt8](repeating: 0x22, count: 16)

    static func keys(version: UInt8 = 1) async throws -> InMemoryKeyStore {
        let keys = InMemoryKeyStore()
        try await keys.setKey(try StoredKey(algorithm: .aes128, bytes: metaKey, version: version), in: try KeySlot(3))
        try await keys.setKey(try StoredKey(algorithm: .aes128, bytes: fileKey, version: version), in: try KeySlot(4))
        return keys
    }

    static let rule = CardRule(
        name: "sun", match: CardMatch(aid: NTAG424File.applicationName),
        flow: .ntag424SUN(NTAG424SUNRule(url: "https://example.org/tap", metaKeySlot: 3, fileKeySlot: 4)))

    @Test func aTagIsPersonalisedAndItsNextTapVerifies() async throws {
        try await DaemonHarness.run(readers: ["sim:ntag424"], rules: [Self.rule], keys: try await Self.keys()) {
            harness in
            let record = try await harness.waitForJob { $0.rule == "sun" && $0.state != .running }
            #expect(record.state == .succeeded, "\(record.error ?? "")")
            #expect(record.flow == "ntag424-sun")
            #expect(record.outcome?.values["keysChanged"] == "yes")
            #expect(record.outcome?.values["piccDataOffset"] == "25")
            let uid = try #require(record.outcome?.values["uid"])
            #expect(uid.count == 14)
            // No key bytes in the job log.
            let events = try await harness.daemon.jobLog?.events(of: record.id) ?? []
            #expect(!events.contains { $0.detail.contains("1111111111") || $0.detail.contains("2222222222") })
        }
    }

    @Test func allFiveKeysAreChangedKeyZeroLastAndTheTagsOwnSUNURLVerifies() async throws {
        let keys = try await Self.keys()
        for (slot, byte, version) in [(5, UInt8(0x33), UInt8(2)), (6, 0x44, 2), (7, 0x55, 9)] {
            try await keys.setKey(
                try StoredKey(algorithm: .aes128, bytes: [UInt8](repeating: byte, count: 16), version: version),
                in: try KeySlot(slot))
        }
        let rule = CardRule(
            name: "sun5", match: CardMatch(aid: NTAG424File.applicationName),
            flow: .ntag424SUN(
                NTAG424SUNRule(
                    url: "https://example.org/t?p={picc}&m={mac}", metaKeySlot: 3, fileKeySlot: 4, key3Slot: 5,
                    key4Slot: 6, newMasterKeySlot: 7)))
        try await DaemonHarness.run(readers: ["sim:ntag424"], rules: [rule], keys: keys) { harness in
            let record = try await harness.waitForJob { $0.rule == "sun5" && $0.state != .running }
            #expect(record.state == .succeeded, "\(record.error ?? "")")
            #expect(record.outcome?.values["keysChanged"] == "yes")
            #expect(record.outcome?.values["readCounter"] == "1")
            let url = try #require(record.outcome?.values["sunURL"])
            #expect(url.hasPrefix("https://example.org/t?p=") && url.contains("&m="), "\(url)")
            let verifier = try NTAG424SUNVerifier(metaReadKey: Self.metaKey, fileReadKey: Self.fileKey)
            let message = try verifier.verify(try NTAG424SUNURLParameters(url: url, piccDataName: "p", macName: "m"))
            #expect(message.uid?.hexString == record.outcome?.values["uid"])
        }
    }

    @Test func sdmKeysOfVersionZeroFailBeforeTheTagIsTouched() async throws {
        try await DaemonHarness.run(readers: ["sim:ntag424"], rules: [Self.rule], keys: try await Self.keys(version: 0))
        {
            harness in
            let record = try await harness.waitForJob { $0.rule == "sun" && $0.state != .running }
            #expect(record.state == .failed)
            #expect(record.error?.contains("version other than 0") == true, "\(record.error ?? "")")
        }
    }

    @Test(
        "the rule's JSON: slots and the URL are checked when the configuration is read",
        arguments: [
            (#"{"kind":"ntag424-sun","url":"https://example.org/tap","metaKeySlot":3,"fileKeySlot":4}"#, true),
            (
                #"{"kind":"ntag424-sun","url":"https://example.org/tap","metaKeySlot":3,"fileKeySlot":4,"masterKeySlot":5}"#,
                true
            ),
            (
                #"{"kind":"ntag424-sun","url":"https://e.org/t?p={picc}&m={mac}","metaKeySlot":3,"fileKeySlot":4,"key3Slot":5,"key4Slot":6,"newMasterKeySlot":7}"#,
                true
            ),
            (
                #"{"kind":"ntag424-sun","url":"https://e.org/t?m={mac}&p={picc}","metaKeySlot":3,"fileKeySlot":4}"#,
                false
            ),
            (#"{"kind":"ntag424-sun","url":"https://e.org/t","metaKeySlot":3,"fileKeySlot":4,"key4Slot":16}"#, false),
            (#"{"kind":"ntag424-sun","url":"https://example.org/tap","metaKeySlot":16,"fileKeySlot":4}"#, false),
            (#"{"kind":"ntag424-sun","url":"https://example.org/tap","metaKeySlot":3}"#, false),
            (#"{"kind":"ntag424-sun","url":"https://","metaKeySlot":3,"fileKeySlot":4}"#, false),
            (
                #"{"kind":"ntag424-sun","url":"https://example.org/tap","metaKeySlot":3,"fileKeySlot":4,"masterKeySlot":-1}"#,
                false
            ),
        ])
    func ruleJSON(json: String, valid: Bool) throws {
        try expectFlowJSON(json, valid: valid)
    }
}
