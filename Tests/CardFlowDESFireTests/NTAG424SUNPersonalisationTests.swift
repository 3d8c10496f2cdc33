import CardFlow
import CardFlowDESFire
import CardFlowSimulator
import Testing

/// SUN personalisation as a flow, against the simulated tag; the URL template on its own.
@Suite("NTAG 424 DNA SUN personalisation")
struct NTAG424SUNPersonalisationTests {
    static let zero = try! DESFireKey(type: .aes, bytes: [UInt8](repeating: 0, count: 16))
    static let metaReadKey = try! DESFireKey(type: .aes, hex: "0102030405060708090A0B0C0D0E0F10", version: 1)
    static let fileReadKey = try! DESFireKey(type: .aes, hex: "F0E0D0C0B0A090807060504030201000", version: 1)

    @Test("the template: URI prefix abbreviated, placeholders after ? or &, offsets where the hex digits start")
    func template() throws {
        let plain = try NTAG424SUNTemplate(url: "https://example.org/tap")
        #expect(plain.piccDataOffset == 25 && plain.macOffset == 60)
        #expect(plain.ndefFile[6] == 0x04, "https:// is identifier code 04")
        let text = String(decoding: plain.ndefFile[7...], as: UTF8.self)
        #expect(
            text == "example.org/tap?e=" + String(repeating: "0", count: 32) + "&c=" + String(repeating: "0", count: 16)
        )
        #expect(Int(plain.ndefFile[1]) == plain.ndefFile.count - 2, "NLEN")
        #expect(NTAG424SUNTemplate.uri(inNDEFFile: plain.ndefFile) == "https://" + text)
        let query = try NTAG424SUNTemplate(url: "http://www.example.org/t?id=7")
        #expect(String(decoding: query.ndefFile[7...], as: UTF8.self).hasPrefix("example.org/t?id=7&e="))
        #expect(query.ndefFile[6] == 0x01)
        #expect(throws: NTAG424Error.self) { try NTAG424SUNTemplate(url: "https://") }
        #expect(throws: NTAG424Error.self) {
            try NTAG424SUNTemplate(url: "https://" + String(repeating: "a", count: 196))
        }
        #expect(try NTAG424SUNTemplate(url: "https://" + String(repeating: "a", count: 195)).ndefFile.count == 256)
        #expect(NTAG424SUNTemplate.uri(inNDEFFile: [0x00, 0x05, 0xD1, 0x01, 0x00, 0x55, 0x04]) == nil)
        #expect(NTAG424SUNTemplate.uri(inNDEFFile: [0x00, 0x05, 0xD1, 0x01, 0x09, 0x55, 0x04]) == nil)
    }

    @Test("the flow personalises a factory tag, a second run changes no key, and taps verify")
    func personaliseTwice() async throws {
        let setup = try await SimulatorSetup(specification: try SimulatorSpecification(parsing: "sim:ntag424"))
        let reader = setup.cardFlowReaders()[0]
        let plan = NTAG424SUNPersonalisation(
            template: try NTAG424SUNTemplate(url: "https://example.org/tap"),
            masterKey: Self.zero, metaReadKey: Self.metaReadKey, fileReadKey: Self.fileReadKey)
        let first = try await reader.run(plan.flow()).value
        #expect(first.changedKeys && first.uid.count == 7)
        let second = try await reader.run(plan.flow()).value
        #expect(!second.changedKeys && second.uid == first.uid)

        let url = try await NTAG424EndToEndTests.tap(reader)
        let (e, c) = try NTAG424EndToEndTests.parameters(url)
        let verifier = try NTAG424SUNVerifier(metaReadKey: Self.metaReadKey.bytes, fileReadKey: Self.fileReadKey.bytes)
        let message = try verifier.verify(piccData: e, mac: c)
        // Each run ends by reading the tag as a phone does (counters 1 and 2): this tap is the third.
        #expect(message.uid == first.uid && message.readCounter == 3)
    }

    @Test("SDM keys of version 0 and keys that are not AES are refused before a tag is touched")
    func validation() throws {
        let template = try NTAG424SUNTemplate(url: "https://example.org/tap")
        let versionZero = NTAG424SUNPersonalisation(
            template: template, masterKey: Self.zero, metaReadKey: Self.zero,
            fileReadKey: Self.fileReadKey)
        #expect(throws: NTAG424Error.self) { try versionZero.validate() }
        let des = try DESFireKey(type: .des, bytes: [UInt8](repeating: 0, count: 8))
        let notAES = NTAG424SUNPersonalisation(
            template: template, masterKey: des, metaReadKey: Self.metaReadKey,
            fileReadKey: Self.fileReadKey)
        #expect(throws: NTAG424Error.self) { try notAES.validate() }
    }
}
