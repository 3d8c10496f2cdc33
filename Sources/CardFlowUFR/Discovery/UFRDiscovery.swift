import Logging
import NIOCore
import NIOPosix

/// Finds uFR Nano Online readers on the local network: one datagram to the discovery port
/// (UDP 8880; the readers answer any datagram, pyuFR sends an empty one) broadcast or sent to an
/// address, then every ``UFRDiscoveryAnswer`` that arrives within a time window. The probe goes
/// out again halfway through the window, since UDP may lose it; answers are kept once per
/// reader. Bounded: at most ``maximumReaders`` readers and as many rejected datagrams are kept,
/// and a datagram is read up to 512 bytes, whatever the network sends.
///
/// ```swift
/// let result = try await UFRDiscovery.discover(window: .seconds(1))
/// for found in result.readers {
///     print(found.answer.host, found.answer.ports.map { $0.endpoint(host: found.answer.host) })
/// }
/// ```
public enum UFRDiscovery {
    /// The Online's discovery port.
    public static let port = 8880
    /// The most readers (and, separately, rejected datagrams) one search keeps.
    public static let maximumReaders = 256

    /// A reader that answered.
    public struct Found: Sendable, Hashable {
        public let answer: UFRDiscoveryAnswer
        /// The address the answer came from (it may differ from the one the reader reports, for
        /// example behind address translation).
        public let source: String
    }

    /// A datagram that was not a discovery answer.
    public struct Rejected: Sendable, Hashable {
        public let source: String
        public let error: UFRDiscoveryAnswerError
    }

    /// What one search found.
    public struct Result: Sendable, Hashable {
        /// The readers, in the order their first answer arrived.
        public var readers: [Found] = []
        /// Datagrams on the socket that were not answers, in order.
        public var rejected: [Rejected] = []
    }

    /// Searches for readers.
    ///
    /// - Parameters:
    ///   - address: where the probe goes: the limited broadcast address by default, a subnet's
    ///     broadcast address (`192.168.1.255`), or one reader's address or name.
    ///   - port: the discovery port.
    ///   - window: how long answers are collected.
    ///   - stopAfter: return as soon as this many readers answered (nil: wait out the window).
    ///   - clock: the clock the window is measured on.
    ///   - logger: where the search logs each answer and each rejected datagram (debug level).
    /// - Throws: ``UFRError/connectionFailed(endpoint:reason:)`` when the probe cannot be sent;
    ///   `CancellationError` when the task is cancelled.
    public static func discover<C: Clock<Duration>>(
        address: String = "255.255.255.255", port: Int = port, window: Duration = .seconds(1),
        stopAfter: Int? = nil, clock: C = ContinuousClock(),
        logger: Logger = Logger(label: "cardflow.ufr.discovery")
    ) async throws -> Result {
        let endpoint = "udp:\(address):\(port)"
        let (datagrams, continuation) = AsyncStream.makeStream(
            of: UFRDiscoveryDatagram.self, bufferingPolicy: .bufferingOldest(2 * maximumReaders))
        let channel: any Channel
        let target: SocketAddress
        do {
            target = try SocketAddress.makeAddressResolvingHost(address, port: port)
            channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.socketOption(.so_broadcast), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            UFRDiscoveryHandler(continuation: continuation))
                    }
                }
                .bind(host: target.protocol == .inet6 ? "::" : "0.0.0.0", port: 0).get()
        } catch {
            continuation.finish()
            throw UFRError.connectionFailed(endpoint: endpoint, reason: "\(error)")
        }
        let probe = { @Sendable () async throws in
            try await channel.writeAndFlush(AddressedEnvelope(remoteAddress: target, data: ByteBuffer())).get()
        }
        do {
            try await probe()
        } catch {
            continuation.finish()
            try? await channel.close().get()
            throw UFRError.connectionFailed(endpoint: endpoint, reason: "\(error)")
        }
        logger.debug("uFR discovery probe sent", metadata: ["to": "\(endpoint)"])
        let timer = Task {
            // The second probe for a lost first one; its failure only costs that chance.
            if (try? await clock.sleep(for: window / 2)) != nil { try? await probe() }
            try? await clock.sleep(for: window / 2)
            continuation.finish()
        }
        var result = Result()
        var seen: Set<Found> = []
        for await datagram in datagrams {
            do {
                let found = Found(answer: try UFRDiscoveryAnswer(bytes: datagram.bytes), source: datagram.source)
                guard result.readers.count < maximumReaders, seen.insert(found).inserted else { continue }
                result.readers.append(found)
                logger.debug(
                    "uFR reader answered", metadata: ["source": "\(found.source)", "host": "\(found.answer.host)"])
            } catch {
                guard result.rejected.count < maximumReaders else { continue }
                result.rejected.append(Rejected(source: datagram.source, error: error))
                logger.debug(
                    "not a uFR discovery answer", metadata: ["source": "\(datagram.source)", "error": "\(error)"])
            }
            if let stopAfter, result.readers.count >= stopAfter { break }
        }
        timer.cancel()
        continuation.finish()
        try? await channel.close().get()
        try Task.checkCancellation()
        return result
    }
}

/// One datagram on the discovery socket.
struct UFRDiscoveryDatagram: Sendable {
    let source: String
    let bytes: [UInt8]
}

/// Datagrams into the search's stream, each cut to 512 bytes (an answer is 18 to a few dozen).
final class UFRDiscoveryHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let continuation: AsyncStream<UFRDiscoveryDatagram>.Continuation

    init(continuation: AsyncStream<UFRDiscoveryDatagram>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var envelope = Self.unwrapInboundIn(data)
        let bytes = envelope.data.readBytes(length: min(envelope.data.readableBytes, 512)) ?? []
        continuation.yield(
            UFRDiscoveryDatagram(source: envelope.remoteAddress.ipAddress ?? "\(envelope.remoteAddress)", bytes: bytes))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP errors (nothing listening at a unicast address) surface here; the window decides.
        _ = error
    }
}
