import CardFlowCrypto
import Crypto
import CryptoExtras
import Foundation
import Testing

/// AES-ECB and AES-CBC written on the block function (``AESCBC``, ``AES128Cipher``), held to the
/// published vectors and, on seeded random inputs, to swift-crypto's own `AES._CBC` (BoringSSL's
/// CBC, the implementation they replaced); the in-place forms to the copying ones; the CMAC chained
/// from an IV to CBC-MAC through `AES._CBC`; the CRC32 over slices to the one over arrays.
@Suite struct AESModeTests {
    static let key = hex("2B7E151628AED2A6ABF7158809CF4F3C")
    static let iv = hex("000102030405060708090A0B0C0D0E0F")
    static let plaintext = hex(
        """
        6BC1BEE22E409F96E93D7E117393172A AE2D8A571E03AC9C9EB76FAC45AF8E51
        30C81C46A35CE411E5FBC1191A0A52EF F69F2445DF4F9B17AD2B417BE66C3710
        """)
    /// NIST SP 800-38A F.2.1 (CBC-AES128.Encrypt), the ciphertext; F.2.2 (CBC-AES128.Decrypt) is its inverse.
    static let ciphertext = hex(
        """
        7649ABAC8119B246CEE98E9B12E9197D 5086CB9B507219EE95DB113A917678B2
        73BED6B8E3C1743B7116E69E22229516 3FF1CAA1681FAC09120ECA307586E1A7
        """)

    @Test func sp80038aF21Encrypt() throws {
        let cipher = try AES128Cipher(key: Self.key)
        #expect(try AESCBC.encrypt(Self.plaintext, key: cipher, iv: Self.iv) == Self.ciphertext)
        var data = Self.plaintext
        try AESCBC.encrypt(inPlace: &data, key: cipher, iv: Self.iv)
        #expect(data == Self.ciphertext)
        data = Self.plaintext
        try cipher.encryptCBC(inPlace: &data, iv: Self.iv)
        #expect(data == Self.ciphertext)
        // Each prefix of whole blocks is the prefix of the ciphertext.
        for blocks in 1...4 {
            let prefix = Array(Self.plaintext.prefix(16 * blocks))
            #expect(try cipher.encryptCBC(prefix, iv: Self.iv) == Array(Self.ciphertext.prefix(16 * blocks)))
        }
    }

    @Test func sp80038aF22Decrypt() throws {
        let cipher = try AES128Cipher(key: Self.key)
        #expect(try AESCBC.decrypt(Self.ciphertext, key: cipher, iv: Self.iv) == Self.plaintext)
        var data = Self.ciphertext
        try AESCBC.decrypt(inPlace: &data, key: cipher, iv: Self.iv)
        #expect(data == Self.plaintext)
        data = Self.ciphertext
        try cipher.decryptCBC(inPlace: &data, iv: Self.iv)
        #expect(data == Self.plaintext)
        // A block deciphers with the ciphertext block before it as the IV.
        let last = Array(Self.ciphertext[48..<64])
        #expect(try cipher.decryptCBC(last, iv: Array(Self.ciphertext[32..<48])) == Array(Self.plaintext[48..<64]))
    }

    /// NIST SP 800-38A F.1.1 / F.1.2 (ECB-AES128) and FIPS-197 Appendix C.1.
    @Test func ecbVectors() throws {
        let cipher = try AES128Cipher(key: Self.key)
        let ecb = hex(
            """
            3AD77BB40D7A3660A89ECAF32466EF97 F5D3D58503B9699DE785895A96FDBAAF
            43B1CD7F598ECE23881B00E3ED030688 7B0C785E27E8AD3F8223207104725DD4
            """)
        #expect(try cipher.encryptECB(Self.plaintext) == ecb)
        #expect(try cipher.decryptECB(ecb) == Self.plaintext)
        let fips = try AES128Cipher(key: hex("000102030405060708090A0B0C0D0E0F"))
        let block = hex("00112233445566778899AABBCCDDEEFF")
        let encrypted = hex("69C4E0D86A7B0430D8CDB78070B4C55A")
        #expect(try fips.encryptECB(block + block + block) == encrypted + encrypted + encrypted)
        #expect(try fips.decryptECB(encrypted + encrypted) == block + block)
        #expect(try fips.encryptECB([]) == [])
    }

    /// The differential test: swift-crypto's `AES._CBC` (no padding) and ECB through
    /// `AES.permute` agree with ours on seeded random keys, IVs and messages of 1 to 20 blocks.
    /// (`AES._CBC` refuses an empty message; ours, like the wrapper it replaced, returns it empty.)
    @Test func agreesWithSwiftCryptoCBC() throws {
        var generator = CrossCheckAndErrorTests.SeededGenerator(state: 0x4145_5343_4243_0001)
        let emptyCipher = try AES128Cipher(key: generator.bytes(16))
        #expect(try emptyCipher.encryptCBC([], iv: generator.bytes(16)) == [])
        #expect(try emptyCipher.decryptCBC([], iv: generator.bytes(16)) == [])
        for blocks in [1, 2, 3, 4, 5, 7, 8, 16, 20] {
            for _ in 0..<8 {
                let key = generator.bytes(16)
                let iv = generator.bytes(16)
                let message = generator.bytes(16 * blocks)
                let cipher = try AES128Cipher(key: key)
                let symmetricKey = SymmetricKey(data: key)
                let expected = Array(
                    try AES._CBC.encrypt(message, using: symmetricKey, iv: AES._CBC.IV(ivBytes: iv), noPadding: true))
                let encrypted = try AESCBC.encrypt(message, key: cipher, iv: iv)
                #expect(encrypted == expected, "\(blocks) blocks")
                let decrypted = Array(
                    try AES._CBC.decrypt(expected, using: symmetricKey, iv: AES._CBC.IV(ivBytes: iv), noPadding: true))
                #expect(decrypted == message)
                #expect(try AESCBC.decrypt(expected, key: cipher, iv: iv) == message, "\(blocks) blocks")
                var inPlace = message
                try cipher.encryptCBC(inPlace: &inPlace, iv: iv)
                #expect(inPlace == expected)
                try cipher.decryptCBC(inPlace: &inPlace, iv: iv)
                #expect(inPlace == message)
                // ECB: each block through swift-crypto's block function on its own.
                var blockwise: [UInt8] = []
                for start in stride(from: 0, to: message.count, by: 16) {
                    var block = Array(message[start..<start + 16])
                    try AES.permute(&block, key: symmetricKey)
                    blockwise += block
                }
                #expect(try cipher.encryptECB(message) == blockwise)
                #expect(try cipher.decryptECB(blockwise) == message)
            }
        }
    }

    /// The caller's arrays stay as they were: the copying forms work on a copy, and the in-place
    /// forms touch only the array they are given (a copy of it shares no storage afterwards).
    @Test func inputsAreNotChanged() throws {
        let cipher = try AES128Cipher(key: Self.key)
        let message = Self.plaintext
        let iv = Self.iv
        _ = try cipher.encryptCBC(message, iv: iv)
        _ = try cipher.decryptCBC(message, iv: iv)
        _ = try cipher.encryptECB(message)
        _ = try cipher.encryptBlock(Array(message.prefix(16)))
        #expect(message == Self.plaintext)
        var copy = message
        try cipher.encryptCBC(inPlace: &copy, iv: iv)
        #expect(message == Self.plaintext)
        #expect(copy == Self.ciphertext)
        #expect(iv == Self.iv)
    }

    @Test func inPlaceErrorsLeaveData() throws {
        let cipher = try AES128Cipher(key: Self.key)
        var unaligned = [UInt8](repeating: 7, count: 17)
        #expect(throws: CardCryptoError.dataNotBlockAligned(length: 17, blockSize: 16)) {
            try cipher.encryptCBC(inPlace: &unaligned, iv: Self.iv)
        }
        #expect(throws: CardCryptoError.dataNotBlockAligned(length: 17, blockSize: 16)) {
            try AESCBC.decrypt(inPlace: &unaligned, key: cipher, iv: Self.iv)
        }
        #expect(unaligned == [UInt8](repeating: 7, count: 17))
        var aligned = Self.plaintext
        #expect(throws: CardCryptoError.invalidIVLength(expected: 16, actual: 15)) {
            try cipher.decryptCBC(inPlace: &aligned, iv: Array(Self.iv.prefix(15)))
        }
        #expect(aligned == Self.plaintext)
        var empty: [UInt8] = []
        try cipher.encryptCBC(inPlace: &empty, iv: Self.iv)
        #expect(empty.isEmpty)
    }

    /// 3DES has no in-place implementation of its own: the protocol's default assigns the copying result.
    @Test func tripleDESInPlaceDefault() throws {
        var generator = CrossCheckAndErrorTests.SeededGenerator(state: 0x3DE5)
        let cipher = try TripleDESCipher(key: generator.bytes(24))
        let iv = generator.bytes(8)
        let message = generator.bytes(40)
        var data = message
        try cipher.encryptCBC(inPlace: &data, iv: iv)
        #expect(data == (try cipher.encryptCBC(message, iv: iv)))
        try cipher.decryptCBC(inPlace: &data, iv: iv)
        #expect(data == message)
    }

    /// EV1 secure messaging chains the CMAC from the session IV: the AES path of
    /// ``BlockCipherCMAC`` against a CBC-MAC through swift-crypto's `AES._CBC` from that IV over
    /// the padded message, the last block XORed with K1 or K2.
    @Test func chainedCMACAgreesWithSwiftCryptoCBC() throws {
        var generator = CrossCheckAndErrorTests.SeededGenerator(state: 0xC3AC_0001)
        for length in [0, 1, 8, 15, 16, 17, 31, 32, 33, 48, 100] {
            for _ in 0..<4 {
                let key = generator.bytes(16)
                let iv = generator.bytes(16)
                let message = generator.bytes(length)
                let cipher = try AES128Cipher(key: key)
                let subkeys = try BlockCipherCMAC.subkeys(of: cipher)
                let complete = length > 0 && length % 16 == 0
                var padded = complete ? message : BlockPadding.iso9797Method2(message, blockSize: 16)
                let lastKey = complete ? subkeys.k1 : subkeys.k2
                for index in 0..<16 { padded[padded.count - 16 + index] ^= lastKey[index] }
                let expected = Array(
                    try AES._CBC.encrypt(
                        padded, using: SymmetricKey(data: key), iv: AES._CBC.IV(ivBytes: iv), noPadding: true
                    ).suffix(16))
                #expect(try BlockCipherCMAC.mac(message, cipher: cipher, iv: iv) == expected, "length \(length)")
            }
        }
    }

    @Test func crc32OverSlicesAndBytes() {
        var generator = CrossCheckAndErrorTests.SeededGenerator(state: 0xC4C3)
        for length in [0, 1, 5, 31, 64] {
            let data = generator.bytes(length)
            let whole = DESFireCRC32.checksum(data)
            #expect(DESFireCRC32.checksum(data[...]) == whole)
            for split in [0, length / 2, length] {
                let head = DESFireCRC32.checksum(Array(data[..<split]))
                #expect(DESFireCRC32.checksum(data[split...], continuing: head) == whole)
            }
            #expect(
                DESFireCRC32.checksum(appending: 0x00, to: DESFireCRC32.checksum(data))
                    == DESFireCRC32.checksum(data + [0x00]))
            var appended = data
            DESFireCRC32.append(whole, to: &appended)
            #expect(appended == data + DESFireCRC32.bytes(data))
        }
        #expect(DESFireCRC32.initialValue == DESFireCRC32.checksum([UInt8]()))
    }
}
