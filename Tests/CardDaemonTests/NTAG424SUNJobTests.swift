import CardDaemon
import CardDaemonControl
import CardFlow
import DESFire
import DaemonTestSupport
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
            (#"{"kind":"ntag424-sun","url":"https://example.org/tap","metaKeySlot":16,"fileKeySlot":4}"#, false),
            (#"{"kind":"ntag424-sun","url":"https://example.org/tap","metaKeySlot":3}"#, false),
            (#"{"kind":"ntag424-sun","url":"https://","metaKeySlot":3,"fileKeySlot":4}"#, false),
            (
                #"{"kind":"ntag424-sun","url":"https://example.org/tap","metaKeySlot":3,"fileKeySlot":4,"masterKeySlot":-1}"#,
                false
            ),
        ])
    func ruleJSON(json: String, valid: Bool) throws {
        let decoded = try? JSONDecoder().decode(FlowSpecification.self, from: Data(json.utf8))
        #expect((decoded != nil) == valid, "\(json)")
        if let decoded {
            let again = try JSONDecoder().decode(FlowSpecification.self, from: try JSONEncoder().encode(decoded))
            #expect(again == decoded)
        }
    }
}
