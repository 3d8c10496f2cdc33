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
        let k1 = doubled(l, rb: rb)
        return Subkeys(l: l, k1: k1, k2: doubled(k1, rb: rb))
    }

    /// Computes the full-block CMAC of `message` starting from `iv` (defaults to zero, i.e. standard CMAC).
    ///
    /// In a DESFire EV1 session the returned block is the new session IV; the first 8 bytes go on the wire
    /// (see ``MACTruncation``).
    public static func mac(_ message: [UInt8], cipher: some BlockCipher, iv: [UInt8]? = nil) throws(CardCryptoError)
        -> [UInt8]
    {
        let blockSize = cipher.blockSize
        let startValue = iv ?? [UInt8](repeating: 0, count: blockSize)
        guard startValue.count == blockSize else {
            throw .invalidIVLength(expected: blockSize, actual: startValue.count)
        }
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

    /// Shifts a block left by one bit and XORs `rb` into the last byte if the shifted-out bit was set.
    private static func doubled(_ block: [UInt8], rb: UInt8) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: block.count)
        var carry: UInt8 = 0
        for index in stride(from: block.count - 1, through: 0, by: -1) {
            result[index] = (block[index] << 1) | carry
            carry = block[index] >> 7
        }
        if block[0] & 0x80 != 0 {
            result[block.count - 1] ^= rb
        }
        return result
    }
}
