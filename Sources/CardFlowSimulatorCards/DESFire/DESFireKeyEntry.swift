import CardFlowCrypto

/// One key slot of the PICC or of an application, as stored on the card.
struct DESFireKeyEntry: Codable, Sendable, Hashable {
    var type: DESFireKeyType
    /// 16 bytes (DES as `K‖K`, 2K3DES, AES) or 24 bytes (3K3DES).
    var bytes: [UInt8]
    /// AES keys carry their version separately; DES-family keys in their parity bits.
    var aesVersion: UInt8

    /// The factory key of `type`: all zero, version 0.
    static func zero(_ type: DESFireKeyType) -> DESFireKeyEntry {
        DESFireKeyEntry(type: type, bytes: [UInt8](repeating: 0, count: type.keyLength), aesVersion: 0)
    }

    /// The version GetKeyVersion returns.
    var version: UInt8 { type == .aes ? aesVersion : DESKeyVersion.version(of: bytes) }

    /// A DES-family 16-byte key whose halves are equal once the version (parity) bits are masked
    /// acts as single DES, which selects the DES session-key formula.
    var isSingleDES: Bool {
        guard type == .des, bytes.count == 16 else { return false }
        return (0..<8).allSatisfy { bytes[$0] & 0xFE == bytes[$0 + 8] & 0xFE }
    }

    /// The block cipher keyed with this key.
    func cipher() throws(CardCryptoError) -> any BlockCipher {
        if type == .aes { return try AES128Cipher(key: bytes) }
        return try TripleDESCipher(key: bytes)
    }

    /// The EV1 session key for the random numbers of a completed authentication.
    func sessionKey(rndA: [UInt8], rndB: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        switch type {
        case .aes: return try DESFireSessionKey.aes(rndA: rndA, rndB: rndB)
        case .threeKeyTripleDES: return try DESFireSessionKey.threeKeyTripleDES(rndA: rndA, rndB: rndB)
        case .des:
            if isSingleDES { return try DESFireSessionKey.des(rndA: rndA, rndB: rndB) }
            return try DESFireSessionKey.twoKeyTripleDES(rndA: rndA, rndB: rndB)
        }
    }
}
