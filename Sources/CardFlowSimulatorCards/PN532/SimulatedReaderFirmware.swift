/// The firmware of a simulated reader that answers some host commands itself, whether or not
/// a card lies on it: the ACR122U's controller speaks for its PN532 (``ACR122UFirmware``), the
/// ACR1252U's drives its LEDs and buzzer (``ACR1252UFirmware``).
///
/// The virtual reader asks its firmware first with every APDU it receives; the firmware
/// returns nil for the APDUs it leaves to the card in the field.
public protocol SimulatedReaderFirmware: Sendable {
    /// The reader's own answer to `apdu` (data and status word), or nil when the APDU goes to
    /// the card in the field as usual.
    ///
    /// - Parameters:
    ///   - apdu: the command APDU the host sent (a pseudo-APDU such as `FF 00 48 00 00`).
    ///   - field: the card in the field, nil when there is none. The firmware may activate it and
    ///     send it commands.
    mutating func answer(_ apdu: [UInt8], field: inout (any VirtualCard)?) -> [UInt8]?

    /// The card in the field changed (placed, lifted): the firmware forgets the target it had.
    mutating func fieldChanged()

    /// The reader's own answer to a PC_to_RDR_Escape carrying `command` (the RDR_to_PC_Escape
    /// data), or nil when the firmware does not know the command (the reader then answers as
    /// readers without firmware of their own do).
    ///
    /// - Parameters:
    ///   - command: the escape command's bytes.
    ///   - field: the card in the field, nil when there is none.
    mutating func escape(_ command: [UInt8], field: inout (any VirtualCard)?) -> [UInt8]?

    /// What the reader's LEDs and buzzer have shown, nil for firmware without them.
    var panel: SimulatedReaderPanel? { get }
}

extension SimulatedReaderFirmware {
    /// No escape commands of its own.
    public mutating func escape(_ command: [UInt8], field: inout (any VirtualCard)?) -> [UInt8]? { nil }

    /// No LEDs or buzzer.
    public var panel: SimulatedReaderPanel? { nil }
}

/// The simulator's list of reader firmwares, each for the readers with its USB vendor and
/// product ID. Add a reader family here, as its own type.
public enum SimulatedReaderFirmwares {
    struct Entry: Sendable {
        let vendorID: UInt16
        let productID: UInt16
        let make: @Sendable (_ bcdDevice: UInt16) -> any SimulatedReaderFirmware
    }

    static let all: [Entry] = [
        // ACS ACR122U PICC: an 8051 controller in front of an NXP PN532.
        Entry(vendorID: 0x072F, productID: 0x2200) { ACR122UFirmware(bcdDevice: $0) },
        // ACS ACR1252 Dual Reader and ACR1252 Reader: LED and buzzer escape commands.
        Entry(vendorID: 0x072F, productID: 0x223B) { _ in ACR1252UFirmware() },
        Entry(vendorID: 0x072F, productID: 0x223E) { _ in ACR1252UFirmware() },
    ]

    /// The firmware of the reader with this USB identity; nil for readers whose firmware only
    /// passes APDUs on (PC/SC part 3 pseudo-APDUs stay with ``PCSCPart3Responder``).
    public static func firmware(vendorID: UInt16, productID: UInt16, bcdDevice: UInt16) -> (
        any SimulatedReaderFirmware
    )? {
        all.first { $0.vendorID == vendorID && $0.productID == productID }?.make(bcdDevice)
    }
}
