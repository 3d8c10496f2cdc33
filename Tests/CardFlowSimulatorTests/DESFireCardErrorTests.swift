import CardFlowCrypto
import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

@Suite("DESFire card: error statuses and integrity checks")
struct DESFireCardErrorTests {
    static let zeroAES = HostKey.aes([UInt8](repeating: 0, count: 16))

    /// Application 000001 (AES, 2 keys) with file 01 MACed and file 02 enciphered (key 0 for everything),
    /// and an open AES session with key 0.
    static func sessionCard() throws -> (DESFireCard, HostSession) {
        var card = DESFireCardAuthenticationTests.cardWithApplication(ks2: 0x82)
        #expect(card.send(0xCD, h("01 01 00 00 20 00 00")).status == 0x00)
        #expect(card.send(0xCD, h("02 03 00 00 20 00 00")).status == 0x00)
        let (session, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 0, key: zeroAES,
            rndA: [UInt8](repeating: 0x31, count: 16))
        return (card, try #require(session))
    }

    @Test("EV1 MACed write with a wrong CMAC → 1E, and the session ends")
    func wrongCMAC() throws {
        var (card, host) = try Self.sessionCard()
        let header = h("01 00 00 00 04 00 00")
        var data = try host.macData(header: [0x3D] + header, data: h("01 02 03 04"))
        data[data.count - 1] ^= 0x01
        #expect(card.send(0x3D, header + data) == DESFireAnswer(data: [], status: 0x1E))
        #expect(card.send(0xBD, h("01 00 00 00 04 00 00")).status == 0xAE)
    }

    @Test("EV1 enciphered write: wrong CRC → 1E; non-zero padding → 1E; wrong length → 7E")
    func enciphered() throws {
        var (card, host) = try Self.sessionCard()
        let header = h("02 00 00 00 04 00 00")
        // CRC computed without the command byte.
        let badCRC = try host.encipher(header: header, data: h("01 02 03 04"))
        #expect(card.send(0x3D, header + badCRC).status == 0x1E)

        (card, host) = try Self.sessionCard()
        let plain =
            h("01 02 03 04") + DESFireCRC32.bytes([0x3D] + header + h("01 02 03 04")) + h("80 00 00 00 00 00 00 00")
        #expect(card.send(0x3D, header + (try host.encipherRaw(plain))).status == 0x1E)

        (card, host) = try Self.sessionCard()
        let good = try host.encipher(header: [0x3D] + header, data: h("01 02 03 04"))
        #expect(card.send(0x3D, header + good + good).status == 0x7E)

        (card, host) = try Self.sessionCard()
        let fine = try host.encipher(header: [0x3D] + header, data: h("01 02 03 04"))
        #expect(try host.responseData(card.send(0x3D, header + fine)) == [])
        try host.commandCMAC([0xBD] + header)
        #expect(try host.decipherResponse(card.send(0xBD, header), length: 4) == h("01 02 03 04"))
    }

    @Test("Commands at the wrong level, wrong lengths and unknown files")
    func wrongLevelAndLengths() {
        var card = DESFireCard(seed: 1)
        card.powerOn()
        #expect(card.send(0x6F).status == 0x9D)
        #expect(card.send(0xCD, h("01 00 EE EE 08 00 00")).status == 0x9D)
        #expect(card.send(0xBD, h("01 00 00 00 00 00 00")).status == 0x9D)
        #expect(card.send(0x60, [0x00]).status == 0x7E)
        #expect(card.send(0x6E, [0x00]).status == 0x7E)
        #expect(card.send(0x64, []).status == 0x7E)
        #expect(card.send(0x51, [0x00]).status == 0x7E)
        #expect(card.send(0xDA, [0x01, 0x00]).status == 0x7E)
        #expect(card.send(0xDA, [0x01, 0x00, 0x00]).status == 0xA0)
        #expect(card.send(0x54, [0x0F]).status == 0xAE)
        #expect(card.send(0xC4, []).status == 0x7E)
        // SetConfiguration needs the PICC master key's session.
        #expect(card.send(0x5C, [0x00, 0x01]).status == 0xAE)
        card = DESFireCardAuthenticationTests.cardWithApplication(ks2: 0x82)
        #expect(card.send(0xCA, [2, 0, 0, 0x0F, 0x01]).status == 0x9D)
        #expect(card.send(0xFC).status == 0x9D)
        #expect(card.send(0x6A).status == 0x9D)
        #expect(card.send(0xF5, [0x07]).status == 0xF0)
        #expect(card.send(0xDF, [0x07]).status == 0xF0)
        #expect(card.send(0x5F, h("07 00 EE EE")).status == 0xF0)
        #expect(card.send(0x6C, [0x07]).status == 0xF0)
        #expect(card.send(0x3D, h("07 00 00 00 01 00 00 01")).status == 0xF0)
        #expect(card.send(0x3D, []).status == 0x7E)
        #expect(card.send(0x3B, h("07 00 00 00 01 00 00 01")).status == 0xF0)
        #expect(card.send(0xEB, [0x07]).status == 0xF0)
        #expect(card.send(0xC7, [0x00]).status == 0x7E)
        #expect(card.send(0xA7, [0x00]).status == 0x7E)
        // A file bigger than the card → 0E, without allocating it.
        #expect(card.send(0xCD, h("01 00 EE EE FF FF FF")).status == 0x0E)
        #expect(card.send(0xC1, h("01 00 EE EE FF FF FF FF FF FF")).status == 0x0E)
        // Zero-size record files → 9E.
        #expect(card.send(0xC1, h("01 00 EE EE 00 00 00 01 00 00")).status == 0x9E)
        #expect(card.send(0xC1, h("01 00 EE EE 01 00 00 00 00 00")).status == 0x9E)
    }

    @Test("Application key settings: listing and file creation need the AMK when bits 1/2 are clear")
    func applicationKeySettings() throws {
        var card = DESFireCardAuthenticationTests.cardWithApplication(ks2: 0x82, keySettings: 0x09)
        #expect(card.send(0x6F).status == 0xAE)
        #expect(card.send(0x61).status == 0xAE)
        #expect(card.send(0x45).status == 0xAE)
        #expect(card.send(0xCD, h("01 00 EE EE 08 00 00")).status == 0xAE)
        var (session, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 1, key: Self.zeroAES, rndA: [UInt8](repeating: 2, count: 16))
        #expect(session != nil)
        #expect(card.send(0xCD, h("01 00 EE EE 08 00 00")).status == 0xAE)
        (session, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 0, key: Self.zeroAES, rndA: [UInt8](repeating: 2, count: 16))
        let host = try #require(session)
        try host.commandCMAC(h("CD 01 00 EE EE 08 00 00"))
        #expect(try host.responseData(card.send(0xCD, h("01 00 EE EE 08 00 00"))) == [])
        try host.commandCMAC([0x6F])
        #expect(try host.responseData(card.send(0x6F)) == [0x01])
        try host.commandCMAC([0x45])
        #expect(try host.responseData(card.send(0x45)) == h("09 82"))
    }

    @Test("DeleteApplication by its own master key when PICC KS bit 2 is set; the PICC level is selected afterwards")
    func deleteByOwnMasterKey() throws {
        var card = DESFireCardAuthenticationTests.cardWithApplication(ks2: 0x82)
        let (session, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 0, key: Self.zeroAES, rndA: [UInt8](repeating: 2, count: 16))
        let host = try #require(session)
        try host.commandCMAC([0xDA, 0x01, 0x00, 0x00])
        // The session ends with the application: a bare 00.
        #expect(card.send(0xDA, [0x01, 0x00, 0x00]) == DESFireAnswer(data: [], status: 0x00))
        #expect(card.send(0x6A) == DESFireAnswer(data: [], status: 0x00))
        #expect(card.send(0x5A, [0x01, 0x00, 0x00]).status == 0xA0)
    }

    @Test("Legacy session: MACed and enciphered value and record commands")
    func legacyValueAndRecords() throws {
        var card = DESFireCardAuthenticationTests.cardWithApplication(ks2: 0x02)
        #expect(card.send(0xCC, h("01 01 00 00 00 00 00 00 10 27 00 00 64 00 00 00 00")).status == 0x00)
        #expect(card.send(0xC1, h("02 03 00 00 04 00 00 02 00 00")).status == 0x00)
        let key = HostKey.des(h("00 11 22 33 44 55 66 77 00 11 22 33 44 55 66 77"))
        let (setup, _) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: .des([UInt8](repeating: 0, count: 16)),
            rndA: h("01 02 03 04 05 06 07 08"))
        #expect(
            card.send(0xC4, try #require(try setup?.changeKeyData(keyNumberByte: 0, newKey: key.bytes))).status == 0x00)
        let (session, _) = try HostSession.authenticate(
            &card, command: 0x0A, keyNumber: 0, key: key, rndA: h("11 12 13 14 15 16 17 18"))
        let host = try #require(session)
        #expect(
            card.send(0x6C, [0x01])
                == DESFireAnswer(data: h("64 00 00 00") + (try host.legacyMAC(h("64 00 00 00"))), status: 0x00))
        #expect(
            card.send(0xDC, [0x01] + (try host.macData(header: [], data: h("0A 00 00 00"))))
                == DESFireAnswer(data: [], status: 0x00))
        #expect(card.send(0xC7) == DESFireAnswer(data: [], status: 0x00))
        #expect(card.send(0x6C, [0x01]).data.prefix(4) == h("5A 00 00 00")[...])
        #expect(
            card.send(0x3B, h("02 00 00 00 04 00 00") + (try host.encipher(header: [], data: h("DE AD BE EF")))).status
                == 0x00)
        #expect(card.send(0xC7).status == 0x00)
        #expect(try host.decipherResponse(card.send(0xBB, h("02 00 00 00 00 00 00")), length: 4) == h("DE AD BE EF"))
    }

    @Test("ChangeKeySettings / ChangeFileSettings: wrong key → AE, corrupted cryptogram → 1E, wrong length → 7E")
    func encipheredSettingsErrors() throws {
        var (card, host) = try Self.sessionCard()
        var cryptogram = try host.encipher(header: [0x54], data: [0x0F])
        cryptogram[0] ^= 0x80
        #expect(card.send(0x54, cryptogram).status == 0x1E)

        (card, host) = try Self.sessionCard()
        #expect(card.send(0x54, Array(try host.encipher(header: [0x54], data: [0x0F]).prefix(8))).status == 0x7E)

        (card, _) = try Self.sessionCard()
        let (key1, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 1, key: Self.zeroAES, rndA: [UInt8](repeating: 4, count: 16))
        let other = try #require(key1)
        // Key 1 is neither the master key nor the files' change key (key 0).
        #expect(card.send(0x54, try other.encipher(header: [0x54], data: [0x0F])).status == 0xAE)
        let (again, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 1, key: Self.zeroAES, rndA: [UInt8](repeating: 4, count: 16))
        let second = try #require(again)
        #expect(
            card.send(0x5F, [0x01] + (try second.encipher(header: [0x5F, 0x01], data: h("00 EE EE")))).status == 0xAE)

        (card, host) = try Self.sessionCard()
        var settings = try host.encipher(header: [0x5F, 0x01], data: h("00 EE EE"))
        settings[settings.count - 1] ^= 0x01
        #expect(card.send(0x5F, [0x01] + settings).status == 0x1E)
        (card, host) = try Self.sessionCard()
        #expect(card.send(0x5F, h("01 00 EE EE")).status == 0x7E)
    }
}
