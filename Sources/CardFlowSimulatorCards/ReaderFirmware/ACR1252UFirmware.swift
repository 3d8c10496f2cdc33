/// The ACS ACR1252U's controller, as far as its LEDs and buzzer go, written from the ACM1252U-Y3
/// reference manual v1.03 (the module version of the ACR1252U), §5.3 "Peripherals Control",
/// escape commands (PC_to_RDR_Escape) answered `E1 00 00 00 Le data`:
///
/// - `E0 00 00 29 01 LEDstatus` — LED control, bit 0 red, bit 1 green (1 on): answers the new
///   LED status; `E0 00 00 29 00` — LED status: answers it.
/// - `E0 00 00 28 01 duration` — buzzer control, on for duration × 10 ms (00 off): answers `00`;
///   `E0 00 00 28 00` — buzzer status: answers `00` (the buzzer is quiet between commands).
///
/// Other escape commands are left to the reader (nil), which answers CMD_NOT_SUPPORTED as the
/// CCID specification asks for commands it does not know. APDUs all go to the card.
public struct ACR1252UFirmware: SimulatedReaderFirmware {
    /// What the LEDs and buzzer have shown (LEDs off at power-up in this simulation).
    public private(set) var panel: SimulatedReaderPanel? = SimulatedReaderPanel()

    /// A controller with its LEDs off.
    public init() {}

    public mutating func answer(_ apdu: [UInt8], field: inout (any VirtualCard)?) -> [UInt8]? { nil }

    public mutating func fieldChanged() {}

    public mutating func escape(_ command: [UInt8], field: inout (any VirtualCard)?) -> [UInt8]? {
        guard command.count >= 5, command[0] == 0xE0, command[1] == 0x00, command[2] == 0x00,
            Int(command[4]) == command.count - 5, var shown = panel
        else { return nil }
        switch (command[3], command[4]) {
        case (0x29, 0x01):
            shown.red = command[5] & 0x01 != 0
            shown.green = command[5] & 0x02 != 0
            panel = shown
            return Self.result(Self.ledStatus(shown))
        case (0x29, 0x00):
            return Self.result(Self.ledStatus(shown))
        case (0x28, 0x01):
            if command[5] > 0 { shown.beep(.milliseconds(10 * Int(command[5]))) }
            panel = shown
            return Self.result(0x00)
        case (0x28, 0x00):
            return Self.result(0x00)
        default:
            return nil
        }
    }

    static func ledStatus(_ panel: SimulatedReaderPanel) -> UInt8 {
        (panel.red ? 0x01 : 0x00) | (panel.green ? 0x02 : 0x00)
    }

    /// `E1 00 00 00 01 value`: the manual's answer of one byte.
    static func result(_ value: UInt8) -> [UInt8] { [0xE1, 0x00, 0x00, 0x00, 0x01, value] }
}
