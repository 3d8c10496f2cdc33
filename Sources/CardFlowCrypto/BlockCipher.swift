/// A block cipher keyed for DESFire-style secure messaging: AES-128 (16-byte blocks) or
/// DES / 2K3DES / 3K3DES (8-byte blocks).
///
/// Secure messaging code (CMAC chaining, enciphered data, legacy send-mode decipher) is written once
/// against this protocol; see ``BlockCipherCMAC`` and the extension methods.
/// All data is raw bytes with no padding: callers pad first (see ``BlockPadding``).
public protocol BlockCipher: Sendable {
    /// Block size in bytes: 16 for AES, 8 for the DES family.
    var blockSize: Int { get }

    /// Encrypts each block independently (ECB). `data.count` must be a multiple of ``blockSize``.
    func encryptECB(_ data: [UInt8]) throws(CardCryptoError) -> [UInt8]

    /// Decrypts each block independently (ECB). `data.count` must be a multiple of ``blockSize``.
    func decryptECB(_ data: [UInt8]) throws(CardCryptoError) -> [UInt8]

    /// Standard CBC encryption: `c_i = E(p_i ⊕ c_{i-1})`, `c_0 = iv`. No padding.
    func encryptCBC(_ data: [UInt8], iv: [UInt8]) throws(CardCryptoError) -> [UInt8]

    /// Standard CBC decryption: `p_i = D(c_i) ⊕ c_{i-1}`, `c_0 = iv`. No padding.
    func decryptCBC(_ data: [UInt8], iv: [UInt8]) throws(CardCryptoError) -> [UInt8]

    /// ``encryptCBC(_:iv:)`` with the ciphertext written over `data`, for callers that own the
    /// buffer: ``AES128Cipher`` then allocates nothing. The default implementation assigns the
    /// result of ``encryptCBC(_:iv:)``.
    ///
    /// - Throws: as ``encryptCBC(_:iv:)``; an input error leaves `data` as it was.
    func encryptCBC(inPlace data: inout [UInt8], iv: [UInt8]) throws(CardCryptoError)

    /// ``decryptCBC(_:iv:)`` with the plaintext written over `data`, for callers that own the
    /// buffer: ``AES128Cipher`` then allocates nothing. The default implementation assigns the
    /// result of ``decryptCBC(_:iv:)``.
    ///
    /// - Throws: as ``decryptCBC(_:iv:)``; an input error leaves `data` as it was.
    func decryptCBC(inPlace data: inout [UInt8], iv: [UInt8]) throws(CardCryptoError)

    /// The full CMAC block (NIST SP 800-38B) of `message`, chained from `state` (one block: zero
    /// for standard CMAC) instead of zero and written over it; ``BlockCipherCMAC/mac(_:cipher:iv:)``
    /// checks the length and calls it. The default pads the message and runs
    /// ``encryptCBC(_:iv:)``; ``AES128Cipher`` chains its block function in `state` itself
    /// (``AESCMAC``), with no padded copy and no CBC output.
    func cmac(_ message: [UInt8], chainingFrom state: inout [UInt8]) throws(CardCryptoError)
}

extension BlockCipher {
    /// Assigns ``encryptCBC(_:iv:)``'s result to `data`.
    public func encryptCBC(inPlace data: inout [UInt8], iv: [UInt8]) throws(CardCryptoError) {
        data = try encryptCBC(data, iv: iv)
    }

    /// Assigns ``decryptCBC(_:iv:)``'s result to `data`.
    public func decryptCBC(inPlace data: inout [UInt8], iv: [UInt8]) throws(CardCryptoError) {
        data = try decryptCBC(data, iv: iv)
    }

    /// SP 800-38B over ``encryptCBC(_:iv:)``.
    public func cmac(_ message: [UInt8], chainingFrom state: inout [UInt8]) throws(CardCryptoError) {
        state = try BlockCipherCMAC.chainedOverCBC(message, cipher: self, startValue: state)
    }
}

extension BlockCipher {
    /// DESFire legacy (D40, authentication 0x0A) "send mode" decipher: `c_i = D(p_i ⊕ c_{i-1})`, `c_0 = iv`.
    ///
    /// The PICC undoes it with ``legacySendModeRecover(_:iv:)``. Legacy cryptograms always start from a zero IV.
    public func legacySendModeDecipher(_ data: [UInt8], iv: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try checkBlockAligned(data)
        try checkIV(iv)
        var previous = iv
        var output: [UInt8] = []
        output.reserveCapacity(data.count)
        for start in stride(from: 0, to: data.count, by: blockSize) {
            let block = xor(Array(data[start..<start + blockSize]), previous)
            let ciphered = try decryptECB(block)
            output += ciphered
            previous = ciphered
        }
        return output
    }

    /// Inverse of ``legacySendModeDecipher(_:iv:)``, as the PICC computes it: `p_i = E(c_i) ⊕ c_{i-1}`.
    public func legacySendModeRecover(_ data: [UInt8], iv: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try checkBlockAligned(data)
        try checkIV(iv)
        var previous = iv
        var output: [UInt8] = []
        output.reserveCapacity(data.count)
        for start in stride(from: 0, to: data.count, by: blockSize) {
            let block = Array(data[start..<start + blockSize])
            output += xor(try encryptECB(block), previous)
            previous = block
        }
        return output
    }

    /// Throws ``CardCryptoError/dataNotBlockAligned(length:blockSize:)`` unless `data` is whole blocks.
    func checkBlockAligned(_ data: [UInt8]) throws(CardCryptoError) {
        guard data.count % blockSize == 0 else {
            throw .dataNotBlockAligned(length: data.count, blockSize: blockSize)
        }
    }

    /// Throws ``CardCryptoError/invalidIVLength(expected:actual:)`` unless `iv` is one block.
    func checkIV(_ iv: [UInt8]) throws(CardCryptoError) {
        guard iv.count == blockSize else { throw .invalidIVLength(expected: blockSize, actual: iv.count) }
    }
}

/// Byte-wise XOR of two equally long arrays.
func xor(_ lhs: [UInt8], _ rhs: [UInt8]) -> [UInt8] {
    precondition(lhs.count == rhs.count, "xor of arrays with different lengths")
    return zip(lhs, rhs).map { $0 ^ $1 }
}
