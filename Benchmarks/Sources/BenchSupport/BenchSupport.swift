import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import Logging

/// A test-only card that answers every command with `dataLength` bytes followed by 90 00, in no
/// time: the benchmarks measure the stack, not a card model.
public struct FixedAnswerCard: VirtualCard {
    public let kind = "bench-fixed"
    /// ISO-DEP type A (the DESFire ATS), so the reader builds a T=1 ATR that TPDU readers
    /// accept; a contact card's own ATR when ``contactInterface`` is set.
    public let technology: ContactlessTechnology
    public let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
    /// Set for a contact card (e.g. T=0 only, so a TPDU reader runs T=0 with it).
    public let contactInterface: ContactInterface?
    private let answer: [UInt8]

    public init(dataLength: Int, contactInterface: ContactInterface? = nil) {
        answer = Array(repeating: 0xA5, count: dataLength) + [0x90, 0x00]
        self.contactInterface = contactInterface
        technology = contactInterface.map { .contact(atr: $0.answerToReset) } ?? .desfireTypeA
    }

    public mutating func powerOn() {}
    public mutating func process(_ command: [UInt8]) -> [UInt8] { answer }
}

/// A swift-log handler that drops every record but honours its level, so that `.trace` really
/// builds the trace messages (swift-log's own no-op handler is stuck at `.critical`).
public struct DiscardingLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level

    public init(logLevel: Logger.Level) { self.logLevel = logLevel }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {}
}

/// A logger at `level` whose records go nowhere.
public func discardingLogger(level: Logger.Level) -> Logger {
    Logger(label: "cardflow.bench") { _ in DiscardingLogHandler(logLevel: level) }
}

/// One exchange shape: the command APDU and the answer's data length.
public struct Exchange: Sendable {
    public let name: String
    public let command: CommandAPDU
    public let responseDataLength: Int

    /// 5-byte command (header + Le), 2-byte answer (status word only).
    public static let tiny = Exchange(
        name: "5-2", command: try! CommandAPDU(cla: 0x00, ins: 0xB0, p1: 0, p2: 0, le: 2),
        responseDataLength: 0)
    /// The largest short APDU: 255 data bytes out (261-byte command), 256 data bytes back (258-byte answer).
    public static let maxShort = Exchange(
        name: "255-256",
        command: try! CommandAPDU(
            cla: 0x00, ins: 0xD6, p1: 0, p2: 0,
            data: Array(repeating: 0x5A, count: 255), le: 256),
        responseDataLength: 256)
    /// 13-byte command (8 data bytes), 61-byte answer (59 data bytes): a typical authenticated read.
    public static let medium = Exchange(
        name: "13-61",
        command: try! CommandAPDU(
            cla: 0x90, ins: 0xAF, p1: 0, p2: 0,
            data: Array(repeating: 0x11, count: 8)),
        responseDataLength: 59)

    public var commandLength: Int { command.encoded().count }
    public var responseLength: Int { responseDataLength + 2 }
}

/// A virtual reader of the given level with a fixed-answer card on it; `clock` realises its
/// timing model (``PreciseClock`` for the latency-model benchmark).
public func makeVirtualReader(
    level: CCIDExchangeLevel, exchange: Exchange, timing: TimingModel = .zero,
    clock: any ElapsedClock = RealClock(), contact: ContactInterface? = nil
) async -> VirtualCCIDReader {
    var configuration = VirtualReaderConfiguration.level(level, maxMessageLength: 271)
    configuration.timing = timing
    if contact != nil { configuration.descriptor.protocols = [.t0, .t1] }
    let reader = VirtualCCIDReader(configuration: configuration, clock: clock)
    await reader.insert(FixedAnswerCard(dataLength: exchange.responseDataLength, contactInterface: contact))
    return reader
}

/// A bare CCID driver on the in-memory transport, card powered on (a contact card with
/// `contact`'s protocols, e.g. `.t0Only()` for T=0 at TPDU level).
public func makePoweredDriver(
    level: CCIDExchangeLevel, exchange: Exchange, timing: TimingModel = .zero,
    contact: ContactInterface? = nil
) async throws -> CCIDDriver {
    let virtual = await makeVirtualReader(level: level, exchange: exchange, timing: timing, contact: contact)
    let driver = CCIDDriver(
        transport: InMemoryUSBTransport(reader: virtual), descriptor: virtual.configuration.descriptor,
        logger: discardingLogger(level: .info))
    _ = try await driver.powerOn()
    return driver
}

/// A bare CCID driver on a ``NullCCIDDevice`` (the short-APDU reader's descriptor), card
/// powered on: the driver's own cost per APDU, with nothing behind the transport.
public func makePoweredNullDriver(exchange: Exchange) async throws -> CCIDDriver {
    let descriptor = VirtualReaderConfiguration.level(.shortAPDU, maxMessageLength: 271).descriptor
    let answer = Array(repeating: UInt8(0xA5), count: exchange.responseDataLength) + [0x90, 0x00]
    let driver = CCIDDriver(
        transport: NullCCIDDevice(answer: answer), descriptor: descriptor, logger: discardingLogger(level: .info))
    _ = try await driver.powerOn()
    return driver
}

/// A CardFlow reader (driver, session, tracing, metrics) on a simulated reader; `logLevel`
/// `.trace` turns APDU tracing on.
public func makeReader(
    level: CCIDExchangeLevel, exchange: Exchange, logLevel: Logger.Level,
    timing: TimingModel = .zero, id: String = "sim:0"
) async -> Reader {
    let virtual = await makeVirtualReader(level: level, exchange: exchange, timing: timing)
    return Reader.simulated(virtual, id: id, logger: discardingLogger(level: logLevel))
}

/// A checked answer: the benchmarks must not silently measure errors.
@inline(__always)
public func check(_ response: [UInt8], _ exchange: Exchange) {
    precondition(
        response.count == exchange.responseLength && response[response.count - 2] == 0x90,
        "unexpected answer of \(response.count) bytes")
}
