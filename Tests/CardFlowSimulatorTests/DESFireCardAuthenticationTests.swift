import CardFlowCrypto
import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

@Suite("DESFire card: authentication vectors (spec §6.3, §6.4)")
struct DESFireCardAuthenticationTests {
    /// A card with an application 000001 of `ks2` (key type bits | key count), selected.
    static func cardWithApplication(ks2: UInt8, keySettings: UInt8 = 0x0F) -> DESFireCard {
        var card = DESFireCard(seed: 1)
        card.powerOn()
        #expect(card.send(0xCA, [0x01, 0x00, 0x00, keySettings, ks2]).status == 0x00)
        #expect(card.send(0x5A, [0x01, 0x00, 0x00]).status == 0x00)
        return card
    }

    @Test("AES key 16×00 replays Elmü's RndA/RndB byte for byte")
    func aesZeroKey() throws {
        var card = Self.cardWithApplication(ks2: 0x82)
        let (session, trace) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 0, key: .aes([UInt8](repeating: 0, count: 16)),
            rndA: h("F4 4B 26 F5 68 6F 3A 39 1C D3 8E BD 10 77 22 81"),
            rndB: h("C0 5D DD 71 4F D7 88 A6 B7 B7 54 F3 C4 D0 66 E8"))
        #expect(session != nil)
        #expect(trace.cardChallenge == h("B9 69 FD FE 56 FD 91 FC 9D E6 F6 F2 13 B8 FD 1E"))
        #expect(
            trace.token
                == h("36 AA D7 DF 6E 43 6B A0 8D 18 61 38 30 A7 0D 5A D4 3E 3D 3F 4A 8D 47 54 1E EE 62 3A 93 4E 47 74"))
        #expect(trace.cardAnswer == h("80 0D B6 80 BC 14 6B D1 21 D6 57 8F 2D 2E 20 59"))
        #expect(trace.sessionKey == h("F4 4B 26 F5 C0 5D DD 71 10 77 22 81 C4 D0 66 E8"))
    }

    @Test("AES same-key ChangeKey (§6.6), then authentication with the new key (§6.3 second example)")
    func aesChangeKeyThenAuthenticate() throws {
        var card = Self.cardWithApplication(ks2: 0x82)
        let newKey = h("00 10 20 30 40 50 60 70 80 90 A0 B0 B0 A0 90 80")
        let (session, _) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 0, key: .aes([UInt8](repeating: 0, count: 16)),
            rndA: h("F4 4B 26 F5 68 6F 3A 39 1C D3 8E BD 10 77 22 81"),
            rndB: h("C0 5D DD 71 4F D7 88 A6 B7 B7 54 F3 C4 D0 66 E8"))
        let data = try #require(try session?.changeKeyData(keyNumberByte: 0x00, newKey: newKey, aesVersion: 0x10))
        #expect(
            [0xC4] + data
                == h(
                    "C4 00 E9 F8 5E 21 94 96 C2 B5 8C 10 90 DC 39 35 FA E9 E8 40 CF 61 B3 83 D9 53 19 46 25 6B 1F 11 0C 10"
                ))
        // Changing the authenticated key: a bare 00, and the session is over.
        #expect(card.send(0xC4, data) == DESFireAnswer(data: [], status: 0x00))
        #expect(card.send(0x64, [0x00]) == DESFireAnswer(data: [0x10], status: 0x00))
        let (second, trace) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 0, key: .aes(newKey),
            rndA: h("C2 A1 E4 7B 96 A5 58 9F AA E9 0C 03 FE 6D 00 A7"),
            rndB: h("27 10 47 12 5A 2A A5 81 78 F5 C5 1B 11 77 A1 9B"))
        #expect(second != nil)
        #expect(trace.cardChallenge == h("CC C8 31 6C 2B 26 13 FE 9A 18 9B AC 9C C8 9D 03"))
        #expect(
            trace.token
                == h("C0 2E 06 1E 72 E1 77 26 48 9C AE EC 99 7C 52 37 58 BF 86 3E FE 76 71 C5 5B 46 65 D0 6A CC D9 7B"))
        #expect(trace.cardAnswer == h("72 AC CC 0B DE A4 82 B5 31 85 BB 5A D0 08 62 46"))
        #expect(trace.sessionKey == h("C2 A1 E4 7B 27 10 47 12 FE 6D 00 A7 11 77 A1 9B"))
    }

    @Test("ISO 0x1A with the factory DES PICC key: proxmark3 #2961 trace and FormatPICC CMAC")
    func isoDESProxmarkTrace() throws {
        var card = DESFireCard(seed: 1)
        card.powerOn()
        let (session, trace) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: .des([UInt8](repeating: 0, count: 16)),
            rndA: h("01 02 03 04 05 06 07 08"), rndB: h("99 D2 F4 FF 53 EF 2D 54"))
        #expect(trace.cardChallenge == h("83 B8 79 40 92 32 72 59"))
        #expect(trace.token == h("CC 45 06 66 5C 22 9B 49 BB D7 B6 71 13 A9 42 F3"))
        #expect(trace.cardAnswer == h("03 FB 11 80 0B 82 04 95"))
        #expect(trace.sessionKey == h("01 02 03 04 99 D2 F4 FF"))
        let host = try #require(session)
        #expect(try host.commandCMAC([0xFC]).prefix(8) == h("0B B6 02 6E 56 23 12 6C")[...])
        #expect(card.send(0xFC) == DESFireAnswer(data: h("0A 28 19 F8 0B A0 56 A0"), status: 0x00))
    }

    @Test("ISO 0x1A DES, Elmü and RevK examples")
    func isoDESExamples() throws {
        var card = DESFireCard(seed: 2)
        card.powerOn()
        var (_, trace) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: .des([UInt8](repeating: 0, count: 16)),
            rndA: h("84 9B 36 C5 F8 BF 4A 09"), rndB: h("4F D1 B7 59 42 A8 B8 E1"))
        #expect(trace.cardChallenge == h("5D 99 4C E0 85 F2 40 89"))
        #expect(trace.token == h("21 D0 AD 5F 2F D9 74 54 A7 46 CC 80 56 7F 1B 1C"))
        #expect(trace.cardAnswer == h("91 3C 6D ED 84 22 1C 41"))
        (_, trace) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: .des([UInt8](repeating: 0, count: 16)),
            rndA: h("9F 02 17 83 26 DD E5 A2"), rndB: h("8A 9D 09 A4 3D 2D D3 92"))
        #expect(trace.cardChallenge == h("C3 27 E0 B3 AE 78 4F 04"))
        #expect(trace.token == h("DC C7 FB 9A 26 1C 7D FC 01 20 14 A9 2B BB CD CB"))
        #expect(trace.cardAnswer == h("75 FD A7 DC 10 07 12 A4"))
        #expect(trace.sessionKey == h("9F 02 17 83 8A 9D 09 A4"))
    }

    @Test("ISO 0x1A 2K3DES after ChangeKey to Elmü's key (§6.6 2K3DES same key, §6.4)")
    func twoKeyTripleDES() throws {
        var card = Self.cardWithApplication(ks2: 0x02)
        let newKey = h("00 10 20 31 40 50 60 70 80 90 A0 B0 B0 A0 90 80")
        let (session, _) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: .des([UInt8](repeating: 0, count: 16)),
            rndA: h("C8 6C E2 5E 01 02 03 04"), rndB: h("4C 64 7E 56 05 06 07 08"))
        let data = try #require(try session?.changeKeyData(keyNumberByte: 0x00, newKey: newKey))
        #expect(Array(data.dropFirst()) == h("BE DE 0F C6 ED 34 7D CF 0D 51 C7 17 DF 75 D9 7D 2C 5A 2B A6 CA C7 47 9D"))
        #expect(card.send(0xC4, data) == DESFireAnswer(data: [], status: 0x00))
        #expect(card.send(0x64, [0x00]) == DESFireAnswer(data: [0x10], status: 0x00))
        let (second, trace) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: .des(newKey),
            rndA: h("53 0E 3D 90 F7 A2 01 C4"), rndB: h("BC D8 29 97 47 33 2D AF"))
        #expect(second != nil)
        #expect(trace.cardChallenge == h("B2 95 57 99 26 15 5A E3"))
        #expect(trace.token == h("70 F3 49 74 0C 94 5D AE 15 9B A9 FE DB CC 46 1A"))
        #expect(trace.cardAnswer == h("B8 FD 7F E5 6B 24 1F C4"))
        #expect(trace.sessionKey.map { $0 & 0xFE } == h("52 0E 3C 90 BC D8 28 96 F6 A2 00 C4 46 32 2C AE"))
    }

    @Test("ISO 0x1A 3K3DES zero key (Elmü), then same-key ChangeKey cryptogram (§6.6)")
    func threeKeyTripleDES() throws {
        var card = Self.cardWithApplication(ks2: 0x42)
        let (session, trace) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: .des([UInt8](repeating: 0, count: 24)),
            rndA: h("36 C5 F8 BF 4A 09 AC 23 9E 8D A0 C7 32 51 D4 AB"),
            rndB: h("31 6E 6D 76 A4 49 F9 25 BA 30 4F B2 65 36 56 A2"))
        #expect(trace.cardChallenge == h("BC 1C 57 0B C9 48 15 61 87 13 23 64 E4 DC E1 76"))
        #expect(
            trace.token
                == h("DD DC 9A 77 59 7F 03 A4 0C 7F AA 36 2F 45 A8 EA DB E4 6A 11 5D 98 19 8C BF 36 A6 E5 1B 39 D8 7C"))
        #expect(trace.cardAnswer == h("72 44 D9 35 ED 9A 13 06 CD 8C 84 1A 7C 1D E3 9A"))
        #expect(trace.sessionKey == h("36 C5 F8 BF 31 6E 6D 76 AC 23 9E 8D F9 25 BA 30 32 51 D4 AB 65 36 56 A2"))
        let newKey = h("00 10 20 31 40 50 60 70 80 90 A0 B0 B0 A0 90 80 70 60 50 40 30 20 10 00")
        let data = try #require(try session?.changeKeyData(keyNumberByte: 0x00, newKey: newKey))
        #expect(
            Array(data.dropFirst())
                == h("F4 F8 65 F3 18 CB 9D E8 0B 2B 16 51 45 02 1F 4F 3A FE F1 24 4F EA 42 FC 99 77 26 FD E7 50 74 1D"))
        #expect(card.send(0xC4, data).status == 0x00)
        let (again, _) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: .des(newKey),
            rndA: [UInt8](repeating: 0x5A, count: 16))
        #expect(again != nil)
    }

    @Test("Legacy 0x0A with the zero DES key: proxmark3 PR #3638 trace")
    func legacyZeroKey() throws {
        var card = DESFireCard(seed: 3)
        card.powerOn()
        let (session, trace) = try HostSession.authenticate(
            &card, command: 0x0A, keyNumber: 0, key: .des([UInt8](repeating: 0, count: 16)),
            rndA: h("A0 A1 A2 A3 A4 A5 A6 A7"), rndB: h("CC F5 32 70 57 0A 76 69"))
        #expect(session != nil)
        #expect(trace.cardChallenge == h("DF 6A B2 9A AE 46 BA 27"))
        #expect(trace.token == h("05 EE C3 1F 1E 6A 0C C3 1F EF 83 98 A6 62 13 70"))
        #expect(trace.cardAnswer == h("26 AC ED 3C 77 1E F9 A0"))
        #expect(trace.sessionKey == h("A0 A1 A2 A3 CC F5 32 70"))
    }

    @Test("Wrong key number → 40; auth type not matching the key → AE; wrong RndB' → AE and no session")
    func authenticationErrors() throws {
        var card = Self.cardWithApplication(ks2: 0x82)
        #expect(card.send(0xAA, [0x02]).status == 0x40)
        #expect(card.send(0x1A, [0x00]).status == 0xAE)
        #expect(card.send(0x0A, [0x00]).status == 0xAE)
        #expect(card.send(0xAA, []).status == 0x7E)
        let (session, trace) = try HostSession.authenticate(
            &card, command: 0xAA, keyNumber: 0, key: .aes([UInt8](repeating: 0x11, count: 16)),
            rndA: [UInt8](repeating: 1, count: 16))
        #expect(session == nil)
        #expect(trace.failureStatus == 0xAE)
        // No session: GetCardUID needs one.
        #expect(card.send(0x51).status == 0xAE)
        // A token of the wrong length.
        #expect(card.send(0xAA, [0x00]).status == 0xAF)
        #expect(card.send(0xAF, [0x00, 0x01]).status == 0x7E)
        // AF with nothing pending.
        #expect(card.send(0xAF).status == 0x1C)
    }

    @Test("Non-zero DES PICC key: legacy and ISO authentication after ChangeKey")
    func nonZeroDESKey() throws {
        var card = DESFireCard(seed: 4)
        card.powerOn()
        let (session, _) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: .des([UInt8](repeating: 0, count: 16)),
            rndA: h("11 22 33 44 55 66 77 88"))
        let desKey = h("01 23 45 67 89 AB CD EF 01 23 45 67 89 AB CD EF")
        let data = try #require(try session?.changeKeyData(keyNumberByte: 0x00, newKey: desKey))
        #expect(card.send(0xC4, data).status == 0x00)
        #expect(card.send(0x64, [0x00]).data == [DESKeyVersion.version(of: desKey)])
        let (legacy, trace) = try HostSession.authenticate(
            &card, command: 0x0A, keyNumber: 0, key: .des(desKey),
            rndA: h("84 9B 36 C5 F8 BF 4A 09"), rndB: h("4F D1 B7 59 42 A8 B8 E1"))
        #expect(legacy != nil)
        #expect(trace.cardChallenge == h("0B 42 D1 91 1C 31 2D 2C"))
        #expect(trace.token == h("8F 31 B0 FF 2A 4F 54 85 AC FE DE A4 79 A4 87 61"))
        #expect(trace.cardAnswer == h("39 08 0C 85 BC A6 39 DD"))
        #expect(trace.sessionKey == h("84 9B 36 C5 4F D1 B7 59"))
        let (iso, _) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0, key: .des(desKey), rndA: h("01 02 03 04 05 06 07 08"))
        #expect(iso != nil)
        let (wrong, wrongTrace) = try HostSession.authenticate(
            &card, command: 0x1A, keyNumber: 0,
            key: .des([UInt8](repeating: 0, count: 16)), rndA: h("01 02 03 04 05 06 07 08"))
        #expect(wrong == nil)
        #expect(wrongTrace.failureStatus == 0xAE)
    }
}
