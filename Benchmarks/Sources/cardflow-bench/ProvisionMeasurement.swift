import CardFlow
import CardFlowBenchSupport
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowDESFire
import CardFlowSimulator

/// Every CCID message pair (bulk-OUT command, bulk-IN answer) of a run, in order.
actor CCIDMessageLog {
    private(set) var exchanges: [(command: [UInt8], responseLength: Int)] = []
    private var pending: [UInt8]?

    func sent(_ message: [UInt8]) { pending = message }

    func received(_ message: [UInt8]) {
        guard let command = pending else { return }
        exchanges.append((command, message.count))
        pending = nil
    }

    func reset() {
        exchanges = []
        pending = nil
    }
}

/// The in-memory transport, recording every message pair: the driver is sequential, so an answer
/// belongs to the command before it.
struct RecordingTransport: USBTransport {
    let inner: InMemoryUSBTransport
    let log: CCIDMessageLog

    func bulkOut(_ data: [UInt8], timeout: Duration) async throws(USBTransportError) {
        await log.sent(data)
        try await inner.bulkOut(data, timeout: timeout)
    }

    func bulkIn(maxLength: Int, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
        let message = try await inner.bulkIn(maxLength: maxLength, timeout: timeout)
        await log.received(message)
        return message
    }

    func interruptIn(maxLength: Int, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
        try await inner.interruptIn(maxLength: maxLength, timeout: timeout)
    }

    func control(_ request: USBControlRequest, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
        try await inner.control(request, timeout: timeout)
    }
}

/// One measured run of `DESFireProvisioning.flow()`.
struct ProvisionRun: Sendable {
    /// APDUs sent (XfrBlock messages; the short-APDU reader carries one APDU per message).
    var apdus: Int
    /// APDUs that reached the card (the reader's counter).
    var cardAPDUs: Int
    /// All CCID messages (power on/off, slot status, XfrBlock, ...).
    var ccidMessages: Int
    /// Sum of the timing model's time over the messages the run exchanged.
    var modelTime: Duration
    /// Wall time of `reader.run(flow).value` on the real clock (the simulator sleeps the model's time).
    var wallTime: Duration
}

/// The provisioning of `DESFireProvisioning`'s documentation example (AES application, a 64-byte
/// enciphered data file, 32 bytes written and read back) on a fresh virtual DESFire card.
func provisionRun(timing: TimingModel) async throws -> ProvisionRun {
    var configuration = VirtualReaderConfiguration.level(.shortAPDU, maxMessageLength: 271)
    configuration.timing = timing
    let virtual = VirtualCCIDReader(configuration: configuration)
    await virtual.insert(DESFireCard(seed: 1))
    let log = CCIDMessageLog()
    let driver = CCIDDriver(
        transport: RecordingTransport(inner: InMemoryUSBTransport(reader: virtual), log: log),
        descriptor: configuration.descriptor, logger: discardingLogger(level: .info))
    let info = ReaderInfo(
        id: "sim:desfire", name: configuration.name, vendorID: configuration.vendorID,
        productID: configuration.productID, descriptor: configuration.descriptor)
    let reader = Reader(info: info, driver: driver, logger: discardingLogger(level: .info))
    let provisioning = DESFireProvisioning(
        application: try DESFireApplicationID(hex: "010203"), file: 1, size: 64, commMode: .enciphered,
        key: try DESFireKey(
            type: .aes,
            bytes: [
                0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF,
            ]),
        data: (0..<32).map { UInt8($0) })
    await log.reset()
    let apdusBefore = await virtual.apdusProcessed
    let clock = ContinuousClock()
    let start = clock.now
    let result = try await reader.run(provisioning.flow(), policy: provisioning.policy(base: .default)).value
    let wallTime = start.duration(to: clock.now)
    precondition(result.readBack == provisioning.data)
    let exchanges = await log.exchanges
    var modelTime = Duration.zero
    var apdus = 0
    for (command, responseLength) in exchanges {
        switch command.first {
        case 0x6F: // PC_to_RDR_XfrBlock: one whole APDU, one whole answer on this reader
            apdus += 1
            modelTime += timing.exchangeTime(
                commandLength: command.count - 10, responseLength: responseLength - 10, cardTime: .zero)
        case 0x72: // PC_to_RDR_Abort: answered at once
            break
        default:
            modelTime += timing.readerOnlyTime
        }
    }
    return ProvisionRun(
        apdus: apdus, cardAPDUs: await virtual.apdusProcessed - apdusBefore, ccidMessages: exchanges.count,
        modelTime: modelTime, wallTime: wallTime)
}
