import CardFlowNIOSupport
import Logging
import NIOCore
import NIOPosix

/// The reader side of the vpcd protocol: CardFlow is the reader, and whatever connects
/// (vsmartcard's `vicc`, the "Remote Smart Card Reader" phone app, a ``VPCDCardExporter``)
/// is the card.
///
/// Like one vpcd slot, a listener serves one card at a time: a connection is a card arrival, its
/// end a removal. A second connection while a card is connected is closed (with a log line).
/// Card sides that send garbage, oversized or unrequested messages are disconnected with a
/// typed error; the listener keeps serving the next card.
///
/// The protocol has no authentication or encryption, so the listener binds only loopback
/// addresses unless `allowRemote` is set; reach it from elsewhere through an SSH tunnel,
/// stunnel or WireGuard.
///
/// The card operations on the listener (``powerOn(timeout:)``, ``transmit(_:timeout:)`` …) act on the
/// card connected now, so the listener can serve directly as a reader driver; the same
/// operations on a ``VPCDCardConnection`` stay bound to one card.
///
/// ```swift
/// let listener = try await VPCDListener.bind(port: 35963, logger: logger)
/// // elsewhere: vicc -t iso7816 -H 127.0.0.1 -P 35963
/// for try await presence in await listener.presenceChanges() where presence == .present {
///     let atr = try await listener.powerOn()
///     let answer = try await listener.transmit([0x00, 0xA4, 0x04, 0x00, 0x00])
///     …
/// }
/// await listener.close()
/// ```
public actor VPCDListener {
    /// The host the listener was asked to bind.
    public nonisolated let host: String
    /// The port it listens on (the one the system chose when asked for port 0).
    public nonisolated let port: Int
    public nonisolated let configuration: Configuration

    private let logger: Logger
    private var serving: Task<Void, Never>?
    private var serverChannel: (any Channel)?
    private let openConnections: NIOOpenChannels
    /// Set when ``close()`` begins: connections accepted from then on are refused.
    private var isClosing = false
    private var isClosed = false
    private var card: VPCDCardConnection?
    private var connectionCount = 0
    private var subscribers: [Int: AsyncThrowingStream<VPCDCardPresence, any Error>.Continuation] = [:]
    private var subscriberCount = 0

    private init(
        host: String, port: Int, configuration: Configuration, openConnections: NIOOpenChannels, logger: Logger
    ) {
        self.host = host
        self.openConnections = openConnections
        self.port = port
        self.configuration = configuration
        self.logger = logger
    }

    /// Binds `host:port` and starts accepting card connections.
    ///
    /// - Parameters:
    ///   - host: the address to listen on; loopback (`127.0.0.1`, `::1`, `localhost`) by default.
    ///   - port: 35963 (0x8C7B, vpcd's first slot) by default; 0 lets the system choose
    ///     (read ``port``).
    ///   - allowRemote: permits a non-loopback address.
    ///   - configuration: timeouts and bounds of the card connections.
    ///   - logger: where the listener logs.
    /// - Throws: ``VPCDError/remoteBindNotAllowed(host:)``, ``VPCDError/bindFailed(host:port:reason:)``.
    public static func bind(
        host: String = "127.0.0.1", port: Int = 35963, allowRemote: Bool = false,
        configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "cardflow.vpcd")
    ) async throws -> VPCDListener {
        let address: SocketAddress
        do {
            address = try SocketAddress.makeAddressResolvingHost(host, port: port)
        } catch {
            throw VPCDError.bindFailed(host: host, port: port, reason: "\(error)")
        }
        guard allowRemote || VPCDLoopback.isLoopback(address) else {
            throw VPCDError.remoteBindNotAllowed(host: host)
        }
        let maximumPayload = configuration.maximumResponseLength
        let openConnections = NIOOpenChannels()
        let server: NIOAsyncChannel<VPCDAcceptedChannel, Never>
        do {
            server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .serverChannelOption(.backlog, value: 8)
                .vpcdKeepAlive(configuration.keepAlive)
                .bind(to: address) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        openConnections.track(channel)
                        try VPCDChannel.addCodec(to: channel, maximumPayload: maximumPayload)
                        let exchanges = VPCDExchangeHandler(
                            timeouts: configuration.timeouts, logger: logger,
                            eventLoop: channel.eventLoop)
                        try channel.pipeline.syncOperations.addHandler(exchanges)
                        return VPCDAcceptedChannel(
                            channel: channel,
                            exchanges: NIOLoopBound(exchanges, eventLoop: channel.eventLoop))
                    }
                }
        } catch {
            throw VPCDError.bindFailed(host: host, port: port, reason: "\(error)")
        }
        let listener = VPCDListener(
            host: host, port: server.channel.localAddress?.port ?? port,
            configuration: configuration, openConnections: openConnections, logger: logger)
        await listener.start(server)
        logger.info("vpcd: listening", metadata: ["address": "\(host):\(listener.port)"])
        return listener
    }

    /// Binds, runs `body`, and closes the listener however `body` ends.
    public static func withListener<Result: Sendable>(
        host: String = "127.0.0.1", port: Int = 35963, allowRemote: Bool = false,
        configuration: Configuration = Configuration(), logger: Logger = Logger(label: "cardflow.vpcd"),
        _ body: (VPCDListener) async throws -> Result
    ) async throws -> Result {
        let listener = try await bind(
            host: host, port: port, allowRemote: allowRemote,
            configuration: configuration, logger: logger)
        do {
            let result = try await body(listener)
            await listener.close()
            return result
        } catch {
            await listener.close()
            throw error
        }
    }

    /// Stops listening and disconnects the card. Presence streams finish.
    public func close() async {
        guard let serving else { return }
        self.serving = nil
        isClosing = true
        await card?.close()
        // Stop accepting, then close what was accepted: also connections the accept loop never
        // saw, which would otherwise stay open with their card side waiting on them.
        try? await serverChannel?.close()
        openConnections.closeAll()
        await serving.value
    }

    // MARK: - Presence

    /// The card connected now, if any.
    public var currentCard: VPCDCardConnection? { card }

    /// Card presence: first the state now, then each change. The stream finishes when the
    /// listener is closed, and ends with the error when accepting connections fails.
    public func presenceChanges() -> AsyncThrowingStream<VPCDCardPresence, any Error> {
        // Only the latest states matter to a slow consumer; keep the buffer bounded.
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: VPCDCardPresence.self, throwing: (any Error).self, bufferingPolicy: .bufferingNewest(16))
        guard !isClosed else {
            continuation.finish()
            return stream
        }
        subscriberCount += 1
        let id = subscriberCount
        subscribers[id] = continuation
        continuation.yield(card == nil ? .absent : .present)
        continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
        return stream
    }

    /// Waits until a card side is connected and returns its connection.
    ///
    /// - Throws: ``VPCDError/listenerClosed``, `CancellationError`.
    public func waitForCard() async throws -> VPCDCardConnection {
        for try await presence in presenceChanges() where presence == .present {
            if let card { return card }
        }
        try Task.checkCancellation()
        throw VPCDError.listenerClosed
    }

    // MARK: - The current card

    /// Powers the connected card and returns its ATR (``VPCDCardConnection/powerOn(timeout:)``).
    public func powerOn(timeout: Duration? = nil) async throws -> [UInt8] {
        try await connectedCard(for: .powerOn).powerOn(timeout: timeout)
    }

    /// Cuts the connected card's power (``VPCDCardConnection/powerOff()``).
    public func powerOff() async throws {
        try await connectedCard(for: .powerOff).powerOff()
    }

    /// Resets the connected card and returns its ATR (``VPCDCardConnection/reset(timeout:)``).
    public func reset(timeout: Duration? = nil) async throws -> [UInt8] {
        try await connectedCard(for: .reset).reset(timeout: timeout)
    }

    /// Sends a command APDU to the connected card (``VPCDCardConnection/transmit(_:timeout:)``).
    public func transmit(_ apdu: [UInt8], timeout: Duration? = nil) async throws -> [UInt8] {
        try await connectedCard(for: .transmit).transmit(apdu, timeout: timeout)
    }

    private func connectedCard(for operation: VPCDOperation) throws -> VPCDCardConnection {
        guard let card else { throw isClosed ? VPCDError.listenerClosed : VPCDError.noCard(operation) }
        return card
    }

    // MARK: - Serving

    private func start(_ server: NIOAsyncChannel<VPCDAcceptedChannel, Never>) {
        serverChannel = server.channel
        serving = Task { await self.serve(server) }
    }

    private nonisolated func serve(_ server: NIOAsyncChannel<VPCDAcceptedChannel, Never>) async {
        var failure: (any Error)?
        do {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { inbound in
                    for try await connection in inbound {
                        group.addTask { await self.serveConnection(connection) }
                    }
                }
            }
        } catch {
            failure = error
        }
        await stopped(failure)
    }

    /// Runs one card side's connection: admits it (or refuses it) and reports its end. Its
    /// messages go straight to its ``VPCDExchangeHandler`` on the event loop.
    private nonisolated func serveConnection(_ accepted: VPCDAcceptedChannel) async {
        guard let card = await admit(accepted) else {
            accepted.channel.close(promise: nil)
            return
        }
        let ended = card.ended
        let reason = await withTaskCancellationHandler {
            (try? await ended.get()) ?? .closedLocally
        } onCancel: {
            Task { await card.close() }
        }
        await cardLeft(card, reason: reason)
    }

    private func admit(_ accepted: VPCDAcceptedChannel) -> VPCDCardConnection? {
        let remote = accepted.channel.remoteAddress?.description ?? "unknown"
        if isClosing || isClosed { return nil }
        if let card {
            logger.warning(
                "vpcd: refusing a second card connection; one card at a time",
                metadata: [
                    "refused": "\(remote)", "connected": "\(card.remoteAddress)",
                ])
            return nil
        }
        connectionCount += 1
        let connection = VPCDCardConnection(
            number: connectionCount, channel: accepted.channel,
            exchanges: accepted.exchanges, timeouts: configuration.timeouts)
        card = connection
        logger.info("vpcd: card connected", metadata: ["card": "\(connectionCount)", "from": "\(remote)"])
        publish(.present)
        return connection
    }

    private func cardLeft(_ connection: VPCDCardConnection, reason: VPCDCardLossReason) {
        guard card === connection else { return }
        card = nil
        switch reason {
        case .peerClosed, .closedLocally:
            logger.info("vpcd: card disconnected", metadata: ["card": "\(connection.number)", "reason": "\(reason)"])
        default:
            logger.warning(
                "vpcd: card disconnected", metadata: ["card": "\(connection.number)", "reason": "\(reason)"])
        }
        publish(.absent)
    }

    private func stopped(_ failure: (any Error)?) {
        // Once close() began, the end of the accept loop is the normal one, whatever it says.
        let failure = isClosing ? nil : failure
        isClosed = true
        card = nil
        if let failure {
            logger.error("vpcd: listener failed", metadata: ["error": "\(failure)"])
        } else {
            logger.info("vpcd: listener closed", metadata: ["address": "\(host):\(port)"])
        }
        for continuation in subscribers.values {
            continuation.finish(throwing: failure)
        }
        subscribers = [:]
    }

    private func publish(_ presence: VPCDCardPresence) {
        for continuation in subscribers.values { continuation.yield(presence) }
    }

    private func unsubscribe(_ id: Int) {
        subscribers[id] = nil
    }
}
