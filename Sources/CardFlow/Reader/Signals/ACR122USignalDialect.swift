/// The ACS ACR122U's bi-colour LED and buzzer, from the ACR122U Application Programming
/// Interface v2.04, §6.2 "Bi-Color LED and Buzzer Control" (also in the ACM1252U-Y3 reference
/// manual v1.03, §5.6.1): the pseudo-APDU `FF 00 40 P2 04 T1 T2 Reps Link`.
///
/// - P2 bit 0/1: final red/green state, bit 2/3: update red/green, bit 4/5: initial red/green
///   blinking state, bit 6/7: blink red/green.
/// - T1, T2: the initial and the toggled blinking state's duration (100 ms units); Reps: how
///   many times; Link: the buzzer sounds during T1 (01), T2 (02), both (03) or not (00).
/// - Answer `90 LEDstate` on success, `63 00` on failure.
///
/// It travels as PC_to_RDR_Escape (`SCardControl` with `SCARD_CTL_CODE(1)` under libccid),
/// which needs no card: libnfc's acr122_pcsc driver sends the ACR122U's pseudo-APDUs that way
/// over a `SCARD_SHARE_DIRECT` connection.
public struct ACR122USignalDialect: ReaderSignalDialect {
    /// The dialect (it has no settings).
    public init() {}

    public var family: String { "ACS ACR122U" }

    public func applies(to reader: ReaderInfo) -> Bool {
        if let vendor = reader.vendorID, let product = reader.productID {
            return vendor == 0x072F && product == 0x2200
        }
        return reader.name.contains("ACR122U")
    }

    public func commands(for signal: ReaderSignal) throws(ReaderSignalUnsupported) -> [ReaderSignalCommand] {
        let ledControl: UInt8
        switch signal.light {
        case .none: ledControl = 0x00 // buzzer only: no LED state updated
        case .green: ledControl = 0b0000_1110 // final green on, red off, both updated
        case .red: ledControl = 0b0000_1101 // final red on, green off, both updated
        case .alternating: ledControl = 0b1101_0000 // both blink, red starting on, green off
        case .flash: ledControl = 0b1010_0000 // green blinks, starting on
        }
        let blinks = ledControl & 0xC0 != 0
        // T1, T2 (100 ms units), repetitions, link to buzzer (01: during T1).
        let timing: [UInt8]
        switch signal.beep {
        case .none: timing = blinks ? [0x01, 0x01, 0x03, 0x00] : [0x01, 0x01, 0x00, 0x00]
        case .short: timing = [0x01, 0x01, 0x01, 0x01]
        case .long: timing = [0x05, 0x01, 0x01, 0x01]
        case .double: timing = [0x01, 0x01, 0x02, 0x01]
        case .triple: timing = [0x01, 0x01, 0x03, 0x01]
        case .melody:
            throw ReaderSignalUnsupported(reason: "\(family) has one buzzer tone, no melody")
        }
        if signal.light == .none && signal.beep == .none { return [] }
        return [ReaderSignalCommand(route: .escape, bytes: [0xFF, 0x00, 0x40, ledControl, 0x04] + timing)]
    }

    public func check(_ answer: [UInt8], to command: ReaderSignalCommand) throws(ReaderSignalRefused) {
        guard answer.count == 2, answer[0] == 0x90 else {
            throw ReaderSignalRefused(family: family, command: command, answer: answer)
        }
    }
}
