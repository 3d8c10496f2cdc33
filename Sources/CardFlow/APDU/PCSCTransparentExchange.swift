/// PC/SC part 3's transparent exchange (§3.2.2.1.8, `FF C2`): the commands that open and close a
/// transparent session, switch the reader's RF protocol, and the timer object that goes before
/// a transceive object. The readers answer each with a generic error object `C0 03 <index of the
/// failing object> <SW1 SW2>` in the data and `90 00`.
///
/// The bytes are those a real ACS ACR1552 took (NXP community thread 2093136, among CardFlow's
/// card recordings), and the tag values of part 3.
///
/// ```swift
/// _ = try await session.transmit(PCSCTransparentExchange.startSession)
/// _ = try await session.transmit(PCSCTransparentExchange.switchProtocol(rf: 0x02, layer: 0x03))  // ISO 15693-3
/// ```
public enum PCSCTransparentExchange {
    /// Start a transparent session: `FF C2 00 00 02 81 00` (Le `00`).
    public static let startSession = manageSession(0x81)

    /// End a transparent session: `FF C2 00 00 02 82 00` (Le `00`).
    public static let endSession = manageSession(0x82)

    /// Switch the RF protocol: `FF C2 00 02 04 8F 02 RF LAYER`, without Le as the ACR1552's
    /// application sent it. RF `00` ISO 14443 A, `01` B, `02` ISO 15693, `03` FeliCa; layer `02`
    /// or `03` (`04` activates ISO 14443-4).
    public static func switchProtocol(rf: UInt8, layer: UInt8) -> CommandAPDU {
        CommandAPDU(validatedCLA: 0xFF, ins: 0xC2, p1: 0x00, p2: 0x02, data: [0x8F, 0x02, rf, layer], le: nil)
    }

    /// The timer object `5F 46 04` with the time in microseconds, least significant byte first;
    /// it applies to the transceive object that follows it.
    public static func timerObject(microseconds: UInt32) -> [UInt8] {
        [0x5F, 0x46, 0x04] + (0..<4).map { UInt8(truncatingIfNeeded: microseconds >> ($0 * 8)) }
    }

    /// The timer object for `timeout`, clamped to what four bytes of microseconds hold (about
    /// 71 minutes; a negative duration is 0).
    public static func timerObject(_ timeout: Duration) -> [UInt8] {
        let (seconds, attoseconds) = timeout.components
        let microseconds = max(0, seconds) * 1_000_000 + max(0, attoseconds) / 1_000_000_000_000
        return timerObject(microseconds: UInt32(clamping: microseconds))
    }

    private static func manageSession(_ object: UInt8) -> CommandAPDU {
        CommandAPDU(validatedCLA: 0xFF, ins: 0xC2, p1: 0x00, p2: 0x00, data: [object, 0x00], le: 256)
    }
}
