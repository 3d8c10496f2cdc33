/// A file's communication setting: plain, MACed or fully enciphered.
enum DESFireCommunicationMode: Sendable, Hashable {
    case plain, mac, enciphered

    /// `01` MACed, `03` enciphered, anything else with bit 0 clear plain (proxmark treats `02` as plain).
    init(fileSetting: UInt8) {
        switch fileSetting & 0x03 {
        case 0x01: self = .mac
        case 0x03: self = .enciphered
        default: self = .plain
        }
    }
}
