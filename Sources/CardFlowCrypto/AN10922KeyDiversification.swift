/// AES-128 key diversification as NXP application note AN10922 (§2.2) defines it: one master key,
/// a different key per card.
///
/// The diversified key is the CMAC-like MAC of `D = 0x01 ‖ M` under the master key, where `M`
/// (1 to 31 bytes) names the card and the use, for DESFire usually `UID ‖ AID ‖ system identifier`
/// (see ``desfireInput(uid:applicationID:systemIdentifier:)``). Unlike plain AES-CMAC, `D` is
/// always padded to two blocks: when it is shorter than 32 bytes it gets `0x80 00…` up to 32 bytes
/// and its last block is XORed with the CMAC subkey K2; a full 32-byte `D` takes K1. The two agree
/// only when `D` is longer than one block, so for `M` of 15 bytes or less the result differs from
/// `AESCMAC.mac(0x01 ‖ M)` (libfreefare issue 91 was that mistake).
///
/// ```swift
/// let master: [UInt8] = …                                   // 16 bytes, kept in a key store
/// let m = try AN10922.desfireInput(uid: uid, applicationID: 0xF54230, systemIdentifier: Array("NXP Abu".utf8))
/// let cardKey = try AN10922.diversifyAES128(masterKey: master, input: m)   // 16 bytes
/// ```
public enum AN10922 {
    /// The diversification constant of AES-128 keys (AN10922 §2.2).
    public static let aes128Constant: UInt8 = 0x01

    /// The lengths `M` may have: `0x01 ‖ M` must fit the two blocks the MAC is computed over.
    public static let inputLengths: ClosedRange<Int> = 1...31

    /// The AES-128 key AN10922 §2.2 derives from `masterKey` (16 bytes) and the diversification
    /// input `input` (`M`, 1 to 31 bytes): the last block of the CBC-MAC, IV zero, of
    /// `0x01 ‖ M` padded to 32 bytes with its last block XORed with K2 (K1 when no padding was needed).
    ///
    /// - Throws: ``CardCryptoError/invalidKeyLength(algorithm:accepted:actual:)`` for a master key
    ///   that is not 16 bytes, ``CardCryptoError/invalidDiversificationInput(length:accepted:)`` for
    ///   an empty input or one longer than 31 bytes.
    public static func diversifyAES128(masterKey: [UInt8], input: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        let cipher = try AES128Cipher(key: masterKey)
        guard inputLengths.contains(input.count) else {
            throw .invalidDiversificationInput(length: input.count, accepted: inputLengths)
        }
        let blockSize = AES128Cipher.blockSize
        let length = 2 * blockSize
        var data = [aes128Constant] + input
        let subkeys = try BlockCipherCMAC.subkeys(of: cipher)
        let lastKey: [UInt8]
        if data.count < length {
            data.append(0x80)
            data += [UInt8](repeating: 0, count: length - data.count)
            lastKey = subkeys.k2
        } else {
            lastKey = subkeys.k1
        }
        for index in 0..<blockSize {
            data[blockSize + index] ^= lastKey[index]
        }
        let ciphertext = try AESCBC.encrypt(data, key: cipher, iv: [UInt8](repeating: 0, count: blockSize))
        return Array(ciphertext[blockSize...])
    }

    /// The diversification input of a DESFire application key: `M = UID ‖ AID ‖ system identifier`
    /// (AN10922 §2.2.1's example: UID `04782E21801D80`, AID `3042F5`, system identifier "NXP Abu").
    ///
    /// The AID goes in least significant byte first, the order DESFire sends it in (SelectApplication)
    /// and the order libfreefare's `mifare_key_deriver_update_aid` appends it in: the application
    /// 0xF54230 contributes the bytes `30 42 F5`.
    ///
    /// - Parameters:
    ///   - uid: the card's UID (DESFire: the 7 bytes GetCardUID returns).
    ///   - applicationID: the application identifier's value, 0...0xFFFFFF.
    ///   - systemIdentifier: bytes naming the system, may be empty.
    /// - Throws: ``CardCryptoError/invalidApplicationID(_:)`` for a value above 0xFFFFFF,
    ///   ``CardCryptoError/invalidDiversificationInput(length:accepted:)`` when `M` would be empty
    ///   or longer than 31 bytes.
    public static func desfireInput(uid: [UInt8], applicationID: UInt32, systemIdentifier: [UInt8])
        throws(CardCryptoError) -> [UInt8]
    {
        guard applicationID <= 0xFF_FFFF else { throw .invalidApplicationID(applicationID) }
        let aid = (0..<3).map { UInt8(truncatingIfNeeded: applicationID >> (8 * $0)) }
        let input = uid + aid + systemIdentifier
        guard inputLengths.contains(input.count) else {
            throw .invalidDiversificationInput(length: input.count, accepted: inputLengths)
        }
        return input
    }
}
