/// The three standard data files of the NTAG 424 DNA NDEF application (NT4H2421Gx §8.2.2).
public enum NTAG424File: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The capability container, ISO file ID `E103` (32 bytes).
    case capabilityContainer = 0x01
    /// The NDEF file, ISO file ID `E104` (256 bytes): where SDM mirrors SUN data.
    case ndef = 0x02
    /// The proprietary file, ISO file ID `E105` (128 bytes).
    case proprietary = 0x03

    /// The ISO 7816-4 file identifier.
    public var isoFileID: [UInt8] {
        switch self {
        case .capabilityContainer: [0xE1, 0x03]
        case .ndef: [0xE1, 0x04]
        case .proprietary: [0xE1, 0x05]
        }
    }

    /// The file's size as the tag ships it.
    public var factorySize: Int {
        switch self {
        case .capabilityContainer: 32
        case .ndef: 256
        case .proprietary: 128
        }
    }

    /// The DF name of the NDEF application, `D2760000850101`.
    public static let applicationName: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]

    public var description: String {
        switch self {
        case .capabilityContainer: "CC file (E103)"
        case .ndef: "NDEF file (E104)"
        case .proprietary: "proprietary file (E105)"
        }
    }
}
