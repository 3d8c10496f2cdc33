/// The ACS ACR1252U's LEDs and buzzer, from the ACM1252U-Y3 reference manual v1.03 (the module
/// version of the ACR1252U, same escape commands as the ACR1252U API v1.09), §5.3.2 "LED
/// Control" and §5.3.4 "Buzzer Control", sent as escape commands (PC_to_RDR_Escape;
/// `SCardControl` with `SCARD_CTL_CODE(1)` under libccid), no card needed:
///
/// - `E0 00 00 29 01 LEDstatus`, bit 0 red, bit 1 green (1 on): answer `E1 00 00 00 01 LEDstatus`.
/// - `E0 00 00 28 01 duration`, the buzzer's on time in 10 ms units (00 off): answer
///   `E1 00 00 00 01 00`.
///
/// The LED command sets a steady state: blinking (``ReaderSignal/Light/alternating``,
/// ``ReaderSignal/Light/flash``) and beep patterns beyond one beep are not in it.
public struct ACR1252USignalDialect: ReaderSignalDialect {
    /// The dialect (it has no settings).
    public init() {}

    public var family: String { "ACS ACR1252U" }

    /// ACR1252 Dual Reader and ACR1252 Reader (USB 072F:223B, 072F:223E).
    static let productIDs: Set<UInt16> = [0x223B, 0x223E]

    public func applies(to reader: ReaderInfo) -> Bool {
        if let vendor = reader.vendorID, let product = reader.productID {
            return vendor == 0x072F && Self.productIDs.contains(product)
        }
        return reader.name.contains("ACR1252 ")
    }

    public func commands(for signal: ReaderSignal) throws(ReaderSignalUnsupported) -> [ReaderSignalCommand] {
        var commands: [ReaderSignalCommand] = []
        switch signal.light {
        case .none: break
        case .green: commands.append(Self.ledControl(0x02))
        case .red: commands.append(Self.ledControl(0x01))
        case .alternating, .flash:
            throw ReaderSignalUnsupported(reason: "\(family) sets its LEDs steady; it cannot blink them")
        }
        switch signal.beep {
        case .none: break
        case .short: commands.append(Self.buzzerControl(10)) // 100 ms
        case .long: commands.append(Self.buzzerControl(50)) // 500 ms
        case .double, .triple, .melody:
            throw ReaderSignalUnsupported(reason: "\(family) sounds one beep per command, no \(signal.beep.rawValue)")
        }
        return commands
    }

    static func ledControl(_ state: UInt8) -> ReaderSignalCommand {
        ReaderSignalCommand(route: .escape, bytes: [0xE0, 0x00, 0x00, 0x29, 0x01, state])
    }

    static func buzzerControl(_ tensOfMilliseconds: UInt8) -> ReaderSignalCommand {
        ReaderSignalCommand(route: .escape, bytes: [0xE0, 0x00, 0x00, 0x28, 0x01, tensOfMilliseconds])
    }

    public func check(_ answer: [UInt8], to command: ReaderSignalCommand) throws(ReaderSignalRefused) {
        guard answer.count == 6, answer.starts(with: [0xE1, 0x00, 0x00, 0x00, 0x01]) else {
            throw ReaderSignalRefused(family: family, command: command, answer: answer)
        }
    }
}
