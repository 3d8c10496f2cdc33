/// The clock rate conversion factor F and baud rate adjustment factor D of ISO/IEC 7816-3
/// (§8.3, tables 7 and 8), coded as in TA1, PPS1 and the CCID bmFindexDindex byte: FI in the
/// high nibble, DI in the low nibble.
///
/// One elementary time unit is F/D clock cycles, so at clock f the card sends f·D/F bits per
/// second: 10 752 bps at 4 MHz for the default `11` (F = 372, D = 1).
public struct TransmissionFactors: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The TA1-style byte.
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Fd = 372, Dd = 1: what every card uses after reset until a PPS exchange changes it.
    public static let `default` = TransmissionFactors(rawValue: 0x11)

    /// F for FI (table 7); nil for the reserved values 7, 8, E and F.
    public var clockRateConversion: Int? {
        switch rawValue >> 4 {
        case 0x0, 0x1: 372
        case 0x2: 558
        case 0x3: 744
        case 0x4: 1116
        case 0x5: 1488
        case 0x6: 1860
        case 0x9: 512
        case 0xA: 768
        case 0xB: 1024
        case 0xC: 1536
        case 0xD: 2048
        default: nil
        }
    }

    /// D for DI (table 8); nil for the reserved values 0 and A…F.
    public var baudRateAdjustment: Int? {
        switch rawValue & 0x0F {
        case 0x1: 1
        case 0x2: 2
        case 0x3: 4
        case 0x4: 8
        case 0x5: 16
        case 0x6: 32
        case 0x7: 64
        case 0x8: 12
        case 0x9: 20
        default: nil
        }
    }

    /// True when both F and D are defined values.
    public var isDefined: Bool { clockRateConversion != nil && baudRateAdjustment != nil }

    /// The bit rate at a card clock of `clockKHz` kHz (f·D/F, rounded down as the pcsc-lite
    /// CCID driver computes it); nil when F or D is reserved or the clock is zero.
    public func baudRate(clockKHz: UInt32) -> Int? {
        guard let f = clockRateConversion, let d = baudRateAdjustment, clockKHz > 0 else { return nil }
        return Int(clockKHz) * 1000 * d / f
    }

    /// The same F with a smaller power-of-two D (DI 7 down to 1), fastest first: the slower
    /// rates a card announcing these factors also accepts in a PPS request (ISO/IEC 7816-3
    /// §9.1: from Fd/Dd up to Fi/Di). The pcsc-lite CCID driver steps TA1 down the same way;
    /// D = 12 and 20 are left out as few cards take them.
    public var slowerAlternatives: [TransmissionFactors] {
        guard clockRateConversion != nil, let d = baudRateAdjustment else { return [] }
        return (0x1...0x7).reversed().map { TransmissionFactors(rawValue: rawValue & 0xF0 | UInt8($0)) }
            .filter { ($0.baudRateAdjustment ?? .max) < d }
    }

    public var description: String {
        "0x\(hex2(rawValue)) (F=\(clockRateConversion.map(String.init) ?? "RFU"), D=\(baudRateAdjustment.map(String.init) ?? "RFU"))"
    }
}
