import CardFlow

/// The answer to GetKeySettings: the key settings byte and the key count with crypto bits.
public struct DESFireKeySettings: Hashable, Sendable, CustomStringConvertible {
    /// The key settings byte (bit 0 master key changeable, bit 1 free listing, bit 2 free create/delete,
    /// bit 3 settings changeable, bits 7–4 change-key access at application level).
    public let settings: UInt8
    /// Number of keys of the level (0...14).
    public let keyCount: Int
    /// Cipher of the level's keys (crypto bits 7–6 of the second byte).
    public let keyType: DESFireKeyType

    public init(settings: UInt8, keyCount: Int, keyType: DESFireKeyType) {
        self.settings = settings
        self.keyCount = keyCount
        self.keyType = keyType
    }

    init(response: [UInt8]) throws(DESFireError) {
        guard response.count == 2 else {
            throw .malformedResponse(command: .getKeySettings, reason: "expected 2 bytes, got \(response.count)")
        }
        settings = response[0]
        keyCount = Int(response[1] & 0x0F)
        keyType =
            switch response[1] & 0xC0 {
            case 0x40: .threeKey3DES
            case 0x80: .aes
            default: .des
            }
    }

    public var description: String { "settings \([settings].hexString), \(keyCount) \(keyType) key(s)" }
}
