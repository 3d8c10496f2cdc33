import Crypto
import CryptoExtras

/// AES-CBC (NIST SP 800-38A §6.2) with a caller-supplied IV and no padding, on swift-crypto's AES
/// block function (`AES.permute` / `AES.inversePermute`).
///
/// Written out rather than through swift-crypto's `AES._CBC`, whose `Data`-based interface cost
/// several allocations per call (a `Data` for the result, slices and copies of the blocks): here the
/// blocks are chained in the caller's array. ``encrypt(_:key:iv:)`` and ``decrypt(_:key:iv:)``
/// allocate only the array they return; ``encrypt(inPlace:key:iv:)`` and
/// ``decrypt(inPlace:key:iv:)`` nothing. The tests hold it to SP 800-38A F.2.1/F.2.2 and to
/// swift-crypto's `AES._CBC` on seeded random keys, IVs and messages.
public enum AESCBC {
    /// CBC-encrypts `data` (a multiple of 16 bytes) from `iv` (16 bytes).
    ///
    /// - Throws: ``CardCryptoError/invalidIVLength(expected:actual:)`` for an IV that is not 16
    ///   bytes, ``CardCryptoError/dataNotBlockAligned(length:blockSize:)`` for data that is not
    ///   whole blocks.
    public static func encrypt(_ data: [UInt8], key: AES128Cipher, iv: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        var output = data
        try encrypt(inPlace: &output, key: key, iv: iv)
        return output
    }

    /// CBC-decrypts `data` (a multiple of 16 bytes) from `iv` (16 bytes).
    ///
    /// - Throws: as ``encrypt(_:key:iv:)``.
    public static func decrypt(_ data: [UInt8], key: AES128Cipher, iv: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        var output = data
        try decrypt(inPlace: &output, key: key, iv: iv)
        return output
    }

    /// CBC-encrypts `data` (a multiple of 16 bytes) from `iv` (16 bytes) in place:
    /// `c_i = E(p_i ⊕ c_{i-1})`, `c_0 = iv`.
    ///
    /// - Throws: as ``encrypt(_:key:iv:)``; an input error leaves `data` as it was.
    public static func encrypt(inPlace data: inout [UInt8], key: AES128Cipher, iv: [UInt8]) throws(CardCryptoError) {
        try validate(data, iv: iv)
        if data.isEmpty { return }
        let blockSize = AES128Cipher.blockSize
        let symmetricKey = key.symmetricKey
        do {
            // Unsafe: a buffer over one block lets AES.permute work in `data` itself, without a copy per block.
            try data.withUnsafeMutableBufferPointer { buffer in
                for start in stride(from: 0, to: buffer.count, by: blockSize) {
                    // p_i ⊕ c_{i-1}: the previous block is already ciphertext.
                    for offset in 0..<blockSize {
                        buffer[start + offset] ^= start == 0 ? iv[offset] : buffer[start - blockSize + offset]
                    }
                    // Unsafe: rebases one block of the buffer above, which stays valid for the call.
                    var block = UnsafeMutableBufferPointer(rebasing: buffer[start..<start + blockSize])
                    try AES.permute(&block, key: symmetricKey)
                }
            }
        } catch {
            throw .swiftCryptoFailure(operation: "AES-CBC encrypt", message: "\(error)")
        }
    }

    /// CBC-decrypts `data` (a multiple of 16 bytes) from `iv` (16 bytes) in place:
    /// `p_i = D(c_i) ⊕ c_{i-1}`, `c_0 = iv`.
    ///
    /// - Throws: as ``encrypt(_:key:iv:)``; an input error leaves `data` as it was.
    public static func decrypt(inPlace data: inout [UInt8], key: AES128Cipher, iv: [UInt8]) throws(CardCryptoError) {
        try validate(data, iv: iv)
        if data.isEmpty { return }
        let blockSize = AES128Cipher.blockSize
        let symmetricKey = key.symmetricKey
        do {
            // Unsafe: a buffer over one block lets AES.inversePermute work in `data` itself, without a copy per block.
            try data.withUnsafeMutableBufferPointer { buffer in
                // From the last block back, so that c_{i-1} is still ciphertext when block i needs it.
                for start in stride(from: buffer.count - blockSize, through: 0, by: -blockSize) {
                    // Unsafe: rebases one block of the buffer above, which stays valid for the call.
                    var block = UnsafeMutableBufferPointer(rebasing: buffer[start..<start + blockSize])
                    try AES.inversePermute(&block, key: symmetricKey)
                    for offset in 0..<blockSize {
                        buffer[start + offset] ^= start == 0 ? iv[offset] : buffer[start - blockSize + offset]
                    }
                }
            }
        } catch {
            throw .swiftCryptoFailure(operation: "AES-CBC decrypt", message: "\(error)")
        }
    }

    private static func validate(_ data: [UInt8], iv: [UInt8]) throws(CardCryptoError) {
        guard iv.count == AES128Cipher.blockSize else {
            throw .invalidIVLength(expected: AES128Cipher.blockSize, actual: iv.count)
        }
        guard data.count % AES128Cipher.blockSize == 0 else {
            throw .dataNotBlockAligned(length: data.count, blockSize: AES128Cipher.blockSize)
        }
    }
}
