/// The standard byte SS of a PC/SC part 3 storage-card ATR: which contactless (or 7816-10
/// contact) standard the card follows, as the PC/SC part 3 supplement's table lists them.
public struct ContactlessStandard: Sendable, Hashable, CustomStringConvertible {
    /// The byte as the ATR carries it.
    public let rawValue: UInt8

    /// The standard byte `rawValue`.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// The table's name for the byte; nil for RFU values.
    public var name: String? {
        switch rawValue {
        case 0x00: "no information given"
        case 0x01: "ISO/IEC 14443 A part 1"
        case 0x02: "ISO/IEC 14443 A part 2"
        case 0x03: "ISO/IEC 14443 A part 3"
        case 0x05: "ISO/IEC 14443 B part 1"
        case 0x06: "ISO/IEC 14443 B part 2"
        case 0x07: "ISO/IEC 14443 B part 3"
        case 0x09: "ISO/IEC 15693 part 1"
        case 0x0A: "ISO/IEC 15693 part 2"
        case 0x0B: "ISO/IEC 15693 part 3"
        case 0x0C: "ISO/IEC 15693 part 4"
        case 0x0D: "contact (ISO/IEC 7816-10) I2C"
        case 0x0E: "contact (ISO/IEC 7816-10) extended I2C"
        case 0x0F: "contact (ISO/IEC 7816-10) 2WBP"
        case 0x10: "contact (ISO/IEC 7816-10) 3WBP"
        case 0x11: "FeliCa"
        case 0x40: "low frequency contactless card"
        default: nil
        }
    }

    public var description: String {
        name ?? "RFU standard \([rawValue].hexString)"
    }
}
