import CardFlowCrypto
import Crypto

/// The card's activation data (section 3.1): the 128-byte authentication password P1, the
/// 32-byte common secret CS and the 16-byte IV, with what the host derives from them.
///
/// ```swift
/// let activation = try TONActivationData(passwordHex: p1, commonSecretHex: cs, ivHex: iv)
/// activation.hashOfEncryptedPassword     // H2 = SHA256(AES-CBC(P1))
/// activation.hmacKey                     // K = HMAC-SHA256(SHA256(P1), CS)
/// ```
public struct TONActivationData: Sendable, CustomStringConvertible {
    public let password: [UInt8]
    public let commonSecret: [UInt8]
    public let iv: [UInt8]

    /// Checks the lengths: 128, 32 and 16 bytes (codes 10007/30001/10008).
    public init(password: [UInt8], commonSecret: [UInt8], iv: [UInt8]) throws(TONError) {
        guard password.count == 128 else { throw .library(code: 10007) }
        guard commonSecret.count == 32 else { throw .library(code: 30001) }
        guard iv.count == 16 else { throw .library(code: 10008) }
        self.password = password
        self.commonSecret = commonSecret
        self.iv = iv
    }

    /// Parses the hex texts as the seed does (codes 30000–30005).
    public init(passwordHex: String, commonSecretHex: String, ivHex: String) throws(TONError) {
        let password = try TONHexInput.bytes(passwordHex, lengths: 256...256, lengthCode: 30000, formatCode: 30003)
        let commonSecret = try TONHexInput.bytes(
            commonSecretHex, lengths: 64...64, lengthCode: 30001, formatCode: 30004)
        let iv = try TONHexInput.bytes(ivHex, lengths: 32...32, lengthCode: 30002, formatCode: 30005)
        try self.init(password: password, commonSecret: commonSecret, iv: iv)
    }

    /// The 176-byte form P1 ‖ CS ‖ IV, as a key store keeps it (e.g. cardd's secret
    /// `ton.activation.<serial>`, set with `cardctl key set-secret`).
    public init(packed bytes: [UInt8]) throws(TONError) {
        guard bytes.count == 176 else { throw .library(code: 30000) }
        try self.init(
            password: Array(bytes[0..<128]), commonSecret: Array(bytes[128..<160]), iv: Array(bytes[160..<176]))
    }

    /// P1 ‖ CS ‖ IV (176 bytes), the form ``init(packed:)`` reads.
    public var packed: [UInt8] { password + commonSecret + iv }

    /// H1 = SHA256(P1).
    public var passwordHash: [UInt8] { Array(SHA256.hash(data: password)) }

    /// B1 = AES-128-CBC(H1[0..<16], IV, P1), no padding.
    public var encryptedPassword: [UInt8] { encrypt(password) }

    /// ECS = AES-128-CBC(H1[0..<16], IV, CS), a fresh chain with the same IV.
    public var encryptedCommonSecret: [UInt8] { encrypt(commonSecret) }

    /// H2 = SHA256(B1), what GET_HASH_OF_ENCRYPTED_PASSWORD must return.
    public var hashOfEncryptedPassword: [UInt8] { Array(SHA256.hash(data: encryptedPassword)) }

    /// H3 = SHA256(ECS), what GET_HASH_OF_ENCRYPTED_COMMON_SECRET must return.
    public var hashOfEncryptedCommonSecret: [UInt8] { Array(SHA256.hash(data: encryptedCommonSecret)) }

    /// K = HMAC-SHA256(key = SHA256(P1), message = CS), the key protected APDUs are signed with.
    public var hmacKey: [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: commonSecret, using: SymmetricKey(data: passwordHash)))
    }

    /// The data of VERIFY_PASSWORD: P1 | IV.
    var verifyPasswordData: [UInt8] { password + iv }

    private func encrypt(_ plain: [UInt8]) -> [UInt8] {
        // Lengths are checked in init (multiples of 16, 16-byte key and IV), so AES cannot fail.
        guard let cipher = try? AES128Cipher(key: Array(passwordHash.prefix(16))),
            let encrypted = try? AESCBC.encrypt(plain, key: cipher, iv: iv)
        else { return [] }
        return encrypted
    }

    /// Hides the secrets.
    public var description: String { "<TON activation data>" }
}
