import Logging
import NIOCore
import NIOPosix

/// The card side of the vpcd protocol: makes a ``VPCDCard`` available to a remote reader.
///
/// It connects to a vpcd listener (pcscd with vsmartcard's vpcd driver on port 35963 by
/// default, or a ``VPCDListener``), answers control messages and command APDUs through the
/// card, and when the reader goes away (pcscd restarts, the listener closes) connects again
/// after a delay that doubles up to ``Configuration/maximumReconnectDelay``. ``run()`` returns
/// when its task is cancelled.
///
/// ```swift
/// let exporter = VPCDCardExporter(card: myCard, host: "127.0.0.1", port: 35963, logger: logger)
/// let task = Task { await exporter.run() }
/// // pcsc_scan now shows "Virtual PCD 00 00" with the card present
/// task.cancel()
/// ```
public struct VPCDCardExporter: Sendable {
    /// Settings of a ``VPCDCardExporter``.
    public struct Configuration: Sendable, Hashable {
        /// The first delay before connecting again.
        public var reconnectDelay: Duration
        /// The longest delay between attempts.
        public var maximumReconnectDelay: Duration
        /// The longest message accepted from the reader.
        public var maximumCommandLength: Int
        /// How a reader that vanished without closing the connection is noticed (`nil`: never;
        /// the exporter then waits on such a connection until its task is cancelled).
        public var keepAlive: VPCDKeepAlive?

        public init(
            reconnectDelay: Duration = .milliseconds(100), maximumReconnectDelay: Duration = .seconds(5),
            maximumCommandLength: Int = VPCDFraming.defaultMaximumPayload,
            keepAlive: VPCDKeepAlive? = .standard
        ) {
            self.reconnectDelay = reconnectDelay
            self.maximumReconnectDelay = maximumReconnectDelay
            self.maximumCommandLength = maximumCommandLength
            self.keepAlive = keepAlive
        }
    }

    /// The status word answered when the card fails or gives an answer that cannot be framed.
    public static let failureStatus: [UInt8] = [0x6F, 0x00]

    public let card: any VPCDCard
    public let host: String
    public let port: Int
    public let configuration: Configuration
    private let logger: Logger

    public init(
        card: any VPCDCard, host: String = "127.0.0.1", port: Int = 35963,
        configuration: Configuration = Configuration(), logger: Logger = Logger(label: "cardflow.vpcd")
    ) {
        self.card = card
        self.host = host
        self.port = port
        self.configuration = configuration
        self.logger = logger
    }

    /// Connects, serves, and reconnects until the task is cancelled.
    public func run() async {
        var backoff = VPCDBackoff(initial: configuration.reconnectDelay, maximum: configuration.maximumReconnectDelay)
        var failures = 0
        while !Task.isCancelled {
            do {
                try await runOnce { backoff.reset() }
                failures = 0
                if Task.isCancelled { break }
                logger.info(
                    "vpcd: reader closed the connection; connecting again", metadata: ["address": "\(host):\(port)"])
            } catch {
                if Task.isCancelled { break }
                failures += 1
                // The first failure says why; repeats (the reader is simply not there) stay quiet.
                if failures == 1 {
                    logger.notice("vpcd: cannot reach the reader; retrying", metadata: ["error": "\(error)"])
                } else {
                    logger.debug("vpcd: still cannot reach the reader", metadata: ["error": "\(error)"])
                }
            }
            do {
                try await Task.sleep(for: backoff.take())
            } catch {
                break
            }
        }
        logger.info("vpcd: exporter stopped", metadata: ["address": "\(host):\(port)"])
    }

    /// One connection: connects, serves the reader until it closes the connection.
    ///
    /// - Parameter connected: called once the connection is up.
    /// - Throws: ``VPCDError/connectFailed(host:port:reason:)``; a protocol error the reader made
    ///   (``VPCDError/emptyMessage``, ``VPCDError/messageTooLarge(length:maximum:)`` …).
    public func runOnce(connected: () -> Void = {}) async throws {
        let maximumPayload = configuration.maximumCommandLength
        let (card, logger) = (self.card, self.logger)
        let channel: any Channel
        let closed: EventLoopFuture<Void>
        do {
            (channel, closed) = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(5))
                .vpcdKeepAlive(configuration.keepAlive)
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try VPCDChannel.addCodec(to: channel, maximumPayload: maximumPayload)
                        let serving = VPCDCardServingHandler(card: card, logger: logger, eventLoop: channel.eventLoop)
                        try channel.pipeline.syncOperations.addHandler(serving)
                        return (channel, serving.closed)
                    }
                }
        } catch {
            throw VPCDError.connectFailed(host: host, port: port, reason: "\(error)")
        }
        logger.info("vpcd: connected to the reader", metadata: ["address": "\(host):\(port)"])
        connected()
        try await withTaskCancellationHandler {
            try await closed.get()
        } onCancel: {
            channel.close(promise: nil)
        }
    }
}
