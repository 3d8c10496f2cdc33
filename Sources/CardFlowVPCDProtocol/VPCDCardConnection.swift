import Logging
import NIOCore

/// One card connected to a ``VPCDListener`` (a vicc, a phone app, a ``VPCDCardExporter``).
///
/// The protocol is strictly request/response, so exchanges run one at a time, in call order
/// (on the connection's event loop: `VPCDExchangeHandler`).
/// Every exchange that expects an answer has a time limit (``VPCDTimeouts``) and honours task
/// cancellation: a cancelled or timed-out call returns at once (`CancellationError`,
/// ``VPCDError/timedOut(_:after:)``), and the answer it was owed is remembered and discarded
/// when it comes, before the next exchange's command is sent (waiting at most
/// ``VPCDTimeouts/lateAnswer``, else the connection is closed).
///
/// When the card side disconnects or breaks the protocol, the pending call and every later one
/// fail with ``VPCDError/cardLost(_:reason:)``.
///
/// ```swift
/// let card = try await listener.waitForCard()
/// let atr = try await card.powerOn()
/// let answer = try await card.transmit([0x00, 0xA4, 0x04, 0x00, 0x07,
///                                       0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01])
/// try await card.powerOff()
/// ```
public final class VPCDCardConnection: Sendable {
    /// Counts the listener's connections from 1, for log lines and tests.
    public let number: Int
    /// The card side's address, as NIO prints it.
    public let remoteAddress: String
    /// The time limits in force.
    public let timeouts: VPCDTimeouts

    private let channel: any Channel
    private let exchanges: NIOLoopBound<VPCDExchangeHandler>

    init(number: Int, channel: any Channel, exchanges: NIOLoopBound<VPCDExchangeHandler>, timeouts: VPCDTimeouts) {
        self.number = number
        self.remoteAddress = channel.remoteAddress?.description ?? "unknown"
        self.channel = channel
        self.exchanges = exchanges
        self.timeouts = timeouts
        channel.eventLoop.execute {
            exchanges.value.logger[metadataKey: "vpcd.card"] = "\(number)"
        }
    }

    /// Whether the card side is still connected.
    public var isConnected: Bool {
        get async { await lossReason == nil }
    }

    /// Why the connection ended; nil while it is open.
    public var lossReason: VPCDCardLossReason? {
        get async {
            let exchanges = self.exchanges
            // The loop is gone only after the connection ended.
            return (try? await channel.eventLoop.submit { exchanges.value.ended }.get()) ?? .closedLocally
        }
    }

    /// Completes with the reason when the connection ends.
    var ended: EventLoopFuture<VPCDCardLossReason> {
        let exchanges = self.exchanges
        return channel.eventLoop.flatSubmit { exchanges.value.endedFuture }
    }

    /// Powers the card (`01`) and reads its ATR (`04`).
    ///
    /// - Parameter timeout: the limit for the ATR; ``VPCDTimeouts/answer`` when nil.
    /// - Returns: the ATR.
    public func powerOn(timeout: Duration? = nil) async throws -> [UInt8] {
        try await exchange(.powerOn, [.powerOn, .getATR], timeout: timeout) ?? []
    }

    /// Cuts the card's power (`00`; the card side does not answer).
    public func powerOff() async throws {
        _ = try await exchange(.powerOff, [.powerOff], timeout: nil)
    }

    /// Resets the card (`02`) and reads its ATR again (`04`).
    ///
    /// - Returns: the ATR.
    public func reset(timeout: Duration? = nil) async throws -> [UInt8] {
        try await exchange(.reset, [.reset, .getATR], timeout: timeout) ?? []
    }

    /// Reads the ATR (`04`) without changing the card's power.
    public func atr(timeout: Duration? = nil) async throws -> [UInt8] {
        try await exchange(.getATR, [.getATR], timeout: timeout) ?? []
    }

    /// Sends a command APDU and returns the response APDU (data and SW1 SW2).
    ///
    /// - Parameters:
    ///   - apdu: the command, 2…65,535 bytes (a 1-byte payload would be read as a control message).
    ///   - timeout: the limit for the answer; ``VPCDTimeouts/answer`` when nil.
    /// - Throws: ``VPCDError/notFramable(length:)``, ``VPCDError/timedOut(_:after:)``,
    ///   ``VPCDError/cardLost(_:reason:)``, `CancellationError`.
    public func transmit(_ apdu: [UInt8], timeout: Duration? = nil) async throws -> [UInt8] {
        guard apdu.count >= 2, apdu.count <= VPCDFraming.maximumFramablePayload else {
            throw VPCDError.notFramable(length: apdu.count)
        }
        return try await exchange(.transmit, [.command(apdu)], timeout: timeout) ?? []
    }

    /// Disconnects the card side. Pending and later calls fail with ``VPCDError/cardLost(_:reason:)``.
    public func close() async {
        let exchanges = self.exchanges
        try? await channel.eventLoop.submit { exchanges.value.end(.closedLocally) }.get()
    }

    /// Hands the exchange to the loop and waits for its answer; cancellation gives up at once.
    private func exchange(
        _ operation: VPCDOperation, _ messages: [VPCDMessage],
        timeout: Duration?
    ) async throws -> [UInt8]? {
        try Task.checkCancellation()
        let loop = channel.eventLoop
        let exchanges = self.exchanges
        let promise = loop.makePromise(of: [UInt8]?.self)
        let exchange = VPCDExchangeHandler.Exchange(
            operation: operation, messages: messages,
            timeout: timeout ?? timeouts.answer, promise: promise)
        let abandon: @Sendable () -> Void = {
            loop.execute { exchanges.value.abandon(promise.futureResult, because: CancellationError()) }
        }
        return try await withTaskCancellationHandler {
            loop.execute { exchanges.value.start(exchange) }
            // A cancellation that came before the start was queued found nothing to abandon.
            if Task.isCancelled { abandon() }
            return try await promise.futureResult.get()
        } onCancel: {
            abandon()
        }
    }
}
