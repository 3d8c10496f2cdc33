import CardFlowCrypto
import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

@Suite("DESFire card: secure messaging vectors (spec §6.5–§6.7)")
struct DESFireCardSecureMessagingTests {
    static let zeroAES = HostKey.aes([UInt8](repeating: 0, count: 16))
    static let zeroDES = HostKey.des([UInt8](repeating: 0, count: 16))

    /// Elmü's EV1 8K: UID 04 06 3F 72 63 34 80, batch BA 45 19 E3 20, week 19 year 13.
    static func elmuCard() -> DESFireCard {
        var card = DESFireCard(seed: 9)
        card.realUID = h("04 06 3F 72 63 34 80")
        card.productionBatch = h("BA 45 19 E3 20")
        card.powerOn()
        return card
    }

    /// Expects the card's answer to carry `cmac` as its response CMAC and returns the data.
    static func expectCMAC(
        _ answer: DESFireAnswer, _ cmac: String, host: inout HostSession,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [UInt8] {
        #expect(answer.status == 0x00, sourceLocation: sourceLocation)
        #expect(Array(answer.data.suffix(8)) == h(cmac), sourceLocation: sourceLocation)
        return try #require(try host.responseData(answer), sourceLocation: sourceLocation)
    }

    @Test(
        "Elmü's DES session CMAC chain: GetVersion, FormatPICC, CreateApplication ×4, GetApplicationIDs, DeleteApplication"
    )
    func desCMACChain() throws {
        var card = Self.elmuCard()
        var (session, _) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: Self.zeroDES,
            rndA: h("84 9B 36 C5 F8 BF 4A 09"), rndB: h("4F D1 B7 59 42 A8 B8 E1"))
        var host = try #require(session)
        session = nil
        #expect(try host.commandCMAC([0x60]).prefix(8) == h("50 20 EC 82 60 86 DF 12")[...])
        let first = card.send(0x60)
        #expect(first == DESFireAnswer(data: h("04 01 01 01 00 1A 05"), status: 0xAF))
        let second = card.send(0xAF)
        #expect(second == DESFireAnswer(data: h("04 01 01 01 04 1A 05"), status: 0xAF))
        let third = card.send(0xAF)
        #expect(Array(third.data.prefix(14)) == h("04 06 3F 72 63 34 80 BA 45 19 E3 20 49 13"))
        let version = DESFireAnswer(data: first.data + second.data + third.data, status: third.status)
        _ = try Self.expectCMAC(version, "CD C8 10 BA FA 40 17 59", host: &host)

        let steps: [(UInt8, String, String, String)] = [
            (0xFC, "", "0D 89 CA 4B FB E6 90 72", "9C 2C 81 3A 06 5C 45 F7"),
            (0xCA, "16 DE 00 0F 02", "EE E9 BE 10 51 A4 06 F3", "0A 13 79 B0 1D 85 AD 47"),
            (0xCA, "24 DE 00 0F 42", "EE 60 B2 1A CA 1A 5B 1A", "5D 73 AE 52 87 A1 BB E4"),
            (0xCA, "16 AE 00 0F 82", "75 F0 4D 6F F8 74 2D CA", "3B 68 D7 2A 3B E0 D2 0C"),
            (0xCA, "CC BB AA 0F 01", "CD DE 90 47 66 39 58 1F", "F1 1A C0 73 8E F8 38 78"),
        ]
        for (ins, data, tx, rx) in steps {
            #expect(try host.commandCMAC([ins] + h(data)).prefix(8) == h(tx)[...])
            _ = try Self.expectCMAC(card.send(ins, h(data)), rx, host: &host)
        }
        #expect(try host.commandCMAC([0x6A]).prefix(8) == h("D0 56 6D 1B DB 78 8A C3")[...])
        #expect(
            try Self.expectCMAC(card.exchange(0x6A), "27 39 15 4E 26 30 D6 50", host: &host)
                == h("16 DE 00 24 DE 00 16 AE 00 CC BB AA"))
        #expect(try host.commandCMAC(h("DA CC BB AA")).prefix(8) == h("07 C6 E3 9E 38 77 96 79")[...])
        _ = try Self.expectCMAC(card.send(0xDA, h("CC BB AA")), "A9 AF 19 05 22 92 F6 62", host: &host)
        #expect(try host.commandCMAC([0x6A]).prefix(8) == h("D9 46 56 FD BE 75 AD 08")[...])
        #expect(
            try Self.expectCMAC(card.exchange(0x6A), "52 0E 51 E0 0A F0 6D 5E", host: &host)
                == h("16 DE 00 24 DE 00 16 AE 00"))
    }

    /// Authenticates with AES so that the session key is `session` (RndA/RndB chosen to match).
    static func aesSession(
        _ card: inout DESFireCard, session key: String, keyNumber: UInt8 = 0,
        key hostKey: HostKey = zeroAES
    ) throws -> HostSession {
        let k = h(key)
        let rndA = k[0..<4] + h("96 A5 58 9F AA E9 0C 03") + k[8..<12]
        let rndB = k[4..<8] + h("5A 2A A5 81 78 F5 C5 1B") + k[12..<16]
        let (session, trace) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: keyNumber, key: hostKey,
            rndA: Array(rndA), rndB: Array(rndB))
        #expect(trace.sessionKey == k)
        return try #require(session)
    }

    @Test("AES GetKeyVersion CMAC, then same-key ChangeKey from a chained IV (§6.5, §6.6)")
    func aesKeyVersionAndChangeKey() throws {
        var card = DESFireCardAuthenticationTests.cardWithApplication(ks2: 0x82)
        let elmuKey = h("00 10 20 30 40 50 60 70 80 90 A0 B0 B0 A0 90 80")
        let setup = try Self.aesSession(&card, session: "F4 4B 26 F5 C0 5D DD 71 10 77 22 81 C4 D0 66 E8")
        #expect(
            card.send(0xC4, try setup.changeKeyData(keyNumberByte: 0, newKey: elmuKey, aesVersion: 0x10)).status == 0x00
        )

        let host = try Self.aesSession(
            &card, session: "90 F7 A2 01 91 03 68 45 EC 63 DE CD 54 4B 99 31", key: .aes(elmuKey))
        #expect(try host.commandCMAC([0x64, 0x00]) == h("25 7F C5 38 61 8A 94 4A 3A 20 96 7B 6F 31 43 48"))
        #expect(card.send(0x64, [0x00]) == DESFireAnswer(data: h("10 8A 8F A3 6F 55 CD 21 0D"), status: 0x00))
        _ = try host.responseData(DESFireAnswer(data: h("10 8A 8F A3 6F 55 CD 21 0D"), status: 0x00))
        #expect(host.iv == h("8A 8F A3 6F 55 CD 21 0D D8 05 46 58 AC 70 D9 9A"))
        let data = try host.changeKeyData(keyNumberByte: 0, newKey: [UInt8](repeating: 0, count: 16), aesVersion: 0x00)
        #expect(
            Array(data.dropFirst())
                == h("63 53 75 E4 91 9F 8A F2 E9 E8 6B 1C 1B A5 5B 0C 08 07 EA F4 84 D7 A7 EF 6E 0C 30 84 16 0F 5A 61"))
        #expect(card.send(0xC4, data) == DESFireAnswer(data: [], status: 0x00))
        #expect(card.send(0x64, [0x00]).data == [0x00])
    }

    @Test("AES other-key ChangeKey cryptogram and card CMAC (§6.6)")
    func aesOtherKey() throws {
        var card = DESFireCardAuthenticationTests.cardWithApplication(ks2: 0x82)
        var host = try Self.aesSession(&card, session: "C2 A1 E4 7B D8 10 00 44 FE 6D 00 A7 4D 7A B1 7C")
        let newKey = h("00 10 20 30 40 50 60 70 80 90 A0 B0 B0 A0 90 80")
        let data = try host.changeKeyData(
            keyNumberByte: 1, newKey: newKey, oldKey: [UInt8](repeating: 0, count: 16), aesVersion: 0x10)
        #expect(
            Array(data.dropFirst())
                == h("E7 EC CB 6B D1 CA 64 BC 16 1A 12 B1 C0 24 F7 14 30 33 74 08 C8 A8 7E AC AB 7A 1F F1 89 51 FC A3"))
        let answer = card.send(0xC4, data)
        _ = try Self.expectCMAC(answer, "21 28 D3 CD 9C 9A CF FF", host: &host)
        #expect(host.iv.suffix(8) == h("F6 EB 95 46 AD F3 5E 17")[...])
        // The session continues: key 1 now has version 0x10 and authenticates with the new key.
        #expect(try host.commandCMAC([0x64, 0x01]).count == 16)
        #expect(try host.responseData(card.send(0x64, [0x01])) == [0x10])
        let (key1, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 1, key: .aes(newKey), rndA: [UInt8](repeating: 7, count: 16))
        #expect(key1 != nil)
    }

    @Test("EV1 DES ChangeKeySettings (§6.6) with the IV from GetKeySettings' CMAC")
    func desChangeKeySettings() throws {
        var card = DESFireCardAuthenticationTests.cardWithApplication(ks2: 0x02)
        // Session 48 EC 62 DE 3A 3C FE 62: RndA[0..3] ‖ RndB[0..3].
        var (session, _) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: Self.zeroDES,
            rndA: h("48 EC 62 DE 01 01 01 01"), rndB: h("3A 3C FE 62 02 02 02 02"))
        var host = try #require(session)
        session = nil
        try host.commandCMAC([0x45])
        #expect(try host.responseData(card.send(0x45)) == h("0F 02"))
        #expect(host.iv == h("25 DD 8D 77 31 B1 CF D5"))
        let cryptogram = try host.encipher(header: [0x54], data: [0x0D])
        #expect([0x54] + cryptogram == h("54 27 88 28 05 FC 3F D4 9D"))
        _ = try Self.expectCMAC(card.send(0x54, cryptogram), "A6 28 37 83 74 27 0A CD", host: &host)
        try host.commandCMAC([0x45])
        #expect(try host.responseData(card.send(0x45)) == h("0D 02"))
    }

    @Test("EV1 DES other-key ChangeKey to a 2K3DES key (§6.6)")
    func desOtherKey() throws {
        var card = DESFireCardAuthenticationTests.cardWithApplication(ks2: 0x02)
        var (session, _) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: Self.zeroDES,
            rndA: h("CA A6 74 E8 01 01 01 01"), rndB: h("CA E8 52 5E 02 02 02 02"))
        var host = try #require(session)
        session = nil
        let newKey = h("00 10 20 31 40 50 60 70 80 90 A0 B0 B0 A0 90 80")
        let data = try host.changeKeyData(keyNumberByte: 1, newKey: newKey, oldKey: [UInt8](repeating: 0, count: 16))
        #expect(Array(data.dropFirst()) == h("4E B6 69 E4 8D CA 58 47 49 54 2E 1B E8 9C B4 C7 84 5A 38 C5 7D 19 DE 59"))
        _ = try Self.expectCMAC(card.send(0xC4, data), "2E AD 04 DC F1 21 E0 FE", host: &host)
    }

    @Test("PICC DES → AES with the key-number flag (RevK), then AES authentication at PICC level")
    func piccDESToAES() throws {
        var card = DESFireCard(seed: 5)
        card.powerOn()
        let (session, _) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: Self.zeroDES,
            rndA: h("9F 02 17 83 26 DD E5 A2"), rndB: h("8A 9D 09 A4 3D 2D D3 92"))
        let data = try #require(
            try session?.changeKeyData(keyNumberByte: 0x80, newKey: [UInt8](repeating: 0, count: 16), aesVersion: 0x01))
        #expect([0xC4] + data == h("C4 80 61 59 2D C4 0A D3 58 95 16 52 D8 38 31 A2 73 CC E3 EA 31 34 17 83 C4 1E"))
        #expect(card.send(0xC4, data) == DESFireAnswer(data: [], status: 0x00))
        #expect(card.send(0x45) == DESFireAnswer(data: h("0F 81"), status: 0x00))
        #expect(card.send(0x64, [0x00]).data == [0x01])
        #expect(card.send(0x1A, [0x00]).status == 0xAE)
        let (aes, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 0, key: Self.zeroAES, rndA: [UInt8](repeating: 3, count: 16))
        #expect(aes != nil)
    }

    @Test("PICC DES → AES after legacy 0x0A (§6.6 derived)")
    func piccDESToAESLegacy() throws {
        var card = DESFireCard(seed: 6)
        card.powerOn()
        let (session, _) = try HostSession.authenticate(
            &card, command: 0x0A, keyNumber: 0, key: Self.zeroDES,
            rndA: h("A0 A1 A2 A3 A4 A5 A6 A7"), rndB: h("CC F5 32 70 57 0A 76 69"))
        let data = try #require(
            try session?.changeKeyData(keyNumberByte: 0x80, newKey: [UInt8](repeating: 0, count: 16), aesVersion: 0x00))
        #expect([0xC4] + data == h("C4 80 B6 B1 43 70 1E 58 F4 B3 63 04 4E CF 9C 0D BB 18 92 BE AA 14 3F 3C B0 72"))
        #expect(card.send(0xC4, data) == DESFireAnswer(data: [], status: 0x00))
        #expect(card.send(0x45).data == h("0F 81"))
    }

    @Test(
        "Legacy 2K3DES session vectors: auth, ChangeKeySettings, ChangeKey, MACed write, enciphered read (§6.4, §6.6)")
    func legacyTwoKeyVectors() throws {
        var card = DESFireCardAuthenticationTests.cardWithApplication(ks2: 0x02)
        let key = h("00 11 22 33 44 55 66 77 88 99 AA BB CC DD EE FF")
        // Install the 2K3DES key as key 0 and create files 01 (MACed) and 02 (enciphered) with key 0 rights.
        let (setupSession, _) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: Self.zeroDES, rndA: h("01 02 03 04 05 06 07 08"))
        #expect(
            card.send(0xC4, try #require(try setupSession?.changeKeyData(keyNumberByte: 0, newKey: key))).status == 0x00
        )
        #expect(card.send(0xCD, h("01 01 00 00 20 00 00")).status == 0x00)
        #expect(card.send(0xCD, h("02 03 00 00 20 00 00")).status == 0x00)

        let (session, trace) = try HostSession.authenticate(
            &card, command: 0x0A, keyNumber: 0, key: .des(key),
            rndA: h("84 9B 36 C5 F8 BF 4A 09"), rndB: h("4F D1 B7 59 42 A8 B8 E1"))
        #expect(trace.cardChallenge == h("40 92 AA E4 68 88 87 87"))
        #expect(trace.token == h("8B A4 C6 9F E6 91 D4 E6 AA 63 3E 4E E6 3A CE FC"))
        #expect(trace.cardAnswer == h("B6 86 C1 D9 12 24 0E C2"))
        #expect(trace.sessionKey == h("84 9B 36 C5 4F D1 B7 59 F8 BF 4A 09 42 A8 B8 E1"))
        let host = try #require(session)

        let settings = try host.encipher(header: [0x54], data: [0x0F])
        #expect([0x54] + settings == h("54 26 80 EF F5 8D D0 D6 19"))
        #expect(card.send(0x54, settings) == DESFireAnswer(data: [], status: 0x00))

        let newKey = h("10 11 12 13 14 15 16 17 18 19 1A 1B 1C 1D 1E 1F")
        let change = try host.changeKeyData(keyNumberByte: 1, newKey: newKey, oldKey: [UInt8](repeating: 0, count: 16))
        #expect([0xC4] + change == h("C4 01 62 D7 3C E8 24 00 36 F2 91 F8 99 E2 C3 3B C4 DF F9 54 52 28 F0 12 04 25"))
        #expect(card.send(0xC4, change) == DESFireAnswer(data: [], status: 0x00))
        #expect(
            host.changeKeyPlain(keyNumberByte: 0, newKey: newKey, oldKey: nil, aesVersion: nil).suffix(2)
                == h("22 E8")[...])

        let macWrite = try host.macData(header: h("3D 01 00 00 00 04 00 00"), data: h("11 22 33 44"))
        #expect(
            desfireAPDU(0x3D, h("01 00 00 00 04 00 00") + macWrite)
                == h("90 3D 00 00 0F 01 00 00 00 04 00 00 11 22 33 44 CD 6E B7 D3 00"))
        #expect(card.send(0x3D, h("01 00 00 00 04 00 00") + macWrite) == DESFireAnswer(data: [], status: 0x00))
        // MACed read: data ‖ MAC(data).
        let macRead = card.send(0xBD, h("01 00 00 00 04 00 00"))
        #expect(macRead == DESFireAnswer(data: h("11 22 33 44 CD 6E B7 D3"), status: 0x00))

        let encWrite = try host.encipher(header: [], data: h("01 02 03 04 05 06 07 08"))
        #expect(card.send(0x3D, h("02 00 00 00 08 00 00") + encWrite).status == 0x00)
        let encRead = card.send(0xBD, h("02 00 00 00 08 00 00"))
        #expect(encRead == DESFireAnswer(data: h("30 7F B4 DF 13 90 0D 5A B0 54 4B 98 EE 79 95 9D"), status: 0x00))
        #expect(try host.decipherResponse(encRead, length: 8) == h("01 02 03 04 05 06 07 08"))
        // A corrupted MAC → 1E, and the session is over.
        #expect(card.send(0x3D, h("01 00 00 00 04 00 00 11 22 33 44 CD 6E B7 D4")).status == 0x1E)
        #expect(card.send(0xBD, h("01 00 00 00 04 00 00")).status == 0xAE)
    }

    @Test("EV1 AES file I/O: enciphered and MACed WriteData/ReadData, GetCardUID, enciphered Credit (§6.7)")
    func aesFileIO() throws {
        var card = Self.elmuCard()
        #expect(card.send(0xCA, h("01 00 00 0F 82")).status == 0x00)
        #expect(card.send(0x5A, h("01 00 00")).status == 0x00)
        #expect(card.send(0xCD, h("07 03 00 00 20 00 00")).status == 0x00)
        #expect(card.send(0xCD, h("08 01 00 00 20 00 00")).status == 0x00)
        #expect(card.send(0xCC, h("09 03 00 00 00 00 00 00 E8 03 00 00 00 00 00 00 00")).status == 0x00)
        var host = try Self.aesSession(&card, session: "40 E7 D2 71 62 6F FB D4 9C 53 0E 3D 30 4F 5B 17")

        // (1) Enciphered WriteData.
        let header1 = h("07 00 00 00 0A 00 00")
        let enc = try host.encipher(header: [0x3D] + header1, data: h("00 01 02 03 04 05 06 07 08 09"))
        #expect(
            desfireAPDU(0x3D, header1 + enc)
                == h("90 3D 00 00 17 07 00 00 00 0A 00 00 3C 1F 0B 87 BE F6 7E DE 72 E1 90 80 97 8E 6C FD 00"))
        _ = try Self.expectCMAC(card.send(0x3D, header1 + enc), "1D 90 66 F1 35 55 43 41", host: &host)
        // (2) Enciphered ReadData.
        #expect(try host.commandCMAC([0xBD] + header1) == h("0D 72 99 B4 8B 37 AE DC 71 7C C2 06 DC 34 A2 48"))
        let read = card.send(0xBD, header1)
        #expect(read == DESFireAnswer(data: h("00 0E D9 AC 84 B3 70 8A 1D 35 50 30 66 AD 13 45"), status: 0x00))
        #expect(try host.decipherResponse(read, length: 10) == h("00 01 02 03 04 05 06 07 08 09"))
        // (3) MACed WriteData.
        let header3 = h("08 00 00 00 04 00 00")
        let mac = try host.macData(header: [0x3D] + header3, data: h("11 22 33 44"))
        #expect(
            desfireAPDU(0x3D, header3 + mac)
                == h("90 3D 00 00 13 08 00 00 00 04 00 00 11 22 33 44 26 33 AC 15 60 DB 8C 50 00"))
        _ = try Self.expectCMAC(card.send(0x3D, header3 + mac), "DF A8 F6 EF 32 F4 9D 82", host: &host)
        // (4) MACed ReadData.
        #expect(try host.commandCMAC([0xBD] + header3) == h("F8 75 2B 8F D0 C3 B9 2D C1 B5 0F FA C0 B8 93 55"))
        #expect(
            try Self.expectCMAC(card.send(0xBD, header3), "71 F5 18 20 83 BC 00 2D", host: &host) == h("11 22 33 44"))
        // (5) GetCardUID.
        #expect(try host.commandCMAC([0x51]) == h("95 DA 4B 58 56 F2 85 71 5C 7D C0 9C 81 87 24 88"))
        let uid = card.send(0x51)
        #expect(uid == DESFireAnswer(data: h("7C EE A8 7A 30 57 B0 67 92 8A B6 1C 3E D1 CE 00"), status: 0x00))
        #expect(try host.decipherResponse(uid, length: 7) == h("04 06 3F 72 63 34 80"))
        // (6) Enciphered Credit.
        let credit = try host.encipher(header: [0x0C, 0x09], data: h("64 00 00 00"))
        #expect(
            desfireAPDU(0x0C, [0x09] + credit)
                == h("90 0C 00 00 11 09 9E 61 C5 8C 75 15 4E A1 68 1C 2C 69 46 65 8F 2D 00"))
        _ = try Self.expectCMAC(card.send(0x0C, [0x09] + credit), "45 9B 7F EB 04 8E B0 AC", host: &host)
        // Commit, then GetValue (enciphered) reads 100.
        try host.commandCMAC([0xC7])
        _ = try #require(try host.responseData(card.send(0xC7)))
        try host.commandCMAC([0x6C, 0x09])
        #expect(try host.decipherResponse(card.send(0x6C, [0x09]), length: 4) == h("64 00 00 00"))
    }

    @Test("EV1 CMAC over chained responses: GetApplicationIDs and GetDFNames across frames")
    func chainedResponseCMAC() throws {
        var card = DESFireCard(seed: 12)
        card.powerOn()
        for aid in 1...20 {
            #expect(
                card.send(0xCA, [UInt8(aid), 0x00, 0x00, 0x0F, 0x21, UInt8(aid), 0x10, 0x44, 0x46, UInt8(aid)]).status
                    == 0x00)
        }
        let (session, _) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: Self.zeroDES, rndA: h("01 02 03 04 05 06 07 08"))
        let host = try #require(session)
        try host.commandCMAC([0x6A])
        let ids = card.exchange(0x6A)
        #expect(try host.responseData(ids) == (1...20).flatMap { [UInt8($0), 0, 0] })
        try host.commandCMAC([0x6D])
        let first = card.send(0x6D)
        #expect(first.status == 0xAF && first.data == h("01 00 00 01 10 44 46 01"))
        var all = first.data
        var frames = 1
        var next = first
        while next.status == 0xAF {
            next = card.send(0xAF)
            all += next.data
            frames += 1
        }
        #expect(frames == 20)
        let names = try host.responseData(DESFireAnswer(data: all, status: next.status))
        #expect(names == (1...20).flatMap { [UInt8($0), 0, 0, UInt8($0), 0x10, 0x44, 0x46, UInt8($0)] })
    }
}
