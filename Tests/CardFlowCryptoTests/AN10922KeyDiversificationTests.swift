import CardFlowCrypto
import Testing

/// AN10922 §2.2 AES-128 key diversification against the published vectors (AN10922 §2.2.1 and
/// AN10957 pp. 13-14, as libfreefare's test/test_mifare_key_deriver_an10922.c carries them), the
/// boundaries of `M`, and swift-crypto's AES-CMAC where the two must agree.
@Suite struct AN10922KeyDiversificationTests {
    static let an10922MasterKey = hex("00112233445566778899AABBCCDDEEFF")
    static let an10922UID = hex("04782E21801D80")
    /// "NXP Abu".
    static let an10922SystemIdentifier = hex("4E585020416275")

    /// AN10922 §2.2.1: UID 04782E21801D80, AID 3042F5, system identifier "NXP Abu"; `0x01 ‖ M` is
    /// 18 bytes, padded to 32 with K2.
    @Test func an10922Section221Example() throws {
        let input = hex("04782E21801D80 3042F5 4E585020416275")
        #expect(Array("NXP Abu".utf8) == Self.an10922SystemIdentifier)
        let key = try AN10922.diversifyAES128(masterKey: Self.an10922MasterKey, input: input)
        #expect(key == hex("A8DD63A3B89D54B37CA802473FDA9175"))
    }

    /// The same example built from its parts: the AID bytes 30 42 F5 are the application
    /// 0xF54230 sent least significant byte first, as libfreefare's `mifare_key_deriver_update_aid`
    /// appends them.
    @Test func desfireInputPutsTheAIDLeastSignificantByteFirst() throws {
        let input = try AN10922.desfireInput(
            uid: Self.an10922UID, applicationID: 0xF5_4230, systemIdentifier: Self.an10922SystemIdentifier)
        #expect(input == hex("04782E21801D80 3042F5 4E585020416275"))
        let key = try AN10922.diversifyAES128(masterKey: Self.an10922MasterKey, input: input)
        #expect(key == hex("A8DD63A3B89D54B37CA802473FDA9175"))
        // Read as "3042F5" (most significant first) the AID would give another M, and another key.
        let swapped = try AN10922.desfireInput(
            uid: Self.an10922UID, applicationID: 0x30_42F5, systemIdentifier: Self.an10922SystemIdentifier)
        #expect(swapped == hex("04782E21801D80 F54230 4E585020416275"))
        #expect(try AN10922.diversifyAES128(masterKey: Self.an10922MasterKey, input: swapped) != key)
        #expect(
            try AN10922.desfireInput(uid: [0x04], applicationID: 0x01_0203, systemIdentifier: []) == hex("04030201"))
    }

    /// AN10957 pp. 13-14 (libfreefare `test_mifare_key_deriver_an10922_aes128_short_m`): M is 7
    /// bytes, so `0x01 ‖ M` fits one block, and AN10922 still pads it to two. Plain AES-CMAC of
    /// `0x01 ‖ M` gives libfreefare's issue-91 value instead, which must not come out.
    @Test func an10957ShortInputIsPaddedToTwoBlocks() throws {
        let master = hex("F3F93776 98707B68 8EAF84AB E39E3791")
        let input = hex("04DEADBEEFFEED")
        let key = try AN10922.diversifyAES128(masterKey: master, input: input)
        #expect(key == hex("0BB408BAFF98B6EE9F2E1585777F6A51"))
        let plainCMAC = hex("721E2C01E81AF85D815633969CEA2607")
        #expect(try AESCMAC.mac([0x01] + input, key: master) == plainCMAC)
        #expect(key != plainCMAC)
    }

    /// Values from a second implementation (Python `cryptography` 48.0.0: AES-ECB for the subkeys,
    /// AES-CBC for the MAC), not published: no 31-byte vector is. M is the §2.2.1 example's UID,
    /// AID and "NXP Abu" followed by 01 02 … 0E, cut to the length under test.
    @Test(arguments: [
        (31, "74E54DB0252B96CD6ED5D45798A1B744"), // 0x01 ‖ M is 32 bytes: no padding, K1
        (30, "293CBCFBEA11336865732D0C4F22A3E1"), // one padding byte, K2
        (15, "32A3C86D6DB4BED06B86528B2B0CCD92"), // 0x01 ‖ M is one full block: AN10922 pads anyway
        (1, "26E445EA8376DED23277EB6BF74FB4F1"),
    ])
    func lengthsAroundTheBlockBoundaries(length: Int, expected: String) throws {
        let long = hex("04782E21801D80 3042F5 4E585020416275 0102030405060708090A0B0C0D0E")
        let input = Array(long.prefix(length))
        #expect(try AN10922.diversifyAES128(masterKey: Self.an10922MasterKey, input: input) == hex(expected))
    }

    /// When `0x01 ‖ M` is longer than one block, AES-CMAC pads exactly as AN10922 does, so
    /// swift-crypto's CMAC must agree; at one block or less it must not.
    @Test func agreesWithAESCMACOnlyBeyondOneBlock() throws {
        var generator = CrossCheckAndErrorTests.SeededGenerator(state: 0x414E_3130_3932_3200)
        for length in AN10922.inputLengths {
            let master = generator.bytes(16)
            let input = generator.bytes(length)
            let key = try AN10922.diversifyAES128(masterKey: master, input: input)
            let cmac = try AESCMAC.mac([0x01] + input, key: master)
            if length >= 16 {
                #expect(key == cmac, "M of \(length) bytes")
            } else {
                #expect(key != cmac, "M of \(length) bytes")
            }
        }
    }

    @Test func inputAndKeyBoundsAreTypedErrors() throws {
        let master = Self.an10922MasterKey
        #expect(throws: CardCryptoError.invalidDiversificationInput(length: 0, accepted: 1...31)) {
            try AN10922.diversifyAES128(masterKey: master, input: [])
        }
        #expect(throws: CardCryptoError.invalidDiversificationInput(length: 32, accepted: 1...31)) {
            try AN10922.diversifyAES128(masterKey: master, input: [UInt8](repeating: 0x5A, count: 32))
        }
        for length in [0, 8, 15, 24, 32] {
            #expect(throws: CardCryptoError.invalidKeyLength(algorithm: "AES-128", accepted: [16], actual: length)) {
                try AN10922.diversifyAES128(
                    masterKey: [UInt8](repeating: 0, count: length), input: Self.an10922UID)
            }
        }
        #expect(throws: CardCryptoError.invalidApplicationID(0x100_0000)) {
            try AN10922.desfireInput(uid: Self.an10922UID, applicationID: 0x100_0000, systemIdentifier: [])
        }
        // 7-byte UID + 3-byte AID leave 21 bytes for the system identifier; 22 are one too many.
        #expect(
            try AN10922.desfireInput(
                uid: Self.an10922UID, applicationID: 1, systemIdentifier: [UInt8](repeating: 0x41, count: 21)
            ).count == 31)
        #expect(throws: CardCryptoError.invalidDiversificationInput(length: 32, accepted: 1...31)) {
            try AN10922.desfireInput(
                uid: Self.an10922UID, applicationID: 1, systemIdentifier: [UInt8](repeating: 0x41, count: 22))
        }
    }
}
