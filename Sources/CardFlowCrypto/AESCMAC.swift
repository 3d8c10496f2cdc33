import Crypto
import CryptoExtras
import Foundation

/// AES-CMAC (NIST SP 800-38B / RFC 4493) with a zero starting value, backed by swift-crypto's `AES.CMAC`.
///
/// DESFire EV1 sessions chain the CMAC from the session IV instead of zero; use ``BlockCipherCMAC`` for that.
public enum AESCMAC {
    /// Computes the AES-CMAC of `message`, truncated to the first `outputSize` bytes (0...16, default 16).
    public static func mac(_ message: [UInt8], key: [UInt8], outputSize: Int = 16) throws(CardCryptoError) -> [UInt8] {
        guard key.count == AES128Cipher.keyLength else {
            throw .invalidKeyLength(algorithm: "AES-128", accepted: [AES128Cipher.keyLength], actual: key.count)
        }
        guard (0...AES128Cipher.blockSize).contains(outputSize) else {
            throw .invalidMACLength(requested: outputSize, blockSize: AES128Cipher.blockSize)
        }
        do {
            var cmac = try AES.CMAC(key: SymmetricKey(data: key), outputSize: outputSize)
            cmac.update(data: message)
            return Array(cmac.finalize())
        } catch {
            throw .swiftCryptoFailure(operation: "AES-CMAC", message: "\(error)")
        }
    }
}
