import Crypto
import CryptoExtras
import Foundation

/// AES-CBC with a caller-supplied IV and no padding.
///
/// The only place that names swift-crypto's underscored `AES._CBC`, so a rename there is a one-line change here.
public enum AESCBC {
    /// CBC-encrypts `data` (a multiple of 16 bytes) from `iv` (16 bytes).
    public static func encrypt(_ data: [UInt8], key: AES128Cipher, iv: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try validate(data, iv: iv)
        if data.isEmpty { return [] }
        do {
            let result = try AES._CBC.encrypt(
                data, using: key.symmetricKey, iv: AES._CBC.IV(ivBytes: iv), noPadding: true)
            return Array(result)
        } catch {
            throw .swiftCryptoFailure(operation: "AES-CBC encrypt", message: "\(error)")
        }
    }

    /// CBC-decrypts `data` (a multiple of 16 bytes) from `iv` (16 bytes).
    public static func decrypt(_ data: [UInt8], key: AES128Cipher, iv: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try validate(data, iv: iv)
        if data.isEmpty { return [] }
        do {
            let result = try AES._CBC.decrypt(
                data, using: key.symmetricKey, iv: AES._CBC.IV(ivBytes: iv), noPadding: true)
            return Array(result)
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
