import Crypto
import CryptoExtras

/// AES-128 keyed with a 16-byte key, on swift-crypto's AES block function.
///
/// Single blocks, ECB and CBC (``AESCBC``) all run `AES.permute` / `AES.inversePermute` over the
/// bytes in place: an operation allocates only the array it returns, and the `inPlace:` CBC
/// variants nothing. No mode goes through swift-crypto's `Data`-based `AES._CBC`.
public struct AES128Cipher: BlockCipher {
    /// AES block size, 16 bytes.
    public static let blockSize = 16
    /// Accepted key length, 16 bytes.
    public static let keyLength = 16

    /// The raw key bytes.
    public let key: [UInt8]
    let symmetricKey: SymmetricKey

    /// AES block size, 16 bytes.
    public var blockSize: Int { Self.blockSize }

    /// Creates a cipher for a 16-byte AES-128 key.
    public init(key: [UInt8]) throws(CardCryptoError) {
        guard key.count == Self.keyLength else {
            throw .invalidKeyLength(algorithm: "AES-128", accepted: [Self.keyLength], actual: key.count)
        }
        self.key = key
        self.symmetricKey = SymmetricKey(data: key)
    }

    /// Encrypts one 16-byte block (FIPS-197 cipher).
    public func encryptBlock(_ block: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try permutedBlock(block, inverse: false)
    }

    /// Decrypts one 16-byte block (FIPS-197 inverse cipher).
    public func decryptBlock(_ block: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try permutedBlock(block, inverse: true)
    }

    /// ``encryptBlock(_:)`` with the ciphertext written over `block` (16 bytes): no allocation.
    ///
    /// - Throws: ``CardCryptoError/dataNotBlockAligned(length:blockSize:)`` unless `block` has 16
    ///   bytes, leaving it as it was.
    public func encryptBlock(inPlace block: inout [UInt8]) throws(CardCryptoError) {
        guard block.count == Self.blockSize else {
            throw .dataNotBlockAligned(length: block.count, blockSize: Self.blockSize)
        }
        try permuteBlocks(&block, inverse: false)
    }

    public func encryptECB(_ data: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try checkBlockAligned(data)
        var output = data
        try permuteBlocks(&output, inverse: false)
        return output
    }

    public func decryptECB(_ data: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try checkBlockAligned(data)
        var output = data
        try permuteBlocks(&output, inverse: true)
        return output
    }

    public func encryptCBC(_ data: [UInt8], iv: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try AESCBC.encrypt(data, key: self, iv: iv)
    }

    public func decryptCBC(_ data: [UInt8], iv: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try AESCBC.decrypt(data, key: self, iv: iv)
    }

    /// ``encryptCBC(_:iv:)`` with the ciphertext written over `data`: no allocation.
    public func encryptCBC(inPlace data: inout [UInt8], iv: [UInt8]) throws(CardCryptoError) {
        try AESCBC.encrypt(inPlace: &data, key: self, iv: iv)
    }

    /// ``decryptCBC(_:iv:)`` with the plaintext written over `data`: no allocation.
    public func decryptCBC(inPlace data: inout [UInt8], iv: [UInt8]) throws(CardCryptoError) {
        try AESCBC.decrypt(inPlace: &data, key: self, iv: iv)
    }

    /// The CMAC block chained in `state` by ``AESCMAC``'s in-place code: no allocation.
    public func cmac(_ message: [UInt8], chainingFrom state: inout [UInt8]) throws(CardCryptoError) {
        try AESCMAC.chain(message, key: symmetricKey, state: &state)
    }

    private func permutedBlock(_ block: [UInt8], inverse: Bool) throws(CardCryptoError) -> [UInt8] {
        guard block.count == Self.blockSize else {
            throw .dataNotBlockAligned(length: block.count, blockSize: Self.blockSize)
        }
        var output = block
        try permuteBlocks(&output, inverse: inverse)
        return output
    }

    /// ECB in place: the block function over each 16-byte block of `bytes` (whole blocks, checked
    /// by the caller).
    func permuteBlocks(_ bytes: inout [UInt8], inverse: Bool) throws(CardCryptoError) {
        let key = symmetricKey
        do {
            // Unsafe: a buffer over one block lets AES.permute work in `bytes` itself, without a copy per block.
            try bytes.withUnsafeMutableBufferPointer { buffer in
                for start in stride(from: 0, to: buffer.count, by: Self.blockSize) {
                    // Unsafe: rebases one block of the buffer above, which stays valid for the call.
                    var block = UnsafeMutableBufferPointer(rebasing: buffer[start..<start + Self.blockSize])
                    if inverse {
                        try AES.inversePermute(&block, key: key)
                    } else {
                        try AES.permute(&block, key: key)
                    }
                }
            }
        } catch {
            throw .swiftCryptoFailure(
                operation: inverse ? "AES block decrypt" : "AES block encrypt", message: "\(error)")
        }
    }
}
