import CardFlow

/// How a DESFire file's data travel between the reader and the card, as a uFR DESFire command
/// gives it (the file's own communication settings).
///
/// The documents disagree on the enciphered value (ufr.md §4 and §9 item 4): the COM protocol
/// document's examples send 0x11, the API document gives the library's parameter as 0x03
/// (native DESFire's value). ``enciphered`` is 0x03; `UFRDESFireCommunication(rawValue: 0x11)`
/// sends the other for a reader that wants it.
///
/// ```swift
/// let mode = UFRDESFireCommunication.enciphered   // 0x03
/// ```
public struct UFRDESFireCommunication: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8

    /// The settings byte `rawValue`, sent as it is.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Plain (0x00).
    public static let plain = Self(rawValue: 0x00)
    /// MACed (0x01).
    public static let maced = Self(rawValue: 0x01)
    /// Fully enciphered (0x03).
    public static let enciphered = Self(rawValue: 0x03)

    public var description: String {
        switch rawValue {
        case 0x00: "plain"
        case 0x01: "MACed"
        case 0x03, 0x11: "enciphered"
        default: "communication settings \([rawValue].spacedHexString)"
        }
    }
}
