/// The ACS ACR122U's controller in front of its NXP PN532, written from the ACR122U API
/// manual (v2.04) and the PN532 user manual (UM0701-02):
///
/// - `FF 00 48 00 00` — firmware version: ten ASCII bytes such as `ACR122U207`, no status word.
/// - `FF 00 40 P2 04 T1 T2 Reps Link` — LED and buzzer control: `90 LEDstate` (bit 0 red,
///   bit 1 green); P2 bits 2/3 say whether bits 0/1 set the red/green LED.
/// - `FF 00 50 00 00` / `FF 00 51 P2 00` — get / set the PICC operating parameter: `90 value`.
/// - `FF 00 41 P2 00` (timeout), `FF 00 52 P2 00` (buzzer on card detection): `90 00`.
/// - `FF 00 00 00 Lc D4 cmd …` — direct transmit to the PN532 (``SimulatedPN532``): its
///   answer `D5 cmd+1 …` followed by `90 00`; `63 00` when the PN532 does not answer and
///   `63 7F` when it refuses the command (the direct-transmit status table).
///
/// Every other APDU goes to the card (nil): PC/SC part 3 `FF CA`, the storage-card pseudo-APDUs
/// and card APDUs, which the controller passes on through the PN532 itself.
///
/// The same `FF 00` pseudo-APDUs are answered when they come as PC_to_RDR_Escape, with or
/// without a card (libnfc's acr122_pcsc driver sends them that way through `SCardControl` on a
/// direct connection); other escape commands are left to the reader (CMD_NOT_SUPPORTED).
///
/// The LED and buzzer command's effect shows in ``panel``: the final LED state (P2 bits 0–3),
/// a blinking sequence when P2 bit 6 or 7 asks for one and Reps > 0, and Reps beeps when Link
/// is not 00, each T1 (Link 01 or 03) or T2 (Link 02) × 100 ms long.
public struct ACR122UFirmware: SimulatedReaderFirmware {
    /// The PN532 behind the controller.
    public private(set) var chip = SimulatedPN532()
    /// The firmware version string the reader reports.
    public let version: String
    /// The LED state the last LED command left (bit 0 red, bit 1 green); green when idle.
    public private(set) var ledState: UInt8 = 0x02
    /// The PICC operating parameter (all polling types and automatic polling on by default).
    public private(set) var piccOperatingParameter: UInt8 = 0xFF

    /// A controller whose version string follows the USB bcdDevice (2.07 → `ACR122U207`).
    public init(bcdDevice: UInt16 = 0x0207) {
        let digits = [bcdDevice >> 8, (bcdDevice >> 4) & 0x0F, bcdDevice & 0x0F].map { String($0 % 10) }
        version = "ACR122U" + digits.joined()
    }

    /// The card in the field changed: the PN532 forgets its target.
    public mutating func fieldChanged() {
        chip.fieldChanged()
    }

    /// The controller's answer to `apdu`; nil for APDUs it passes to the card.
    public mutating func answer(_ apdu: [UInt8], field: inout (any VirtualCard)?) -> [UInt8]? {
        guard apdu.count >= 5, apdu[0] == 0xFF, apdu[1] == 0x00 else { return nil }
        let p1 = apdu[2]
        let p2 = apdu[3]
        switch p1 {
        case 0x00:
            guard p2 == 0x00, let data = Self.commandData(apdu) else { return [0x63, 0x7F] }
            return chip.answer(data, field: &field).map { $0 + [0x90, 0x00] } ?? [0x63, 0x7F]
        case 0x48:
            return Array(version.utf8)
        case 0x40:
            guard let data = Self.commandData(apdu), data.count == 4 else { return [0x63, 0x00] }
            // Bits 2 and 3 of P2 say which of the final-state bits 0 (red) and 1 (green) apply.
            if p2 & 0x04 != 0 { ledState = (ledState & ~0x01) | (p2 & 0x01) }
            if p2 & 0x08 != 0 { ledState = (ledState & ~0x02) | (p2 & 0x02) }
            show(ledControl: p2, blinking: data)
            return [0x90, ledState]
        case 0x50:
            return [0x90, piccOperatingParameter]
        case 0x51:
            piccOperatingParameter = p2
            return [0x90, p2]
        case 0x41, 0x52:
            return [0x90, 0x00]
        default:
            return nil
        }
    }

    /// The controller's answer to a PC_to_RDR_Escape: the `FF 00` pseudo-APDUs as through
    /// XfrBlock, nil (not known) for anything else.
    public mutating func escape(_ command: [UInt8], field: inout (any VirtualCard)?) -> [UInt8]? {
        guard command.count >= 5, command[0] == 0xFF, command[1] == 0x00 else { return nil }
        return answer(command, field: &field)
    }

    /// What the LED and buzzer command left: the LED state now, blinking sequences and beeps.
    public private(set) var panel: SimulatedReaderPanel? = SimulatedReaderPanel(red: false, green: true)

    /// Notes on ``panel`` what `FF 00 40 P2 04 T1 T2 Reps Link` showed.
    mutating func show(ledControl p2: UInt8, blinking data: [UInt8]) {
        guard var shown = panel else { return }
        let (t1, t2, repetitions, link) = (data[0], data[1], Int(data[2]), data[3])
        shown.red = ledState & 0x01 != 0
        shown.green = ledState & 0x02 != 0
        if p2 & 0xC0 != 0 && repetitions > 0 { shown.blinkSequences += 1 }
        if link & 0x03 != 0 {
            let length = Duration.milliseconds(100 * Int(link & 0x03 == 0x02 ? t2 : t1))
            for _ in 0..<repetitions { shown.beep(length) }
        }
        panel = shown
    }

    /// The data of `FF 00 P1 P2 Lc data`; nil when Lc does not match.
    static func commandData(_ apdu: [UInt8]) -> [UInt8]? {
        let length = Int(apdu[4])
        guard apdu.count == 5 + length else { return nil }
        return Array(apdu[5...])
    }
}
