/// DES, two-key 3DES (2K3DES) or three-key 3DES (3K3DES) in EDE form, backed by system OpenSSL 3.
///
/// Every key is expanded to a 24-byte DES-EDE3 key so only the default provider is needed:
/// 8 bytes `K` → `K‖K‖K` (single DES), 16 bytes `K1‖K2` → `K1‖K2‖K1`, 24 bytes used as is.
/// A DESFire "DES" key stored as 16 bytes with equal halves therefore also behaves as single DES.
/// Parity bits (which DESFire uses for the key version) are ignored by the cipher.
public struct TripleDESCipher: BlockCipher {
    /// DES-family block size, 8 bytes.
    public static let blockSize = 8
    /// Accepted key lengths: 8 (DES), 16 (2K3DES), 24 (3K3DES).
    public static let acceptedKeyLengths = [8, 16, 24]

    /// The key as given by the caller (8, 16 or 24 bytes).
    public let key: [UInt8]
    /// The 24-byte DES-EDE3 key handed to OpenSSL.
    public let expandedKey: [UInt8]

    /// DES-family block size, 8 bytes.
    public var blockSize: Int { Self.blockSize }

    /// Creates a cipher from an 8-, 16- or 24-byte key.
    public init(key: [UInt8]) throws(CardCryptoError) {
        switch key.count {
        case 8: expandedKey = key + key + key
        case 16: expandedKey = key + key[0..<8]
        case 24: expandedKey = key
        default:
            throw .invalidKeyLength(algorithm: "3DES", accepted: Self.acceptedKeyLengths, actual: key.count)
        }
        self.key = key
    }

    public func encryptECB(_ data: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try checkBlockAligned(data)
        return try OpenSSLCipherAlgorithm.desEDE3ECB.run(key: expandedKey, iv: nil, encrypt: true, input: data)
    }

    public func decryptECB(_ data: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try checkBlockAligned(data)
        return try OpenSSLCipherAlgorithm.desEDE3ECB.run(key: expandedKey, iv: nil, encrypt: false, input: data)
    }

    public func encryptCBC(_ data: [UInt8], iv: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try checkIV(iv)
        try checkBlockAligned(data)
        return try OpenSSLCipherAlgorithm.desEDE3CBC.run(key: expandedKey, iv: iv, encrypt: true, input: data)
    }

    public func decryptCBC(_ data: [UInt8], iv: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try checkIV(iv)
        try checkBlockAligned(data)
        return try OpenSSLCipherAlgorithm.desEDE3CBC.run(key: expandedKey, iv: iv, encrypt: false, input: data)
    }
}
