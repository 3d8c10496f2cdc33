import CardFlow
import CardFlowDESFire
import CardFlowSimulator
import Foundation
import Testing

/// The full SUN provisioning: five keys (key 0 last), a URL with placeholders, the tag's own SUN
/// message verified; resumable wherever the tag leaves; SUN URLs parsed and replays refused.
@Suite("NTAG 424 DNA provisioning, SUN URLs and replay")
struct NTAG424ProvisioningTests {
    static let zero = try! DESFireKey(type: .aes, bytes: [UInt8](repeating: 0, count: 16))
    static let meta = try! DESFireKey(type: .aes, hex: "0102030405060708090A0B0C0D0E0F10", version: 1)
    static let file = try! DESFireKey(type: .aes, hex: "F0E0D0C0B0A090807060504030201000", version: 1)
    static let key3 = try! DESFireKey(type: .aes, hex: "3333333333333333333333333333333F", version: 2)
    static let key4 = try! DESFireKey(type: .aes, hex: "4444444444444444444444444444444F", version: 2)
    static let master = try! DESFireKey(type: .aes, hex: "A0A1A2A3A4A5A6A7A8A9AAABACADAEAF", version: 7)
    static let url = "https://example.com/tap?picc_data={picc}&cmac={mac}&v=1"

    static func plan() throws -> NTAG424SUNPersonalisation {
        NTAG424SUNPersonalisation(
            template: try NTAG424SUNTemplate(url: url), masterKey: zero, metaReadKey: meta, fileReadKey: file,
            otherKeys: [3: key3, 4: key4], newMasterKey: master)
    }

    static var policy: SessionPolicy {
        var policy = SessionPolicy()
        policy.connectTimeout = .seconds(2)
        policy.cardReturnTimeout = .seconds(5)
        return policy
    }

    /// Every key works as installed: key 0 is the new one, keys 1–4 have their new versions and values.
    static func checkKeys(_ reader: CardFlow.Reader) async throws {
        try await reader.withSession { session in
            let tag = NTAG424Client(channel: session)
            try await tag.selectNDEFApplication()
            for (number, key) in [(UInt8(0), master), (1, file), (2, meta), (3, key3), (4, key4)] {
                try await tag.authenticate(keyNumber: number, key: key)
                #expect(try await tag.getKeyVersion(number) == key.version, "key \(number)")
            }
        }
    }

    @Test("placeholders: the mirrors go where {picc} and {mac} are; bad placements are refused")
    func placeholders() throws {
        let template = try NTAG424SUNTemplate(url: Self.url)
        let text = try #require(NTAG424SUNTemplate.uri(inNDEFFile: template.ndefFile))
        let picc = String(repeating: "0", count: 32)
        let mac = String(repeating: "0", count: 16)
        #expect(text == "https://example.com/tap?picc_data=\(picc)&cmac=\(mac)&v=1")
        // Offsets count from the file start: NLEN 2 + record header 5.
        let bytes = template.ndefFile
        let piccAt = Int(template.piccDataOffset)
        let macAt = Int(template.macOffset)
        #expect(String(decoding: bytes[(piccAt - 10)..<piccAt], as: UTF8.self) == "picc_data=")
        #expect(String(decoding: bytes[(macAt - 5)..<macAt], as: UTF8.self) == "cmac=")
        for bad in [
            "https://e.com/?m={mac}&p={picc}", "https://e.com/?p={picc}", "https://e.com/?p={picc}{picc}&m={mac}",
            "https://e.com/?m={mac}",
        ] {
            #expect(throws: NTAG424Error.self, "\(bad)") { try NTAG424SUNTemplate(url: bad) }
        }
    }

    @Test("provision: five keys changed (key 0 last), the tag's SUN URL verifies; a second run changes nothing")
    func provisionTwice() async throws {
        let setup = try await SimulatorSetup(specification: try SimulatorSpecification(parsing: "sim:ntag424"))
        let reader = setup.cardFlowReaders()[0]
        let plan = try Self.plan()
        try plan.validate()
        let first = try await reader.run(plan.flow(), policy: Self.policy).value
        #expect(first.changedKeys)
        #expect(first.message.uid == first.uid && first.message.readCounter == 1)
        #expect(first.url.hasPrefix("https://example.com/tap?picc_data=") && first.url.hasSuffix("&v=1"))
        try await Self.checkKeys(reader)
        // Re-run: key 0 is found by its version, nothing changes, the tag still verifies.
        let second = try await reader.run(plan.flow(), policy: Self.policy).value
        #expect(!second.changedKeys && second.message.readCounter == 2)
    }

    @Test(
        "provision survives the tag leaving after any APDU, ChangeKey of key 0 included, and loses no key",
        arguments: Array(1...36))
    func provisionLiftedAnywhere(_ lift: Int) async throws {
        let setup = try await SimulatorSetup(
            specification: try SimulatorSpecification(parsing: "sim:ntag424,lift-after=\(lift),return-after=30"))
        let reader = setup.cardFlowReaders()[0]
        // Unlifted, the flow sends 36 APDUs: every one of them is a lift point.
        let result = try await reader.run(try Self.plan().flow(), policy: Self.policy).value
        #expect(result.message.uid == result.uid)
        try await Self.checkKeys(reader)
    }

    @Test("invalid plans are refused before a tag is touched")
    func validation() throws {
        let template = try NTAG424SUNTemplate(url: Self.url)
        let sameVersion = NTAG424SUNPersonalisation(
            template: template, masterKey: Self.zero, metaReadKey: Self.meta, fileReadKey: Self.file,
            newMasterKey: try DESFireKey(type: .aes, bytes: Self.master.bytes, version: 0))
        #expect(throws: NTAG424Error.self) { try sameVersion.validate() }
        let key5 = NTAG424SUNPersonalisation(
            template: template, masterKey: Self.zero, metaReadKey: Self.meta, fileReadKey: Self.file,
            otherKeys: [5: Self.key3])
        #expect(throws: NTAG424Error.self) { try key5.validate() }
        let versionZero = NTAG424SUNPersonalisation(
            template: template, masterKey: Self.zero, metaReadKey: Self.meta, fileReadKey: Self.file,
            otherKeys: [3: Self.zero])
        #expect(throws: NTAG424Error.self) { try versionZero.validate() }
    }

    @Test("URL parameters: names e/picc_data/c/cmac, plain mirrors, and typed errors for the rest")
    func urlParameters() throws {
        let enciphered = try NTAG424SUNURLParameters(
            url: "https://x.org/t?picc_data=EF963FF7828658A599F3041510671E88&cmac=94EED9EE65337086#frag")
        #expect(enciphered.piccData?.count == 16 && enciphered.mac.count == 8 && enciphered.uid == nil)
        let plain = try NTAG424SUNURLParameters(
            url: "https://x.org/t?uid=041E3C8A2D6B80&ctr=000006&cmac=4B00064004B0B3D3")
        #expect(plain.uid == [0x04, 0x1E, 0x3C, 0x8A, 0x2D, 0x6B, 0x80] && plain.readCounter == 6)
        let named = try NTAG424SUNURLParameters(
            url: "https://x.org/t?m=94EED9EE65337086&p=EF963FF7828658A599F3041510671E88", piccDataName: "p",
            macName: "m")
        #expect(named.piccData == enciphered.piccData && named.mac == enciphered.mac)
        #expect(throws: NTAG424SUNURLError.missing("SDMMAC (m=)")) {
            try NTAG424SUNURLParameters(url: "https://x.org/t?c=94EED9EE65337086&p=00", macName: "m")
        }
        #expect(throws: NTAG424SUNURLError.noQuery) { try NTAG424SUNURLParameters(url: "https://x.org/t") }
        #expect(throws: NTAG424SUNURLError.self) { try NTAG424SUNURLParameters(url: "https://x.org/t?e=00") }
        #expect(throws: NTAG424SUNURLError.notHex(parameter: "c")) {
            try NTAG424SUNURLParameters(url: "https://x.org/t?e=00&c=XYZ")
        }
        #expect(throws: NTAG424SUNURLError.notHex(parameter: "ctr")) {
            try NTAG424SUNURLParameters(url: "https://x.org/t?uid=04&ctr=0001&c=00")
        }
    }

    @Test("the application note's example URL and a plain-mirror URL verify through the URL parser")
    func applicationNoteURL() throws {
        // AN12196 (as in NTAG424SUNVectorTests): PICCData EF963FF7828658A599F3041510671E88, SDMMAC 94EED9EE65337086, keys 16 × 00.
        let verifier = try NTAG424SUNVerifier(
            metaReadKey: [UInt8](repeating: 0, count: 16), fileReadKey: [UInt8](repeating: 0, count: 16))
        let message = try verifier.verify(
            try NTAG424SUNURLParameters(
                url: "https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086"))
        #expect(message.uid == [0x04, 0xDE, 0x5F, 0x1E, 0xAC, 0xC0, 0x40] && message.readCounter == 0x3D)
        // The plain-mirror vector (icedevml/sdm-backend, as in NTAG424SUNVectorTests) through a URL.
        let plain = try NTAG424SUNVerifier(metaReadKey: nil, fileReadKey: [UInt8](repeating: 0, count: 16))
        let plainMessage = try plain.verify(
            try NTAG424SUNURLParameters(
                url: "https://sdm.example/t?uid=041E3C8A2D6B80&ctr=000006&cmac=4B00064004B0B3D3"))
        #expect(plainMessage.readCounter == 6)
    }

    @Test("replay guard: a counter must rise per UID; counters survive in the file; a bad file is a typed error")
    func replayGuard() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sun-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("counters.json").path
        let uid: [UInt8] = [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]
        func message(_ counter: UInt32, _ uid: [UInt8]? = uid) -> NTAG424SUNMessage {
            NTAG424SUNMessage(uid: uid, readCounter: counter, fileData: nil, piccDataTag: 0xC7)
        }
        let guardian = try NTAG424SUNReplayGuard(path: path)
        #expect(try await guardian.accept(message(5)) == .fresh(previous: nil))
        #expect(try await guardian.accept(message(5)) == .replayed(counter: 5, last: 5))
        #expect(try await guardian.accept(message(4)) == .replayed(counter: 4, last: 5))
        #expect(try await guardian.accept(message(9)) == .fresh(previous: 5))
        #expect(try await guardian.accept(message(1, [0x04, 0, 0, 0, 0, 0, 1])) == .fresh(previous: nil))
        await #expect(throws: NTAG424SUNReplayError.notCounted) {
            try await guardian.accept(NTAG424SUNMessage(uid: nil, readCounter: 3, fileData: nil, piccDataTag: nil))
        }
        // A new guard on the same file remembers.
        let reopened = try NTAG424SUNReplayGuard(path: path)
        #expect(await reopened.lastCounter(uid: uid) == 9)
        #expect(try await reopened.accept(message(9)) == .replayed(counter: 9, last: 9))
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: NTAG424SUNReplayError.self) { try NTAG424SUNReplayGuard(path: path) }
        try Data(#"{"format":"other/1","counters":{}}"#.utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: NTAG424SUNReplayError.self) { try NTAG424SUNReplayGuard(path: path) }
    }
}
