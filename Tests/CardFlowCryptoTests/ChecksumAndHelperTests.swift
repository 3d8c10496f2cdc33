import CardFlowCrypto
import Testing

/// CRCs (desfire.md §4.3, §6.2), padding, rotation, key versions (§4.1), EV2 truncation.
@Suite struct ChecksumAndHelperTests {
    @Test(arguments: [
        ("54 0D", "ED 09 40 1E"),
        ("00 10 20 30 40 50 60 70 80 90 A0 B0 B0 A0 90 80", "BF E3 79 19"),
        ("3D 00 00 00 00 10 00 00 23 00 00 00 00 00 00 08 12 34 56 78 00 00 00 00", "30 D2 07 00"),
        ("04 44 0F 32 76 31 80 00", "99 CE 1A D4"),
        ("C4 80 00000000000000000000000000000000 01", "1D D9 EA C2"),
        ("C4 00 00 10 20 30 40 50 60 70 80 90 A0 B0 B0 A0 90 80 10", "D2 C6 E6 6B"),
        ("313233343536373839", "D9 C6 0B 34"),
    ])
    func crc32(data: String, expected: String) {
        #expect(DESFireCRC32.bytes(hex(data)) == hex(expected))
    }

    @Test func crc32Values() {
        #expect(DESFireCRC32.checksum(hex("54 0D")) == 0x1E40_09ED)
        #expect(DESFireCRC32.checksum(Array("123456789".utf8)) == 0x340B_C6D9)
        #expect(DESFireCRC32.checksum([]) == 0xFFFF_FFFF)
    }

    @Test(arguments: [
        ("00 00", "A0 1E"),
        ("12 34", "26 CF"),
        ("04 44 0F 32 76 31 80", "27 98"),
    ])
    func crc16A(data: String, expected: String) {
        #expect(CRC16A.bytes(hex(data)) == hex(expected))
    }

    @Test func crc16AValue() {
        #expect(CRC16A.checksum(hex("00 00")) == 0x1EA0)
        #expect(CRC16A.checksum([]) == 0x6363)
    }

    @Test func iso9797Method2Padding() {
        #expect(BlockPadding.iso9797Method2([], blockSize: 8) == hex("80 00 00 00 00 00 00 00"))
        #expect(BlockPadding.iso9797Method2(hex("01 02 03"), blockSize: 8) == hex("01 02 03 80 00 00 00 00"))
        #expect(
            BlockPadding.iso9797Method2(hex("0102030405060708"), blockSize: 8)
                == hex("0102030405060708 8000000000000000"))
        #expect(BlockPadding.iso9797Method2(hex("01"), blockSize: 16).count == 16)
        #expect(BlockPadding.removingISO9797Method2(hex("01 02 03 80 00 00 00 00")) == hex("01 02 03"))
        #expect(BlockPadding.removingISO9797Method2(hex("01 02 03 00")) == nil)
        #expect(BlockPadding.removingISO9797Method2(hex("80 00")) == [])
    }

    @Test func zeroPadding() {
        #expect(BlockPadding.zeroPadded(hex("01 02 03"), blockSize: 8) == hex("01 02 03 00 00 00 00 00"))
        #expect(BlockPadding.zeroPadded(hex("0102030405060708"), blockSize: 8) == hex("0102030405060708"))
        #expect(BlockPadding.zeroPadded([], blockSize: 16) == [])
        #expect(BlockPadding.zeroPadded(hex("01"), blockSize: 16).count == 16)
    }

    @Test func rotation() {
        #expect(ByteRotation.rotatedLeft(hex("01 02 03 04 05 06 07 08")) == hex("02 03 04 05 06 07 08 01"))
        #expect(ByteRotation.rotatedRight(hex("02 03 04 05 06 07 08 01")) == hex("01 02 03 04 05 06 07 08"))
        #expect(ByteRotation.rotatedLeft([]) == [])
        #expect(ByteRotation.rotatedRight([]) == [])
    }

    /// desfire.md §4.1 (libfreefare tests, Elmü).
    @Test func keyVersion() {
        #expect(DESKeyVersion.version(of: Array("ABCDEFGH".utf8)) == 0xAA)
        #expect(DESKeyVersion.version(of: Array("Card Master Key!".utf8)) == 0xC7)
        #expect(DESKeyVersion.version(of: Array("App.B Master Key".utf8)) == 0x83)
        #expect(DESKeyVersion.version(of: hex("000100010001000100010001000100010001000100010001")) == 0x55)
        #expect(DESKeyVersion.version(of: hex("00 10 20 31 40 50 60 70 80 90 A0 B0 B0 A0 90 80")) == 0x10)
    }

    @Test func settingKeyVersion() throws {
        let zero = [UInt8](repeating: 0, count: 16)
        let des = DESKeyVersion.setting(0xA5, in: zero, secondHalf: .copyFirstHalf)
        #expect(des == hex("01 00 01 00 00 01 00 01 01 00 01 00 00 01 00 01"))
        #expect(DESKeyVersion.version(of: des) == 0xA5)
        let twoKey = DESKeyVersion.setting(0xA5, in: zero, secondHalf: .invertedVersionBits)
        #expect(twoKey == hex("01 00 01 00 00 01 00 01 00 01 00 01 01 00 01 00"))
        let flipped = DESKeyVersion.setting(0x00, in: Array("App.B Master Key".utf8), secondHalf: .unchanged)
        #expect(Array(flipped[8...]) == Array(Array("App.B Master Key".utf8)[8...]))
        #expect(DESKeyVersion.version(of: flipped) == 0)
        // Parity bits carry no cryptographic meaning: libfreefare authenticates "App.B Master Key" as "@pp/C!L`ruds!Kdx".
        let original = try TripleDESCipher(key: Array("App.B Master Key".utf8))
        let allFlipped = try TripleDESCipher(key: Array("@pp/C!L`ruds!Kdx".utf8))
        let block = hex("0011223344556677")
        #expect(try original.encryptECB(block) == allFlipped.encryptECB(block))
    }

    /// desfire.md §9 (AN12343 via proxmark desfiretest.c): EV2 session keys are AES-CMACs of SV1/SV2,
    /// MACs are truncated to the odd bytes.
    @Test func ev2SessionKeysAndOddByteTruncation() throws {
        let rndA = hex("B04D0787C93EE0CC8CACC8E86F16C6FE")
        let rndB = hex("FA659AD0DCA738DD65DC7DC38612AD81")
        let mixed = zip(rndA[2...7], rndB[0...5]).map { $0 ^ $1 }
        let tail = Array(rndA[0...1]) + mixed + Array(rndB[6...15]) + Array(rndA[8...15])
        let key = [UInt8](repeating: 0, count: 16)
        #expect(try AESCMAC.mac(hex("A55A 00010080") + tail, key: key) == hex("63DC07286289A7A6C0334CA31C314A04"))
        #expect(try AESCMAC.mac(hex("5AA5 00010080") + tail, key: key) == hex("774F26743ECE6AF5033B6AE8522946F6"))

        let ivCipher = try AES128Cipher(key: hex("66A8CB93269DC9BC2885B7A91B9C697B"))
        #expect(
            try ivCipher.encryptBlock(hex("A55A ED56F6E6 0000 0000000000000000"))
                == hex("DA0F644A4986275957CF1EC3AF4CCE53"))

        let macKey = hex("9366FA195EB566F5BD2BAD4020B83002")
        let command = hex("8D 0000 E2D3AF69 00000000 190000") + [UInt8](repeating: 0x22, count: 25)
        #expect(MACTruncation.ev2OddBytes(try AESCMAC.mac(command, key: macKey)) == hex("68F2C28C575A1628"))
        #expect(
            MACTruncation.ev2OddBytes(try AESCMAC.mac(hex("00 0100 E2D3AF69"), key: macKey)) == hex("0820F68898C2A7F1"))
    }

    /// The truncation reuses the array it is handed; a caller's array that lives on is not changed.
    @Test func oddByteTruncationLeavesTheCallersArrayAlone() {
        let mac = Array(UInt8(0)..<16)
        #expect(MACTruncation.ev2OddBytes(mac) == [1, 3, 5, 7, 9, 11, 13, 15])
        #expect(mac == Array(0..<16))
        #expect(MACTruncation.ev2OddBytes([0xA0, 0xA1, 0xA2]) == [0xA1])
        #expect(MACTruncation.ev2OddBytes([0xA0]).isEmpty)
        #expect(MACTruncation.ev2OddBytes([]).isEmpty)
    }

    @Test func secureRandom() {
        #expect(SecureRandom.bytes(count: 0).isEmpty)
        #expect(SecureRandom.bytes(count: 16).count == 16)
        // 32 random bytes repeating exactly has probability 2^-256.
        #expect(SecureRandom.bytes(count: 32) != SecureRandom.bytes(count: 32))
    }
}
