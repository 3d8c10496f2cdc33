/// How a file's data travels when access is granted by a key (file comm byte).
public enum DESFireCommMode: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `00`: plain (in an EV1 session the response still carries a CMAC).
    case plain = 0x00
    /// `01`: MACed.
    case mac = 0x01
    /// `03`: fully enciphered.
    case enciphered = 0x03

    /// Parses `plain`, `mac` or `enc`/`enciphered`.
    public init?(name: String) {
        switch name.lowercased() {
        case "plain": self = .plain
        case "mac", "maced": self = .mac
        case "enc", "enciphered", "encrypted": self = .enciphered
        default: return nil
        }
    }

    /// The comm byte of a file's settings; `02` is treated as plain (as proxmark3 does).
    init(settingsByte: UInt8) {
        switch settingsByte & 0x03 {
        case 0x01: self = .mac
        case 0x03: self = .enciphered
        default: self = .plain
        }
    }

    public var description: String {
        switch self {
        case .plain: "plain"
        case .mac: "mac"
        case .enciphered: "enc"
        }
    }
}
