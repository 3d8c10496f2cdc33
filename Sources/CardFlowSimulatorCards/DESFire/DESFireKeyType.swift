/// The cipher family of a DESFire key, coded as bits 7…6 of the key-count byte (CreateApplication
/// KS2, GetKeySettings) and of the ChangeKey key-number byte at PICC level.
enum DESFireKeyType: UInt8, Codable, Sendable, Hashable {
    /// DES or 2K3DES (16 bytes; DES when both halves are equal ignoring the version bits).
    case des = 0x00
    /// 3K3DES (24 bytes).
    case threeKeyTripleDES = 0x40
    /// AES-128 (16 bytes plus a separate version byte).
    case aes = 0x80

    /// Stored key length: 24 for 3K3DES, 16 otherwise.
    var keyLength: Int { self == .threeKeyTripleDES ? 24 : 16 }

    /// RndA / RndB length in the three-pass authentication.
    var challengeLength: Int { self == .des ? 8 : 16 }
}
