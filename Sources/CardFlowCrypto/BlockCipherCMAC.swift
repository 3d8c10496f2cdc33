/// CMAC (NIST SP 800-38B) over any ``BlockCipher``, optionally chained from a non-zero starting value.
///
/// DESFire EV1 secure messaging CBC-encrypts the CMAC input from the session IV rather than from zero;
/// with a zero `iv` this is standard CMAC. Rb is 0x87 for 16-byte blocks and 0x1B for 8-byte blocks.
public enum BlockCipherCMAC {
    /// The SP 800-38B subkeys: `L = E(0^bs)`, `K1 = L << 1 (⊕ Rb)`, `K2 = K1 << 1 (⊕ Rb)`.
    public struct Subkeys: Equatable, Sendable {
        /// `E_K(0^bs)`.
        public let l: [UInt8]
        /// Subkey for a complete last block.
        public let k1: [UInt8]
        /// Subkey for a padded (or empty) last block.
        public let k2: [UInt8]
    }

    /// Derives the CMAC subkeys of `cipher`.
    public static func subkeys(of cipher: some BlockCipher) throws(CardCryptoError) -> Subkeys {
        let l = try cipher.encryptECB([UInt8](repeating: 0, count: cipher.blockSize))
        let rb: UInt8 = cipher.blockSize == 16 ? 0x87 : 0x1B
        var k1 = l
        double(&k1, rb: rb)
        var k2 = k1
        double(&k2, rb: rb)
        return Subkeys(l: l, k1: k1, k2: k2)
    }

    /// Computes the full-block CMAC of `message` starting from `iv` (defaults to zero, i.e. standard CMAC).
    ///
    /// In a DESFire EV1 session the returned block is the new session IV; the first 8 bytes go on the wire
    /// (see ``MACTruncation``).
    public static func mac(_ message: [UInt8], cipher: some BlockCipher, iv: [UInt8]? = nil) throws(CardCryptoError)
        -> [UInt8]
    {
        let blockSize = cipher.blockSize
        var state = iv ?? [UInt8](repeating: 0, count: blockSize)
        guard state.count == blockSize else {
            throw .invalidIVLength(expected: blockSize, actual: state.count)
        }
        try cipher.cmac(message, chainingFrom: &state)
        return state
    }

    /// SP 800-38B over the cipher's CBC: the message padded, its last block XORed with K1 or K2,
    /// CBC-encrypted from `startValue` (one block, checked by the caller); the last block.
    /// ``BlockCipher/cmac(_:chainingFrom:)``'s default.
    static func chainedOverCBC(_ message: [UInt8], cipher: some BlockCipher, startValue: [UInt8])
        throws(CardCryptoError) -> [UInt8]
    {
        let blockSize = cipher.blockSize
        let keys = try subkeys(of: cipher)
        var padded = message
        let complete = !message.isEmpty && message.count % blockSize == 0
        if !complete {
            padded = BlockPadding.iso9797Method2(message, blockSize: blockSize)
        }
        let lastStart = padded.count - blockSize
        let lastKey = complete ? keys.k1 : keys.k2
        for index in 0..<blockSize {
            padded[lastStart + index] ^= lastKey[index]
        }
        let ciphertext = try cipher.encryptCBC(padded, iv: startValue)
        return Array(ciphertext[lastStart...])
    }

    /// Multiplies a block by x in GF(2^n) in place: a left shift by one bit, and `rb` into the last
    /// byte when the top bit fell out (SP 800-38B §6.1). ``AESCMAC`` uses it too.
    static func double<Block: MutableCollection<UInt8>>(_ block: inout Block, rb: UInt8) where Block.Index == Int {
        let overflow = block[0] & 0x80 != 0
        for index in block.indices {
            let next = index + 1 < block.count ? block[index + 1] >> 7 : 0
            block[index] = block[index] << 1 | next
        }
        if overflow { block[block.count - 1] ^= rb }
    }
}
