import CardFlowCrypto
import Crypto

/// The activation cryptography of the TON card (spec §3.1–§3.3), internal to the model.
enum TONActivationCrypto {
    struct Personalisation {
        /// B1 = AES-128-CBC(SHA256(P1)[0..<16], IV, P1), no padding.
        let encryptedPassword: [UInt8]
        /// ECS = AES-128-CBC(same key, same IV, CS), a fresh CBC chain.
        let encryptedCommonSecret: [UInt8]
    }

    /// What the factory writes into the applet for this activation tuple.
    static func personalisation(for data: TONFactoryData.Bytes) -> Personalisation? {
        guard let cipher = try? AES128Cipher(key: passwordKey(data.password)),
            let b1 = try? AESCBC.encrypt(data.password, key: cipher, iv: data.iv),
            let ecs = try? AESCBC.encrypt(data.commonSecret, key: cipher, iv: data.iv)
        else { return nil }
        return Personalisation(encryptedPassword: b1, encryptedCommonSecret: ecs)
    }

    /// The AES key derived from a password: the first 16 bytes of SHA256(P).
    static func passwordKey(_ password: [UInt8]) -> [UInt8] {
        Array(sha256(password).prefix(16))
    }

    static func sha256(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        Array(SHA256.hash(data: Array(bytes)))
    }

    static func hmacSHA256(key: [UInt8], _ message: some Sequence<UInt8>) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array(message), using: SymmetricKey(data: key)))
    }

    /// The card side of VERIFY_PASSWORD (§3.2): decrypts B1 and ECS with the key derived from
    /// the presented password and IV; returns K = HMAC-SHA256(SHA256(D), CS') when D equals
    /// the password, `nil` otherwise.
    static func hmacKey(
        password: [UInt8], iv: [UInt8], encryptedPassword: [UInt8],
        encryptedCommonSecret: [UInt8]
    ) -> [UInt8]? {
        guard let cipher = try? AES128Cipher(key: passwordKey(password)),
            let decrypted = try? AESCBC.decrypt(encryptedPassword, key: cipher, iv: iv),
            let commonSecret = try? AESCBC.decrypt(encryptedCommonSecret, key: cipher, iv: iv),
            decrypted == password
        else { return nil }
        return hmacSHA256(key: sha256(decrypted), commonSecret)
    }
}
