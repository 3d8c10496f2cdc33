import CardFlowSimulator
import CardFlowVPCDProtocol
import Foundation
import Logging
import NIOCore
import NIOPosix

/// A logger that prints nothing (set VPCD_TEST_LOG=trace to see the protocol).
let quietLogger: Logger = {
    guard let level = ProcessInfo.processInfo.environment["VPCD_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) else {
        return Logger(label: "vpcd.test", factory: { _ in SwiftLogNoOpLogHandler() })
    }
    var logger = Logger(label: "vpcd.test", factory: { StreamLogHandler.standardError(label: $0) })
    logger.logLevel = level
    return logger
}()

struct TestTimeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "test step timed out: \(what)" }
}

/// Runs `body` with a time limit, so a broken exchange fails the test instead of hanging it.
func within<T: Sendable>(
    _ limit: Duration = .seconds(60), _ what: String = "step",
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw TestTimeout(what: what)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

/// Waits (bounded) until the listener reports `presence`.
func waitFor(_ presence: VPCDCardPresence, on listener: VPCDListener, limit: Duration = .seconds(60)) async throws {
    try await within(limit, "presence \(presence)") {
        for try await state in await listener.presenceChanges() where state == presence { return }
        throw TestTimeout(what: "presence stream ended before \(presence)")
    }
}

/// A CardSimulator card model answering through the vpcd card side, with hooks that let a test
/// hold an APDU (a slow card) and see what the card did.
actor SimulatedVPCDCard<Model: VirtualCard>: VPCDCard {
    private var model: Model
    let answerToReset: [UInt8]
    /// Commands whose first two bytes (CLA INS) match are held this long before the answer.
    private var slowCommands: [[UInt8]: Duration] = [:]
    private(set) var completed: [[UInt8]] = []
    private(set) var started: [[UInt8]] = []
    private(set) var powerEvents: [String] = []

    init(_ model: Model) {
        self.model = model
        self.answerToReset = ContactlessATR.atr(for: model.technology)
    }

    func makeSlow(claIns: [UInt8], by delay: Duration) { slowCommands[claIns] = delay }

    /// Commands whose CLA INS match wait until ``releaseHeld()``: a card that is still working
    /// for as long as the test needs, whatever the machine's load.
    private var heldCommands: Set<[UInt8]> = []
    private var heldWaiters: [CheckedContinuation<Void, Never>] = []
    private var heldReleased = false

    func hold(claIns: [UInt8]) { heldCommands.insert(claIns) }

    func releaseHeld() {
        heldReleased = true
        for waiter in heldWaiters { waiter.resume() }
        heldWaiters.removeAll()
    }

    func powerOn() {
        powerEvents.append("on")
        model.powerOn()
    }

    func powerOff() { powerEvents.append("off") }

    func reset() {
        powerEvents.append("reset")
        model.powerOn()
    }

    func atr() -> [UInt8] { answerToReset }

    func transmit(_ apdu: [UInt8]) async throws -> [UInt8] {
        started.append(apdu)
        if let delay = slowCommands[Array(apdu.prefix(2))] {
            try await Task.sleep(for: delay)
        }
        if heldCommands.contains(Array(apdu.prefix(2))), !heldReleased {
            await withCheckedContinuation { heldWaiters.append($0) }
        }
        let answer = model.process(apdu)
        completed.append(apdu)
        return answer
    }
}

/// A card whose transmit always fails (the exporter answers 6F00).
struct FailingCard: VPCDCard {
    struct Broken: Error {}
    func powerOn() {}
    func powerOff() {}
    func reset() {}
    func atr() -> [UInt8] { [0x3B, 0x80, 0x80, 0x01, 0x01] }
    func transmit(_ apdu: [UInt8]) throws -> [UInt8] {
        if apdu.first == 0xEE { return [0x90] } // too short to be a response APDU
        throw Broken()
    }
}

/// Runs an exporter for `card` against `port` for the duration of `body`.
func withExporter<T: Sendable>(
    _ card: any VPCDCard, port: Int,
    configuration: VPCDCardExporter.Configuration = .init(
        reconnectDelay: .milliseconds(20),
        maximumReconnectDelay: .milliseconds(200)),
    _ body: () async throws -> T
) async throws -> T {
    let exporter = VPCDCardExporter(
        card: card, host: "127.0.0.1", port: port, configuration: configuration, logger: quietLogger)
    let task = Task { await exporter.run() }
    defer { task.cancel() }
    let result = try await body()
    task.cancel()
    await task.value
    return result
}

/// A raw TCP peer for hostile-peer tests: writes any bytes, reads whatever comes.
struct RawPeer: Sendable {
    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>

    static func connect(port: Int) async throws -> RawPeer {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return RawPeer(channel: channel)
    }

    /// Serves the connection with `body`, then closes it.
    func run(
        _ body: (
            _ reader: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
            _ writer: NIOAsyncChannelOutboundWriter<ByteBuffer>
        ) async throws -> Void
    ) async throws {
        try await channel.executeThenClose { inbound, outbound in
            var iterator = inbound.makeAsyncIterator()
            try await body(&iterator, outbound)
        }
    }
}

extension NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator {
    /// Reads until `count` bytes have arrived (or the stream ends).
    mutating func read(count: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < count, let buffer = try await next() {
            bytes += Array(buffer.readableBytesView)
        }
        return bytes
    }
}

extension NIOAsyncChannelOutboundWriter<ByteBuffer> {
    func write(bytes: [UInt8]) async throws {
        try await write(ByteBuffer(bytes: bytes))
    }
}

/// Hex to bytes, for readable test vectors.
func hex(_ text: String) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }
    var bytes: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        bytes.append(UInt8(digits[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}
