import CardFlowCrypto
import Testing

/// NIST / RFC known-answer tests for the raw primitives (dependencies.md §3, desfire.md §6.1).
@Suite struct PrimitiveVectorTests {
    static let rfc4493Key = hex("2B7E151628AED2A6ABF7158809CF4F3C")
    static let rfc4493Message = hex(
        """
        6BC1BEE22E409F96E93D7E117393172A AE2D8A571E03AC9C9EB76FAC45AF8E51
        30C81C46A35CE411E5FBC1191A0A52EF F69F2445DF4F9B17AD2B417BE66C3710
        """)

    @Test func fips197AppendixC1() throws {
        let cipher = try AES128Cipher(key: hex("000102030405060708090A0B0C0D0E0F"))
        let plaintext = hex("00112233445566778899AABBCCDDEEFF")
        let ciphertext = hex("69C4E0D86A7B0430D8CDB78070B4C55A")
        #expect(try cipher.encryptBlock(plaintext) == ciphertext)
        #expect(try cipher.decryptBlock(ciphertext) == plaintext)
        #expect(try cipher.encryptECB(plaintext + plaintext) == ciphertext + ciphertext)
        #expect(try cipher.decryptECB(ciphertext + ciphertext) == plaintext + plaintext)
    }

    @Test func sp80038aF21CBCAES128() throws {
        let cipher = try AES128Cipher(key: Self.rfc4493Key)
        let iv = hex("000102030405060708090A0B0C0D0E0F")
        let ciphertext = hex(
            """
            7649ABAC8119B246CEE98E9B12E9197D 5086CB9B507219EE95DB113A917678B2
            73BED6B8E3C1743B7116E69E22229516 3FF1CAA1681FAC09120ECA307586E1A7
            """)
        #expect(try cipher.encryptCBC(Self.rfc4493Message, iv: iv) == ciphertext)
        #expect(try cipher.decryptCBC(ciphertext, iv: iv) == Self.rfc4493Message)
        #expect(try AESCBC.encrypt(Self.rfc4493Message, key: cipher, iv: iv) == ciphertext)
    }

    @Test(arguments: [
        (0, "BB1D6929E95937287FA37D129B756746"),
        (16, "070A16B46B4D4144F79BDD9DD04A287C"),
        (40, "DFA66747DE9AE63030CA32611497C827"),
        (64, "51F0BEBF7E3B9D92FC49741779363CFE"),
    ])
    func rfc4493CMACExamples(length: Int, expected: String) throws {
        let message = Array(Self.rfc4493Message.prefix(length))
        #expect(try AESCMAC.mac(message, key: Self.rfc4493Key) == hex(expected))
        #expect(try AESCMAC.mac(message, key: Self.rfc4493Key, outputSize: 8) == Array(hex(expected).prefix(8)))
        let cipher = try AES128Cipher(key: Self.rfc4493Key)
        #expect(try BlockCipherCMAC.mac(message, cipher: cipher) == hex(expected))
        #expect(MACTruncation.ev1(try BlockCipherCMAC.mac(message, cipher: cipher)) == Array(hex(expected).prefix(8)))
    }

    @Test func rfc4493Subkeys() throws {
        let keys = try BlockCipherCMAC.subkeys(of: AES128Cipher(key: Self.rfc4493Key))
        #expect(keys.l == hex("7DF76B0C1AB899B33E42F047B91B546F"))
        #expect(keys.k1 == hex("FBEED618357133667C85E08F7236A8DE"))
        #expect(keys.k2 == hex("F7DDAC306AE266CCF90BC11EE46D513B"))
    }

    /// desfire.md §6.1, proxmark desfiretest.c TestCMACSubkeys.
    @Test func proxmarkSubkeys() throws {
        let aes = try BlockCipherCMAC.subkeys(of: AES128Cipher(key: hex("00112233445566778899AABBCCDDEEFF")))
        #expect(aes.k1 == hex("FBC9F75C9413C041DFEE452D3F0706D1"))
        #expect(aes.k2 == hex("F793EEB928278083BFDC8A5A7E0E0D25"))
        let twoKey = try BlockCipherCMAC.subkeys(of: TripleDESCipher(key: hex("00112233445566778899AABBCCDDEEFF")))
        #expect(twoKey.k1 == hex("F612EB32E46035F3"))
        #expect(twoKey.k2 == hex("EC25D665C8C06BFD"))
        let threeKey = try BlockCipherCMAC.subkeys(
            of: TripleDESCipher(key: hex("00112233445566778899AABBCCDDEEFF0102030405060708")))
        #expect(threeKey.k1 == hex("A3ED58F8E6941BCA"))
        #expect(threeKey.k2 == hex("47DAB1F1CD28378F"))
    }

    @Test func singleDESAsTripleDES() throws {
        let cipher = try TripleDESCipher(key: hex("133457799BBCDFF1"))
        #expect(try cipher.encryptECB(hex("0123456789ABCDEF")) == hex("85E813540F0AB405"))
        #expect(try cipher.decryptECB(hex("85E813540F0AB405")) == hex("0123456789ABCDEF"))
        let doubled = try TripleDESCipher(key: hex("133457799BBCDFF1 133457799BBCDFF1"))
        #expect(try doubled.encryptECB(hex("0123456789ABCDEF")) == hex("85E813540F0AB405"))
    }

    static let tdesMessage = hex("6BC1BEE22E409F96E93D7E117393172AAE2D8A571E03AC9C9EB76FAC45AF8E51")

    /// desfire.md §6.1 TDES CMAC (NIST examples via proxmark), dependencies.md §3.
    @Test(arguments: [
        ("0123456789ABCDEF 23456789ABCDEF01 456789ABCDEF0123", 0, "7DB0D37DF936C550"),
        ("0123456789ABCDEF 23456789ABCDEF01 456789ABCDEF0123", 16, "30239CF1F52E6609"),
        ("0123456789ABCDEF 23456789ABCDEF01 456789ABCDEF0123", 20, "6C9F3EE4923F6BE2"),
        ("0123456789ABCDEF 23456789ABCDEF01 456789ABCDEF0123", 32, "99429BD0BF7904E5"),
        ("0123456789ABCDEF 23456789ABCDEF01", 0, "79CE52A7F786A960"),
        ("0123456789ABCDEF 23456789ABCDEF01", 16, "CC18A0B79AF2413B"),
        ("0123456789ABCDEF 23456789ABCDEF01", 20, "C06D377ECD101969"),
        ("0123456789ABCDEF 23456789ABCDEF01", 32, "9CD33580F9B64DFB"),
        ("0123456789ABCDEF", 0, "86F79C13FD306E67"),
        ("0123456789ABCDEF", 16, "BEA4212292462A85"),
        ("0123456789ABCDEF", 20, "3E2F8310C569275E"),
        ("0123456789ABCDEF", 32, "9D1FC4D4C0259132"),
    ])
    func tripleDESCMAC(key: String, length: Int, expected: String) throws {
        let cipher = try TripleDESCipher(key: hex(key))
        #expect(try BlockCipherCMAC.mac(Array(Self.tdesMessage.prefix(length)), cipher: cipher) == hex(expected))
    }

    @Test func tripleDESCMACOverRFC4493FortyBytes() throws {
        let cipher = try TripleDESCipher(key: hex("0123456789ABCDEF 23456789ABCDEF01 456789ABCDEF0123"))
        #expect(
            try BlockCipherCMAC.mac(Array(Self.rfc4493Message.prefix(40)), cipher: cipher) == hex("4594903F905FA7BD"))
    }
}
