import CardFlowCrypto
import Foundation
import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// SetConfiguration (5C) as libfreefare's `mifare-desfire-ev1-configure-*` tools send it
/// (issue 35, item 1): `5C option Enc(data)` at the PICC level after PICC master key
/// authentication.
@Suite("DESFire card: SetConfiguration (random ID, format disable, default key, ATS)")
struct DESFireCardConfigurationTests {
    static let zeroDES = HostKey.des([UInt8](repeating: 0, count: 16))
    static let rndA = h("01 02 03 04 05 06 07 08")

    /// ISO authentication with the factory PICC master key (EV1 messaging).
    static func authenticatePICC(_ card: inout DESFireCard, legacy: Bool = false) throws -> HostSession {
        let (session, trace) = try HostSession.authenticate(
            &card, command: legacy ? 0x0A : 0x1A, keyNumber: 0, key: zeroDES, rndA: rndA)
        return try #require(session, "authentication failed: \(String(describing: trace.failureStatus))")
    }

    /// `5C option Enc(data ‖ CRC)`; returns the card's answer after checking its CMAC.
    static func configure(
        _ card: inout DESFireCard, _ host: HostSession, option: UInt8, _ data: [UInt8]
    ) throws -> UInt8 {
        let answer = card.send(0x5C, [option] + (try host.encipher(header: [0x5C, option], data: data)))
        if answer.status == 0x00 { #expect(try host.responseData(answer) == []) }
        return answer.status
    }

    @Test(
        "Option 00 bit 1: the random ID answers anticollision from the next activation; GetCardUID still gives the UID")
    func randomID() throws {
        var card = DESFireCard(seed: 11)
        card.powerOn()
        let realUID = card.uid
        #expect(realUID.count == 7 && !card.randomUID)
        let host = try Self.authenticatePICC(&card)
        #expect(try Self.configure(&card, host, option: 0x00, [0x02]) == 0x00)
        #expect(card.randomUID)
        // This activation happened with the UID.
        #expect(card.uid == realUID)
        card.powerOn()
        let first = card.uid
        #expect(first.count == 4 && first[0] == 0x08)
        card.powerOn()
        #expect(card.uid.count == 4 && card.uid[0] == 0x08)
        // GetVersion hides the UID now.
        #expect(Array(card.exchange(0x60).data[14..<21]) == [UInt8](repeating: 0, count: 7))
        // GetCardUID (any authenticated key) reveals it, enciphered.
        let again = try Self.authenticatePICC(&card)
        try again.commandCMAC([0x51])
        #expect(try again.decipherResponse(card.send(0x51), length: 7) == realUID)
        // Irreversible: a configuration byte without bit 1 leaves the random ID on.
        let third = try Self.authenticatePICC(&card)
        #expect(try Self.configure(&card, third, option: 0x00, [0x00]) == 0x00)
        card.powerOn()
        #expect(card.randomUID && card.uid.count == 4)
    }

    @Test("Option 00 bit 0: FormatPICC is refused (9D) until the bit is cleared; unknown bits 9E")
    func formatDisable() throws {
        var card = DESFireCard(seed: 12)
        card.powerOn()
        var host = try Self.authenticatePICC(&card)
        #expect(try Self.configure(&card, host, option: 0x00, [0x01]) == 0x00)
        try host.commandCMAC([0xFC])
        #expect(card.send(0xFC).status == 0x9D)
        host = try Self.authenticatePICC(&card)
        #expect(try Self.configure(&card, host, option: 0x00, [0x04]) == 0x9E)
        host = try Self.authenticatePICC(&card)
        #expect(try Self.configure(&card, host, option: 0x00, [0x00]) == 0x00)
        try host.commandCMAC([0xFC])
        #expect(try host.responseData(card.send(0xFC)) == [])
        #expect(!card.randomUID)
    }

    @Test("Option 01: new applications get the default key and its version")
    func defaultKey() throws {
        var card = DESFireCard(seed: 13)
        card.powerOn()
        let key = h("00 11 22 33 44 55 66 77 88 99 AA BB CC DD EE FF")
        let host = try Self.authenticatePICC(&card)
        let field = key + [UInt8](repeating: 0, count: 8) + [0x42]
        #expect(try Self.configure(&card, host, option: 0x01, field) == 0x00)
        // An AES application with two keys.
        try host.commandCMAC([0xCA] + h("20 00 00 0F 82"))
        #expect(try host.responseData(card.send(0xCA, h("20 00 00 0F 82"))) == [])
        #expect(card.send(0x5A, h("20 00 00")).status == 0x00)
        #expect(card.send(0x64, [0x01]) == DESFireAnswer(data: [0x42], status: 0x00))
        let (session, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 1, key: .aes(key), rndA: [UInt8](repeating: 7, count: 16))
        #expect(session != nil)
        // A factory card's applications keep all-zero keys.
        var factory = DESFireCard(seed: 14)
        factory.powerOn()
        #expect(factory.send(0xCA, h("20 00 00 0F 82")).status == 0x00)
        #expect(factory.send(0x5A, h("20 00 00")).status == 0x00)
        let (zero, _) = try HostSession.authenticate(
            &factory, command: 0xAA, keyNumber: 1, key: .aes([UInt8](repeating: 0, count: 16)),
            rndA: [UInt8](repeating: 7, count: 16))
        #expect(zero != nil)
    }

    @Test("Option 02: the ATS with its CRC and 80 (EV1 and legacy messaging) becomes the card's ATS and ATR")
    func userATS() throws {
        let ats = h("06 75 77 81 02 81")
        for legacy in [false, true] {
            var card = DESFireCard(seed: 15)
            card.powerOn()
            let host = try Self.authenticatePICC(&card, legacy: legacy)
            let crc = legacy ? CRC16A.bytes(ats) : DESFireCRC32.bytes([0x5C, 0x02] + ats)
            let answer = card.send(0x5C, [0x02] + (try host.encipherRaw(ats + crc + [0x80])))
            #expect(answer.status == 0x00, "legacy: \(legacy)")
            #expect(card.technology == .isoDepTypeA(ats: ats))
            #expect(ContactlessATR.atr(for: card.technology) != ContactlessATR.atr(for: .desfireTypeA))
        }
        // A wrong CRC is an integrity error and changes nothing.
        var card = DESFireCard(seed: 16)
        card.powerOn()
        let host = try Self.authenticatePICC(&card)
        let answer = card.send(0x5C, [0x02] + (try host.encipherRaw(ats + [0, 0, 0, 0, 0x80])))
        #expect(answer.status == 0x1E)
        #expect(card.technology == .desfireTypeA)
    }

    @Test("Refusals: no session AE, application level 9D, unknown option 9E, key 1 AE")
    func refusals() throws {
        var card = DESFireCard(seed: 17)
        card.powerOn()
        #expect(card.send(0x5C, h("00 01 02 03 04 05 06 07 08")).status == 0xAE)
        #expect(card.send(0xCA, h("01 00 00 0F 01")).status == 0x00)
        #expect(card.send(0x5A, h("01 00 00")).status == 0x00)
        _ = try HostSession.authenticate(&card, command: 0x1A, keyNumber: 0, key: Self.zeroDES, rndA: Self.rndA)
        #expect(card.send(0x5C, h("00 01 02 03 04 05 06 07 08")).status == 0x9D)
        #expect(card.send(0x5A, h("00 00 00")).status == 0x00)
        let host = try Self.authenticatePICC(&card)
        #expect(try Self.configure(&card, host, option: 0x03, [0x00]) == 0x9E)
    }

    @Test("The settings survive the state file; a state file from before SetConfiguration still loads")
    func persistence() throws {
        var card = DESFireCard(seed: 18)
        card.powerOn()
        let host = try Self.authenticatePICC(&card)
        #expect(try Self.configure(&card, host, option: 0x00, [0x03]) == 0x00)
        let encoded = try JSONEncoder().encode(card)
        var restored = try JSONDecoder().decode(DESFireCard.self, from: encoded)
        restored.powerOn()
        #expect(restored.randomUID && restored.uid.count == 4)
        let again = try Self.authenticatePICC(&restored)
        try again.commandCMAC([0xFC])
        #expect(restored.send(0xFC).status == 0x9D)
        // Without the new keys: a factory configuration.
        var object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        for key in ["formatDisabled", "defaultKeyData", "defaultKeyVersion", "userATS"] { object[key] = nil }
        let old = try JSONDecoder().decode(DESFireCard.self, from: try JSONSerialization.data(withJSONObject: object))
        #expect(!old.formatDisabled && old.userATS == nil && old.defaultKeyData == [UInt8](repeating: 0, count: 24))
    }
}
