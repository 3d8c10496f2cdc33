import CardFlowCrypto
import Testing

/// EV1 and legacy secure messaging computed from the primitives (desfire.md §4.4, §4.5, §4.7, §6.5–§6.7).
@Suite struct SecureMessagingVectorTests {
    /// An EV1 session IV advanced by every CMAC and every enciphered block, as desfire.md §4.4 describes.
    struct EV1Chain<Cipher: BlockCipher> {
        let cipher: Cipher
        var iv: [UInt8]

        init(cipher: Cipher, iv: [UInt8]? = nil) {
            self.cipher = cipher
            self.iv = iv ?? [UInt8](repeating: 0, count: cipher.blockSize)
        }

        mutating func mac(_ message: [UInt8]) throws -> [UInt8] {
            iv = try BlockCipherCMAC.mac(message, cipher: cipher, iv: iv)
            return iv
        }

        mutating func encrypt(_ plaintext: [UInt8]) throws -> [UInt8] {
            let ciphertext = try cipher.encryptCBC(plaintext, iv: iv)
            iv = Array(ciphertext.suffix(cipher.blockSize))
            return ciphertext
        }
    }

    static let zero16 = [UInt8](repeating: 0, count: 16)
    static let elmuKey = hex("00 10 20 30 40 50 60 70 80 90 A0 B0 B0 A0 90 80")
    static let elmu2K3DESKey = hex("00 10 20 31 40 50 60 70 80 90 A0 B0 B0 A0 90 80")

    /// §6.5 DES session CMAC chain (Elmü), every row.
    @Test func desSessionCMACChain() throws {
        let cipher = try TripleDESCipher(key: hex("84 9B 36 C5 4F D1 B7 59 84 9B 36 C5 4F D1 B7 59"))
        let keys = try BlockCipherCMAC.subkeys(of: cipher)
        #expect(keys.l == hex("24 7E 34 FB 60 04 11 37"))
        #expect(keys.k1 == hex("48 FC 69 F6 C0 08 22 6E"))
        #expect(keys.k2 == hex("91 F8 D3 ED 80 10 44 DC"))
        let getVersion = hex("04 01 01 01 00 1A 05 04 01 01 01 04 1A 05 04 06 3F 72 63 34 80 BA 45 19 E3 20 49 13")
        let rows: [(command: String, response: [UInt8], tx: String, rx: String)] = [
            ("60", getVersion, "50 20 EC 82 60 86 DF 12", "CD C8 10 BA FA 40 17 59"),
            ("FC", [], "0D 89 CA 4B FB E6 90 72", "9C 2C 81 3A 06 5C 45 F7"),
            ("CA 16 DE 00 0F 02", [], "EE E9 BE 10 51 A4 06 F3", "0A 13 79 B0 1D 85 AD 47"),
            ("CA 24 DE 00 0F 42", [], "EE 60 B2 1A CA 1A 5B 1A", "5D 73 AE 52 87 A1 BB E4"),
            ("CA 16 AE 00 0F 82", [], "75 F0 4D 6F F8 74 2D CA", "3B 68 D7 2A 3B E0 D2 0C"),
            ("CA CC BB AA 0F 01", [], "CD DE 90 47 66 39 58 1F", "F1 1A C0 73 8E F8 38 78"),
            ("6A", hex("16 DE 00 24 DE 00 16 AE 00 CC BB AA"), "D0 56 6D 1B DB 78 8A C3", "27 39 15 4E 26 30 D6 50"),
            ("DA CC BB AA", [], "07 C6 E3 9E 38 77 96 79", "A9 AF 19 05 22 92 F6 62"),
            ("6A", hex("16 DE 00 24 DE 00 16 AE 00"), "D9 46 56 FD BE 75 AD 08", "52 0E 51 E0 0A F0 6D 5E"),
        ]
        var chain = EV1Chain(cipher: cipher)
        for row in rows {
            #expect(try chain.mac(hex(row.command)) == hex(row.tx), "TX \(row.command)")
            #expect(try chain.mac(row.response + [0x00]) == hex(row.rx), "RX \(row.command)")
        }
    }

    /// §6.5 AES session: GetKeyVersion `64 00` and its answer.
    @Test func aesSessionGetKeyVersion() throws {
        let cipher = try AES128Cipher(key: hex("90 F7 A2 01 91 03 68 45 EC 63 DE CD 54 4B 99 31"))
        let keys = try BlockCipherCMAC.subkeys(of: cipher)
        #expect(keys.l == hex("CA 9A FE 16 01 38 D2 3B E2 48 93 71 F4 E1 63 CB"))
        #expect(keys.k1 == hex("95 35 FC 2C 02 71 A4 77 C4 91 26 E3 E9 C2 C7 11"))
        #expect(keys.k2 == hex("2A 6B F8 58 04 E3 48 EF 89 22 4D C7 D3 85 8E A5"))
        var chain = EV1Chain(cipher: cipher)
        #expect(try chain.mac(hex("64 00")) == hex("25 7F C5 38 61 8A 94 4A 3A 20 96 7B 6F 31 43 48"))
        let rx = try chain.mac(hex("10 00"))
        #expect(rx == hex("8A 8F A3 6F 55 CD 21 0D D8 05 46 58 AC 70 D9 9A"))
        #expect(MACTruncation.ev1(rx) == hex("8A 8F A3 6F 55 CD 21 0D"))
    }

    /// §6.6 EV1 DES ChangeKeySettings(0x0D).
    @Test func ev1DESChangeKeySettings() throws {
        let cipher = try TripleDESCipher(key: hex("48 EC 62 DE 3A 3C FE 62"))
        var chain = EV1Chain(cipher: cipher, iv: hex("25 DD 8D 77 31 B1 CF D5"))
        let plaintext = BlockPadding.zeroPadded([0x0D] + DESFireCRC32.bytes(hex("54 0D")), blockSize: 8)
        #expect(plaintext == hex("0D ED 09 40 1E 00 00 00"))
        #expect(try chain.encrypt(plaintext) == hex("27 88 28 05 FC 3F D4 9D"))
        #expect(MACTruncation.ev1(try chain.mac([0x00])) == hex("A6 28 37 83 74 27 0A CD"))
    }

    /// EV1 ChangeKey cryptogram per §4.7: same key → new ‖ [version] ‖ CRC32(C4 ‖ keyNo ‖ new ‖ [version]);
    /// other key → (new ⊕ old) ‖ [version] ‖ CRC32(C4 ‖ keyNo ‖ xor ‖ [version]) ‖ CRC32(new); zero padding.
    func ev1ChangeKeyCryptogram(keyNoByte: UInt8, newKey: [UInt8], oldKey: [UInt8]?, version: [UInt8], blockSize: Int)
        -> [UInt8]
    {
        let body = (oldKey.map { zip(newKey, $0).map { $0 ^ $1 } } ?? newKey) + version
        var cryptogram = body + DESFireCRC32.bytes([0xC4, keyNoByte] + body)
        if oldKey != nil { cryptogram += DESFireCRC32.bytes(newKey) }
        return BlockPadding.zeroPadded(cryptogram, blockSize: blockSize)
    }

    @Test func ev1AESChangeSameKey() throws {
        let cryptogram = ev1ChangeKeyCryptogram(
            keyNoByte: 0x00, newKey: Self.elmuKey, oldKey: nil, version: [0x10], blockSize: 16)
        #expect(cryptogram == Self.elmuKey + hex("10 D2 C6 E6 6B") + [UInt8](repeating: 0, count: 11))
        var chain = EV1Chain(cipher: try AES128Cipher(key: hex("F4 4B 26 F5 C0 5D DD 71 10 77 22 81 C4 D0 66 E8")))
        #expect(
            try chain.encrypt(cryptogram)
                == hex(
                    """
                    E9 F8 5E 21 94 96 C2 B5 8C 10 90 DC 39 35 FA E9 E8 40 CF 61 B3 83 D9 53 19 46 25 6B 1F 11 0C 10
                    """))
    }

    @Test func ev1AESChangeSameKeyAfterCMAC() throws {
        let cryptogram = ev1ChangeKeyCryptogram(
            keyNoByte: 0x00, newKey: Self.zero16, oldKey: nil, version: [0x00], blockSize: 16)
        #expect(Array(cryptogram[17..<21]) == hex("0A 0F 86 1B"))
        var chain = EV1Chain(
            cipher: try AES128Cipher(key: hex("90 F7 A2 01 91 03 68 45 EC 63 DE CD 54 4B 99 31")),
            iv: hex("8A 8F A3 6F 55 CD 21 0D D8 05 46 58 AC 70 D9 9A"))
        #expect(
            try chain.encrypt(cryptogram)
                == hex(
                    """
                    63 53 75 E4 91 9F 8A F2 E9 E8 6B 1C 1B A5 5B 0C 08 07 EA F4 84 D7 A7 EF 6E 0C 30 84 16 0F 5A 61
                    """))
    }

    @Test func ev1AESChangeOtherKey() throws {
        let cryptogram = ev1ChangeKeyCryptogram(
            keyNoByte: 0x01, newKey: Self.elmuKey, oldKey: Self.zero16, version: [0x10], blockSize: 16)
        #expect(cryptogram == Self.elmuKey + hex("10 33 70 B4 84 BF E3 79 19") + [UInt8](repeating: 0, count: 7))
        var chain = EV1Chain(cipher: try AES128Cipher(key: hex("C2 A1 E4 7B D8 10 00 44 FE 6D 00 A7 4D 7A B1 7C")))
        #expect(
            try chain.encrypt(cryptogram)
                == hex(
                    """
                    E7 EC CB 6B D1 CA 64 BC 16 1A 12 B1 C0 24 F7 14 30 33 74 08 C8 A8 7E AC AB 7A 1F F1 89 51 FC A3
                    """))
        #expect(try chain.mac([0x00]) == hex("21 28 D3 CD 9C 9A CF FF F6 EB 95 46 AD F3 5E 17"))
    }

    @Test func ev12K3DESChangeSameKey() throws {
        let cryptogram = ev1ChangeKeyCryptogram(
            keyNoByte: 0x00, newKey: Self.elmu2K3DESKey, oldKey: nil, version: [], blockSize: 8)
        #expect(cryptogram == Self.elmu2K3DESKey + hex("C5 FF 01 50 00 00 00 00"))
        var chain = EV1Chain(cipher: try TripleDESCipher(key: hex("C8 6C E2 5E 4C 64 7E 56 C8 6C E2 5E 4C 64 7E 56")))
        #expect(
            try chain.encrypt(cryptogram)
                == hex(
                    """
                    BE DE 0F C6 ED 34 7D CF 0D 51 C7 17 DF 75 D9 7D 2C 5A 2B A6 CA C7 47 9D
                    """))
    }

    @Test func ev1DESChangeOtherKey() throws {
        let cryptogram = ev1ChangeKeyCryptogram(
            keyNoByte: 0x01, newKey: Self.elmu2K3DESKey, oldKey: Self.zero16, version: [], blockSize: 8)
        #expect(cryptogram == Self.elmu2K3DESKey + hex("86 34 A7 D7 3A 3A EF C4"))
        var chain = EV1Chain(cipher: try TripleDESCipher(key: hex("CA A6 74 E8 CA E8 52 5E")))
        #expect(
            try chain.encrypt(cryptogram)
                == hex(
                    """
                    4E B6 69 E4 8D CA 58 47 49 54 2E 1B E8 9C B4 C7 84 5A 38 C5 7D 19 DE 59
                    """))
        #expect(try chain.mac([0x00]) == hex("2E AD 04 DC F1 21 E0 FE"))
    }

    @Test func ev13K3DESChangeSameKey() throws {
        let newKey = Self.elmu2K3DESKey + hex("70 60 50 40 30 20 10 00")
        let cryptogram = ev1ChangeKeyCryptogram(keyNoByte: 0x00, newKey: newKey, oldKey: nil, version: [], blockSize: 8)
        #expect(Array(cryptogram[24..<28]) == hex("D6 3E 00 A2"))
        var chain = EV1Chain(
            cipher: try TripleDESCipher(
                key: hex("36 C5 F8 BF 31 6E 6D 76 AC 23 9E 8D F9 25 BA 30 32 51 D4 AB 65 36 56 A2")))
        #expect(
            try chain.encrypt(cryptogram)
                == hex(
                    """
                    F4 F8 65 F3 18 CB 9D E8 0B 2B 16 51 45 02 1F 4F 3A FE F1 24 4F EA 42 FC 99 77 26 FD E7 50 74 1D
                    """))
    }

    /// §6.6 PICC DES → AES after an ISO 0x1A DES session (revk DESFire.pdf).
    @Test func ev1PICCDESToAES() throws {
        let cryptogram = ev1ChangeKeyCryptogram(
            keyNoByte: 0x80, newKey: Self.zero16, oldKey: nil, version: [0x01], blockSize: 8)
        #expect(cryptogram == Self.zero16 + hex("01 1D D9 EA C2 00 00 00"))
        var chain = EV1Chain(cipher: try TripleDESCipher(key: hex("9F 02 17 83 8A 9D 09 A4")))
        #expect(
            try chain.encrypt(cryptogram)
                == hex(
                    """
                    61 59 2D C4 0A D3 58 95 16 52 D8 38 31 A2 73 CC E3 EA 31 34 17 83 C4 1E
                    """))
    }

    /// §6.6 PICC DES → AES after a legacy 0x0A session [derived].
    @Test func legacyPICCDESToAES() throws {
        let body = Self.zero16 + [0x00]
        let cryptogram = BlockPadding.zeroPadded(body + CRC16A.bytes(body), blockSize: 8)
        #expect(Array(cryptogram[17..<19]) == hex("75 45"))
        let cipher = try TripleDESCipher(key: hex("A0 A1 A2 A3 CC F5 32 70"))
        #expect(
            try cipher.legacySendModeDecipher(cryptogram, iv: [UInt8](repeating: 0, count: 8))
                == hex(
                    """
                    B6 B1 43 70 1E 58 F4 B3 63 04 4E CF 9C 0D BB 18 92 BE AA 14 3F 3C B0 72
                    """))
    }

    /// §6.6 legacy session vectors [derived]: ChangeKeySettings, ChangeKey (same and other), MAC, enciphered response.
    @Test func legacySessionCryptograms() throws {
        let cipher = try TripleDESCipher(key: hex("84 9B 36 C5 4F D1 B7 59 F8 BF 4A 09 42 A8 B8 E1"))
        let zero8 = [UInt8](repeating: 0, count: 8)

        let settings = BlockPadding.zeroPadded([0x0F] + CRC16A.bytes([0x0F]), blockSize: 8)
        #expect(settings == hex("0F 09 A9 00 00 00 00 00"))
        #expect(try cipher.legacySendModeDecipher(settings, iv: zero8) == hex("26 80 EF F5 8D D0 D6 19"))

        let newKey = hex("10 11 12 13 14 15 16 17 18 19 1A 1B 1C 1D 1E 1F")
        let sameKey = BlockPadding.zeroPadded(newKey + CRC16A.bytes(newKey), blockSize: 8)
        #expect(Array(sameKey[16..<18]) == hex("22 E8"))
        #expect(
            try cipher.legacySendModeDecipher(sameKey, iv: zero8)
                == hex(
                    """
                    62 D7 3C E8 24 00 36 F2 91 F8 99 E2 C3 3B C4 DF C7 A1 BC 3A 37 C9 D1 8E
                    """))

        let xored = zip(newKey, Self.zero16).map { $0 ^ $1 }
        let otherKey = BlockPadding.zeroPadded(xored + CRC16A.bytes(xored) + CRC16A.bytes(newKey), blockSize: 8)
        #expect(
            try cipher.legacySendModeDecipher(otherKey, iv: zero8)
                == hex(
                    """
                    62 D7 3C E8 24 00 36 F2 91 F8 99 E2 C3 3B C4 DF F9 54 52 28 F0 12 04 25
                    """))

        let macInput = BlockPadding.zeroPadded(hex("11 22 33 44"), blockSize: 8)
        let macBlocks = try cipher.encryptCBC(macInput, iv: zero8)
        #expect(Array(macBlocks.suffix(8).prefix(4)) == hex("CD 6E B7 D3"))

        let data = hex("01 02 03 04 05 06 07 08")
        let response = BlockPadding.zeroPadded(data + CRC16A.bytes(data), blockSize: 8)
        #expect(Array(response[8..<10]) == hex("9D BB"))
        let enciphered = try cipher.encryptCBC(response, iv: zero8)
        #expect(enciphered == hex("30 7F B4 DF 13 90 0D 5A B0 54 4B 98 EE 79 95 9D"))
        #expect(try cipher.decryptCBC(enciphered, iv: zero8) == response)
    }

    /// §6.7 enciphered / MACed file I/O continuing one AES session [derived].
    @Test func ev1AESFileIOChain() throws {
        var chain = EV1Chain(cipher: try AES128Cipher(key: hex("40 E7 D2 71 62 6F FB D4 9C 53 0E 3D 30 4F 5B 17")))
        let data = hex("00 01 02 03 04 05 06 07 08 09")

        // (1) WriteData enciphered, file 07.
        let writeHeader = hex("3D 07 00 00 00 0A 00 00")
        #expect(DESFireCRC32.bytes(writeHeader + data) == hex("2C BE 81 A4"))
        let writePlain = BlockPadding.zeroPadded(data + DESFireCRC32.bytes(writeHeader + data), blockSize: 16)
        #expect(try chain.encrypt(writePlain) == hex("3C 1F 0B 87 BE F6 7E DE 72 E1 90 80 97 8E 6C FD"))
        #expect(try chain.mac([0x00]) == hex("1D 90 66 F1 35 55 43 41 3A AA 6E 6F A7 3F EE 3D"))

        // (2) ReadData enciphered, file 07.
        #expect(try chain.mac(hex("BD 07 00 00 00 0A 00 00")) == hex("0D 72 99 B4 8B 37 AE DC 71 7C C2 06 DC 34 A2 48"))
        #expect(DESFireCRC32.bytes(data + [0x00]) == hex("00 98 07 B2"))
        let readPlain = BlockPadding.zeroPadded(data + DESFireCRC32.bytes(data + [0x00]), blockSize: 16)
        let readCipher = try chain.encrypt(readPlain)
        #expect(readCipher == hex("00 0E D9 AC 84 B3 70 8A 1D 35 50 30 66 AD 13 45"))
        #expect(
            try chain.cipher.decryptCBC(readCipher, iv: hex("0D 72 99 B4 8B 37 AE DC 71 7C C2 06 DC 34 A2 48"))
                == readPlain)

        // (3) WriteData MACed, file 08.
        #expect(
            MACTruncation.ev1(try chain.mac(hex("3D 08 00 00 00 04 00 00 11 22 33 44")))
                == hex("26 33 AC 15 60 DB 8C 50"))
        #expect(MACTruncation.ev1(try chain.mac([0x00])) == hex("DF A8 F6 EF 32 F4 9D 82"))

        // (4) ReadData MACed, file 08.
        #expect(try chain.mac(hex("BD 08 00 00 00 04 00 00")) == hex("F8 75 2B 8F D0 C3 B9 2D C1 B5 0F FA C0 B8 93 55"))
        #expect(MACTruncation.ev1(try chain.mac(hex("11 22 33 44 00"))) == hex("71 F5 18 20 83 BC 00 2D"))

        // (5) GetCardUID.
        let uid = hex("04 06 3F 72 63 34 80")
        #expect(try chain.mac([0x51]) == hex("95 DA 4B 58 56 F2 85 71 5C 7D C0 9C 81 87 24 88"))
        #expect(DESFireCRC32.bytes(uid + [0x00]) == hex("6B 90 0B 3A"))
        let uidPlain = BlockPadding.zeroPadded(uid + DESFireCRC32.bytes(uid + [0x00]), blockSize: 16)
        #expect(try chain.encrypt(uidPlain) == hex("7C EE A8 7A 30 57 B0 67 92 8A B6 1C 3E D1 CE 00"))

        // (6) Credit enciphered, file 09, amount 100.
        let amount = hex("64 00 00 00")
        #expect(DESFireCRC32.bytes(hex("0C 09") + amount) == hex("02 9C AB 80"))
        let creditPlain = BlockPadding.zeroPadded(amount + DESFireCRC32.bytes(hex("0C 09") + amount), blockSize: 16)
        #expect(try chain.encrypt(creditPlain) == hex("9E 61 C5 8C 75 15 4E A1 68 1C 2C 69 46 65 8F 2D"))
        #expect(MACTruncation.ev1(try chain.mac([0x00])) == hex("45 9B 7F EB 04 8E B0 AC"))
    }
}
