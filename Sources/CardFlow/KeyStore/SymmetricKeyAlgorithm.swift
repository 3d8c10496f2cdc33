/// The symmetric algorithms a key in a ``KeyStore`` slot can be for, each with its fixed key length.
///
/// The raw values (`"des"`, `"2k3des"`, `"3k3des"`, `"aes128"`) are what key store files and
/// `cardctl key set` use.
///
/// ```swift
/// let algorithm = SymmetricKeyAlgorithm(name: "AES-128")   // .aes128
/// algorithm?.keyLength                                     // 16
/// ```
public enum SymmetricKeyAlgorithm: String, CaseIterable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// Single DES, 8 key bytes (parity bits included).
    case des = "des"
    /// Two-key triple DES (K1 K2 K1), 16 key bytes.
    case twoKey3DES = "2k3des"
    /// Three-key triple DES (K1 K2 K3), 24 key bytes.
    case threeKey3DES = "3k3des"
    /// AES with a 128-bit key, 16 key bytes.
    case aes128 = "aes128"

    /// How many key bytes a key for this algorithm has.
    public var keyLength: Int {
        switch self {
        case .des: 8
        case .twoKey3DES: 16
        case .threeKey3DES: 24
        case .aes128: 16
        }
    }

    /// The name people read: `"DES"`, `"2K3DES"`, `"3K3DES"` or `"AES-128"`.
    public var displayName: String {
        switch self {
        case .des: "DES"
        case .twoKey3DES: "2K3DES"
        case .threeKey3DES: "3K3DES"
        case .aes128: "AES-128"
        }
    }

    /// Finds the algorithm by its raw value or display name, ignoring case
    /// (`"aes128"`, `"AES-128"`, `"2k3des"`, `"DES"`…); `nil` for other names.
    public init?(name: String) {
        let lowered = name.lowercased()
        guard
            let match = Self.allCases.first(where: { $0.rawValue == lowered || $0.displayName.lowercased() == lowered })
        else {
            return nil
        }
        self = match
    }

    /// The ``displayName``.
    public var description: String { displayName }
}
