import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator

/// A virtual reader with a card, wired to a CCID driver through the in-memory transport.
struct SimulatedReaderHarness {
    let reader: VirtualCCIDReader
    let driver: CCIDDriver

    init(
        _ configuration: VirtualReaderConfiguration = VirtualReaderConfiguration(),
        card: (any VirtualCard)? = ISO7816Card(seed: 1),
        clock: any ElapsedClock = RealClock(),
        driverConfiguration: CCIDDriverConfiguration = Self.fastFailing
    ) async {
        reader = VirtualCCIDReader(configuration: configuration, clock: clock)
        if let card { await reader.insert(card) }
        // The driver measures its exchange time limit on the reader's clock, so a manual clock
        // drives both.
        driver = CCIDDriver(
            transport: InMemoryUSBTransport(reader: reader), descriptor: configuration.descriptor,
            configuration: driverConfiguration, timeSource: ElapsedClockTimeSource(clock))
    }

    /// Short timeouts, so tests of lost answers finish quickly.
    static var fastFailing: CCIDDriverConfiguration {
        var configuration = CCIDDriverConfiguration()
        configuration.readTimeout = .milliseconds(200)
        configuration.powerOnTimeout = .milliseconds(500)
        configuration.abortTimeout = .milliseconds(200)
        return configuration
    }
}

/// A card that answers any command with its own data (case 3/4, short or extended) and 90 00,
/// so the complete transfer of long commands and responses can be checked byte for byte.
struct EchoCard: VirtualCard {
    var kind: String { "echo" }
    var technology: ContactlessTechnology { .desfireTypeA }
    var uid: [UInt8] { [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66] }
    mutating func powerOn() {}
    mutating func process(_ command: [UInt8]) -> [UInt8] {
        guard command.count > 5 else { return [0x90, 0x00] }
        let data: ArraySlice<UInt8>
        if command[4] == 0, command.count >= 7 {
            let length = Int(command[5]) << 8 | Int(command[6])
            guard command.count >= 7 + length else { return [0x67, 0x00] }
            data = command[7..<(7 + length)]
        } else {
            let length = Int(command[4])
            guard command.count >= 5 + length else { return [0x67, 0x00] }
            data = command[5..<(5 + length)]
        }
        return Array(data) + [0x90, 0x00]
    }
}

/// Extended case 4 APDU with `count` data bytes (INS 0x10, unknown to ISO cards).
func extendedEchoCommand(count: Int) -> [UInt8] {
    let data = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
    return [0x80, 0x10, 0x00, 0x00, 0x00, UInt8(count >> 8), UInt8(count & 0xFF)] + data + [0x00, 0x00]
}

let selectApplication: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]
let readEF0101: [UInt8] = [0x00, 0xB0, 0x81, 0x00, 0x20] // READ BINARY by SFI 1, 32 bytes
