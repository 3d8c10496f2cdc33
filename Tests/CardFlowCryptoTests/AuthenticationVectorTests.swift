import CardFlowCrypto
import Testing

/// DESFire three-pass authentication computed from the primitives (desfire.md §4.2, §6.3, §6.4).
@Suite struct AuthenticationVectorTests {
    /// ISO 0x1A / AES 0xAA: one CBC chain over the three messages starting from a zero IV.
    func checkEV1Authentication(
        cipher: some BlockCipher, encryptedRndB: String, rndB: String, rndA: String,
        token: String, card: String
    ) throws {
        let zero = [UInt8](repeating: 0, count: cipher.blockSize)
        let ekRndB = hex(encryptedRndB)
        let decryptedRndB = try cipher.decryptCBC(ekRndB, iv: zero)
        #expect(decryptedRndB == hex(rndB))
        let plainToken = hex(rndA) + ByteRotation.rotatedLeft(decryptedRndB)
        let encryptedToken = try cipher.encryptCBC(plainToken, iv: Array(ekRndB.suffix(cipher.blockSize)))
        #expect(encryptedToken == hex(token))
        let rndAPrime = try cipher.decryptCBC(hex(card), iv: Array(encryptedToken.suffix(cipher.blockSize)))
        #expect(rndAPrime == ByteRotation.rotatedLeft(hex(rndA)))
    }

    @Test func aesZeroKeyElmu() throws {
        try checkEV1Authentication(
            cipher: AES128Cipher(key: [UInt8](repeating: 0, count: 16)),
            encryptedRndB: "B9 69 FD FE 56 FD 91 FC 9D E6 F6 F2 13 B8 FD 1E",
            rndB: "C0 5D DD 71 4F D7 88 A6 B7 B7 54 F3 C4 D0 66 E8",
            rndA: "F4 4B 26 F5 68 6F 3A 39 1C D3 8E BD 10 77 22 81",
            token: "36 AA D7 DF 6E 43 6B A0 8D 18 61 38 30 A7 0D 5A D4 3E 3D 3F 4A 8D 47 54 1E EE 62 3A 93 4E 47 74",
            card: "80 0D B6 80 BC 14 6B D1 21 D6 57 8F 2D 2E 20 59")
        #expect(
            try DESFireSessionKey.aes(
                rndA: hex("F4 4B 26 F5 68 6F 3A 39 1C D3 8E BD 10 77 22 81"),
                rndB: hex("C0 5D DD 71 4F D7 88 A6 B7 B7 54 F3 C4 D0 66 E8"))
                == hex("F4 4B 26 F5 C0 5D DD 71 10 77 22 81 C4 D0 66 E8"))
    }

    @Test func aesNonZeroKeyElmu() throws {
        try checkEV1Authentication(
            cipher: AES128Cipher(key: hex("00 10 20 30 40 50 60 70 80 90 A0 B0 B0 A0 90 80")),
            encryptedRndB: "CC C8 31 6C 2B 26 13 FE 9A 18 9B AC 9C C8 9D 03",
            rndB: "27 10 47 12 5A 2A A5 81 78 F5 C5 1B 11 77 A1 9B",
            rndA: "C2 A1 E4 7B 96 A5 58 9F AA E9 0C 03 FE 6D 00 A7",
            token: "C0 2E 06 1E 72 E1 77 26 48 9C AE EC 99 7C 52 37 58 BF 86 3E FE 76 71 C5 5B 46 65 D0 6A CC D9 7B",
            card: "72 AC CC 0B DE A4 82 B5 31 85 BB 5A D0 08 62 46")
        #expect(
            try DESFireSessionKey.aes(
                rndA: hex("C2 A1 E4 7B 96 A5 58 9F AA E9 0C 03 FE 6D 00 A7"),
                rndB: hex("27 10 47 12 5A 2A A5 81 78 F5 C5 1B 11 77 A1 9B"))
                == hex("C2 A1 E4 7B 27 10 47 12 FE 6D 00 A7 11 77 A1 9B"))
    }

    @Test func isoDESZeroKeyProxmarkTrace() throws {
        let cipher = try TripleDESCipher(key: [UInt8](repeating: 0, count: 16))
        try checkEV1Authentication(
            cipher: cipher, encryptedRndB: "83 B8 79 40 92 32 72 59", rndB: "99 D2 F4 FF 53 EF 2D 54",
            rndA: "01 02 03 04 05 06 07 08", token: "CC 45 06 66 5C 22 9B 49 BB D7 B6 71 13 A9 42 F3",
            card: "03 FB 11 80 0B 82 04 95")
        let sessionKey = try DESFireSessionKey.des(
            rndA: hex("01 02 03 04 05 06 07 08"), rndB: hex("99 D2 F4 FF 53 EF 2D 54"))
        #expect(sessionKey == hex("01 02 03 04 99 D2 F4 FF"))
        // FormatPICC in that session: TX CMAC over FC (not sent), then RX CMAC over status 00 chained from it.
        let session = try TripleDESCipher(key: sessionKey)
        let txMAC = try BlockCipherCMAC.mac(hex("FC"), cipher: session, iv: [UInt8](repeating: 0, count: 8))
        #expect(txMAC == hex("0B B6 02 6E 56 23 12 6C"))
        #expect(try BlockCipherCMAC.mac(hex("00"), cipher: session, iv: txMAC) == hex("0A 28 19 F8 0B A0 56 A0"))
    }

    @Test func isoDESZeroKeyElmu() throws {
        try checkEV1Authentication(
            cipher: TripleDESCipher(key: [UInt8](repeating: 0, count: 16)),
            encryptedRndB: "5D 99 4C E0 85 F2 40 89", rndB: "4F D1 B7 59 42 A8 B8 E1", rndA: "84 9B 36 C5 F8 BF 4A 09",
            token: "21 D0 AD 5F 2F D9 74 54 A7 46 CC 80 56 7F 1B 1C", card: "91 3C 6D ED 84 22 1C 41")
        #expect(
            try DESFireSessionKey.des(rndA: hex("84 9B 36 C5 F8 BF 4A 09"), rndB: hex("4F D1 B7 59 42 A8 B8 E1"))
                == hex("84 9B 36 C5 4F D1 B7 59"))
    }

    @Test func isoDESZeroKeyRevK() throws {
        try checkEV1Authentication(
            cipher: TripleDESCipher(key: [UInt8](repeating: 0, count: 8)),
            encryptedRndB: "C3 27 E0 B3 AE 78 4F 04", rndB: "8A 9D 09 A4 3D 2D D3 92", rndA: "9F 02 17 83 26 DD E5 A2",
            token: "DC C7 FB 9A 26 1C 7D FC 01 20 14 A9 2B BB CD CB", card: "75 FD A7 DC 10 07 12 A4")
        #expect(
            try DESFireSessionKey.des(rndA: hex("9F 02 17 83 26 DD E5 A2"), rndB: hex("8A 9D 09 A4 3D 2D D3 92"))
                == hex("9F 02 17 83 8A 9D 09 A4"))
    }

    @Test func iso2K3DESElmu() throws {
        try checkEV1Authentication(
            cipher: TripleDESCipher(key: hex("00 10 20 31 40 50 60 70 80 90 A0 B0 B0 A0 90 80")),
            encryptedRndB: "B2 95 57 99 26 15 5A E3", rndB: "BC D8 29 97 47 33 2D AF", rndA: "53 0E 3D 90 F7 A2 01 C4",
            token: "70 F3 49 74 0C 94 5D AE 15 9B A9 FE DB CC 46 1A", card: "B8 FD 7F E5 6B 24 1F C4")
        let sessionKey = try DESFireSessionKey.twoKeyTripleDES(
            rndA: hex("53 0E 3D 90 F7 A2 01 C4"), rndB: hex("BC D8 29 97 47 33 2D AF"))
        #expect(sessionKey.map { $0 & 0xFE } == hex("52 0E 3C 90 BC D8 28 96 F6 A2 00 C4 46 32 2C AE"))
    }

    @Test func iso3K3DESElmu() throws {
        try checkEV1Authentication(
            cipher: TripleDESCipher(key: [UInt8](repeating: 0, count: 24)),
            encryptedRndB: "BC 1C 57 0B C9 48 15 61 87 13 23 64 E4 DC E1 76",
            rndB: "31 6E 6D 76 A4 49 F9 25 BA 30 4F B2 65 36 56 A2",
            rndA: "36 C5 F8 BF 4A 09 AC 23 9E 8D A0 C7 32 51 D4 AB",
            token: "DD DC 9A 77 59 7F 03 A4 0C 7F AA 36 2F 45 A8 EA DB E4 6A 11 5D 98 19 8C BF 36 A6 E5 1B 39 D8 7C",
            card: "72 44 D9 35 ED 9A 13 06 CD 8C 84 1A 7C 1D E3 9A")
        let sessionKey = try DESFireSessionKey.threeKeyTripleDES(
            rndA: hex("36 C5 F8 BF 4A 09 AC 23 9E 8D A0 C7 32 51 D4 AB"),
            rndB: hex("31 6E 6D 76 A4 49 F9 25 BA 30 4F B2 65 36 56 A2"))
        #expect(sessionKey == hex("36 C5 F8 BF 31 6E 6D 76 AC 23 9E 8D F9 25 BA 30 32 51 D4 AB 65 36 56 A2"))
        #expect(
            sessionKey.map { $0 & 0xFE }
                == hex("36 C4 F8 BE 30 6E 6C 76 AC 22 9E 8C F8 24 BA 30 32 50 D4 AA 64 36 56 A2"))
    }

    /// Legacy 0x0A: card sends E(RndB); client answers with send-mode decipher from IV 0; card returns E(RndA').
    func checkLegacyAuthentication(
        cipher: some BlockCipher, encryptedRndB: String, rndB: String, rndA: String, token: String, card: String
    ) throws {
        let zero = [UInt8](repeating: 0, count: 8)
        #expect(try cipher.decryptCBC(hex(encryptedRndB), iv: zero) == hex(rndB))
        #expect(try cipher.encryptECB(hex(rndB)) == hex(encryptedRndB))
        let plainToken = hex(rndA) + ByteRotation.rotatedLeft(hex(rndB))
        let sent = try cipher.legacySendModeDecipher(plainToken, iv: zero)
        #expect(sent == hex(token))
        #expect(try cipher.legacySendModeRecover(sent, iv: zero) == plainToken)
        #expect(try cipher.decryptCBC(hex(card), iv: zero) == ByteRotation.rotatedLeft(hex(rndA)))
    }

    @Test func legacyZeroKeyProxmarkPR3638() throws {
        try checkLegacyAuthentication(
            cipher: TripleDESCipher(key: [UInt8](repeating: 0, count: 16)),
            encryptedRndB: "DF 6A B2 9A AE 46 BA 27", rndB: "CC F5 32 70 57 0A 76 69", rndA: "A0 A1 A2 A3 A4 A5 A6 A7",
            token: "05 EE C3 1F 1E 6A 0C C3 1F EF 83 98 A6 62 13 70", card: "26 AC ED 3C 77 1E F9 A0")
        #expect(
            try DESFireSessionKey.des(rndA: hex("A0 A1 A2 A3 A4 A5 A6 A7"), rndB: hex("CC F5 32 70 57 0A 76 69"))
                == hex("A0 A1 A2 A3 CC F5 32 70"))
    }

    @Test func legacy2K3DESNonWeakKey() throws {
        try checkLegacyAuthentication(
            cipher: TripleDESCipher(key: hex("00 11 22 33 44 55 66 77 88 99 AA BB CC DD EE FF")),
            encryptedRndB: "40 92 AA E4 68 88 87 87", rndB: "4F D1 B7 59 42 A8 B8 E1", rndA: "84 9B 36 C5 F8 BF 4A 09",
            token: "8B A4 C6 9F E6 91 D4 E6 AA 63 3E 4E E6 3A CE FC", card: "B6 86 C1 D9 12 24 0E C2")
        #expect(
            try DESFireSessionKey.twoKeyTripleDES(
                rndA: hex("84 9B 36 C5 F8 BF 4A 09"), rndB: hex("4F D1 B7 59 42 A8 B8 E1"))
                == hex("84 9B 36 C5 4F D1 B7 59 F8 BF 4A 09 42 A8 B8 E1"))
    }

    @Test func legacyDESNonWeakKey() throws {
        try checkLegacyAuthentication(
            cipher: TripleDESCipher(key: hex("01 23 45 67 89 AB CD EF")),
            encryptedRndB: "0B 42 D1 91 1C 31 2D 2C", rndB: "4F D1 B7 59 42 A8 B8 E1", rndA: "84 9B 36 C5 F8 BF 4A 09",
            token: "8F 31 B0 FF 2A 4F 54 85 AC FE DE A4 79 A4 87 61", card: "39 08 0C 85 BC A6 39 DD")
    }

    /// libfreefare test_mifare_desfire_des.c, DES key 0101010101010101, IV 0.
    @Test func libfreefareReceiveAndSendDecipher() throws {
        let cipher = try TripleDESCipher(key: hex("0101010101010101"))
        let zero = [UInt8](repeating: 0, count: 8)
        #expect(try cipher.decryptCBC(hex("D659E17043A84068"), iv: zero) == hex("730DDFADA4D20789"))
        #expect(try cipher.legacySendModeDecipher(hex("730DDFADA4D20789"), iv: zero) == hex("D659E17043A84068"))
    }
}
