import CardFlow

/// The cipher a DESFire key is for.
public enum DESFireKeyType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Single DES (8 bytes; stored by the card as 16 bytes `K‖K`).
    case des
    /// Two-key 3DES (16 bytes).
    case twoKey3DES = "2k3des"
    /// Three-key 3DES (24 bytes).
    case threeKey3DES = "3k3des"
    /// AES-128 (16 bytes).
    case aes

    /// Key length in bytes as given by callers.
    public var keyLength: Int {
        switch self {
        case .des: 8
        case .twoKey3DES, .aes: 16
        case .threeKey3DES: 24
        }
    }

    /// Random number length in authentication: 8 for DES/2K3DES, 16 for 3K3DES/AES.
    var randomLength: Int { self == .des || self == .twoKey3DES ? 8 : 16 }

    /// Crypto bits of CreateApplication's KS2 and of ChangeKey's key number at PICC level.
    public var cryptoFlag: UInt8 {
        switch self {
        case .des, .twoKey3DES: 0x00
        case .threeKey3DES: 0x40
        case .aes: 0x80
        }
    }

    /// The key store algorithm of the same cipher.
    public var keyStoreAlgorithm: SymmetricKeyAlgorithm {
        switch self {
        case .des: .des
        case .twoKey3DES: .twoKey3DES
        case .threeKey3DES: .threeKey3DES
        case .aes: .aes128
        }
    }

    /// Parses `des`, `2k3des`, `3k3des` or `aes` (case-insensitive; `aes128` too).
    public init?(name: String) {
        switch name.lowercased() {
        case "des": self = .des
        case "2k3des", "3des": self = .twoKey3DES
        case "3k3des": self = .threeKey3DES
        case "aes", "aes128", "aes-128": self = .aes
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .des: "DES"
        case .twoKey3DES: "2K3DES"
        case .threeKey3DES: "3K3DES"
        case .aes: "AES"
        }
    }
}
