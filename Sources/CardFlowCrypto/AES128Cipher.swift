import Crypto
import CryptoExtras
import Foundation

/// AES-128 keyed with a 16-byte key, backed by swift-crypto.
///
/// Single blocks use `AES.permute` / `AES.inversePermute`; CBC goes through ``AESCBC``.
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
        try permuteBlock(block, inverse: false)
    }

    /// Decrypts one 16-byte block (FIPS-197 inverse cipher).
    public func decryptBlock(_ block: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try permuteBlock(block, inverse: true)
    }

    public func encryptECB(_ data: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try checkBlockAligned(data)
        var output: [UInt8] = []
        output.reserveCapacity(data.count)
        for start in stride(from: 0, to: data.count, by: Self.blockSize) {
            output += try encryptBlock(Array(data[start..<start + Self.blockSize]))
        }
        return output
    }

    public func decryptECB(_ data: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try checkBlockAligned(data)
        var output: [UInt8] = []
        output.reserveCapacity(data.count)
        for start in stride(from: 0, to: data.count, by: Self.blockSize) {
            output += try decryptBlock(Array(data[start..<start + Self.blockSize]))
        }
        return output
    }

    public func encryptCBC(_ data: [UInt8], iv: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try AESCBC.encrypt(data, key: self, iv: iv)
    }

    public func decryptCBC(_ data: [UInt8], iv: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try AESCBC.decrypt(data, key: self, iv: iv)
    }

    private func permuteBlock(_ block: [UInt8], inverse: Bool) throws(CardCryptoError) -> [UInt8] {
        guard block.count == Self.blockSize else {
            throw .dataNotBlockAligned(length: block.count, blockSize: Self.blockSize)
        }
        var output = block
        do {
            if inverse {
                try AES.inversePermute(&output, key: symmetricKey)
            } else {
                try AES.permute(&output, key: symmetricKey)
            }
        } catch {
            throw .swiftCryptoFailure(
                operation: inverse ? "AES block decrypt" : "AES block encrypt", message: "\(error)")
        }
        return output
    }
}
