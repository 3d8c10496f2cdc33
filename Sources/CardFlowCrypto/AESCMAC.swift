import Crypto
import CryptoExtras

/// AES-CMAC (NIST SP 800-38B / RFC 4493) with a zero starting value, on swift-crypto's AES block
/// function (`AES.permute`).
///
/// Written out rather than through swift-crypto's `AES.CMAC`, whose `Data`-based state cost
/// eleven to fifteen allocations per MAC (a SUN verification computes two); here the chaining
/// block is one 16-byte array worked in place and the subkey lives on the stack, so a MAC
/// allocates the array it returns and the `SymmetricKey` of its key. The tests hold it to RFC
/// 4493's examples and to swift-crypto's `AES.CMAC` on seeded random keys and messages.
///
/// DESFire EV1 sessions chain the CMAC from the session IV instead of zero; use ``BlockCipherCMAC`` for that
/// (with an ``AES128Cipher`` it runs the same code from the IV).
public enum AESCMAC {
    /// Computes the AES-CMAC of `message`, truncated to the first `outputSize` bytes (0...16, default 16).
    public static func mac(_ message: [UInt8], key: [UInt8], outputSize: Int = 16) throws(CardCryptoError) -> [UInt8] {
        guard key.count == AES128Cipher.keyLength else {
            throw .invalidKeyLength(algorithm: "AES-128", accepted: [AES128Cipher.keyLength], actual: key.count)
        }
        guard (0...AES128Cipher.blockSize).contains(outputSize) else {
            throw .invalidMACLength(requested: outputSize, blockSize: AES128Cipher.blockSize)
        }
        var state = [UInt8](repeating: 0, count: AES128Cipher.blockSize)
        try chain(message, key: SymmetricKey(data: key), state: &state)
        state.removeLast(AES128Cipher.blockSize - outputSize)
        return state
    }

    /// The full CMAC block of `message` computed from `state` (16 bytes, checked by the caller)
    /// instead of zero, written over `state`: no allocation.
    static func chain(_ message: [UInt8], key: SymmetricKey, state: inout [UInt8]) throws(CardCryptoError) {
        let blockSize = AES128Cipher.blockSize
        do {
            // Unsafe: 16 bytes of stack for the subkey instead of an array (one allocation fewer per MAC).
            try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: blockSize) { stack in
                // SP 800-38B §6.1: L = E(0^128), K1 = L·x, K2 = K1·x; a complete last block takes
                // K1, a padded (or empty) one K2.
                var subkey = stack
                subkey.initialize(repeating: 0)
                try AES.permute(&subkey, key: key)
                let complete = !message.isEmpty && message.count % blockSize == 0
                BlockCipherCMAC.double(&subkey, rb: 0x87)
                if !complete { BlockCipherCMAC.double(&subkey, rb: 0x87) }
                // §6.2: CBC over the blocks from the starting value; the last one padded with 80 00…
                // and XORed with the subkey.
                let blocks = max(1, (message.count + blockSize - 1) / blockSize)
                for block in 0..<blocks {
                    let start = block * blockSize
                    let isLast = block == blocks - 1
                    for offset in 0..<blockSize {
                        let index = start + offset
                        var byte: UInt8 = index < message.count ? message[index] : (index == message.count ? 0x80 : 0)
                        if isLast { byte ^= subkey[offset] }
                        state[offset] ^= byte
                    }
                    try AES.permute(&state, key: key)
                }
            }
        } catch {
            throw .swiftCryptoFailure(operation: "AES-CMAC", message: "\(error)")
        }
    }
}
