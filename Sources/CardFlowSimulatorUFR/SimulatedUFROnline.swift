import Logging
import NIOCore
import NIOPosix

/// A simulated uFR Nano Online: a ``SimulatedUFRReader`` answering the same COM frames on a
/// TCP port and a UDP port of the loopback interface (ufr.md §1.3: bytes to the port pass
/// unchanged to the reader's UART), with datagram faults injectable on UDP.
///
/// ```swift
/// let online = try await SimulatedUFROnline.start(reader: SimulatedUFRReader(card: DESFireCard(seed: 1)))
/// // cardctl --reader ufr:tcp:127.0.0.1:\(online.tcpPort) …
/// await online.stop()
/// ```
public actor SimulatedUFROnline {
    /// The reader behind both ports.
    public nonisolated let reader: SimulatedUFRReader
    /// The TCP port.
    public nonisolated let tcpPort: Int
    /// The UDP port.
    public nonisolated let udpPort: Int
    private var channels: [any Channel] = []
    private var tasks: [Task<Void, Never>] = []
    private var faults = UFRDatagramFaults()
    private var heldDatagram: [UInt8]?
    private let logger: Logger

    private init(reader: SimulatedUFRReader, tcpPort: Int, udpPort: Int, logger: Logger) {
        self.reader = reader
        self.tcpPort = tcpPort
        self.udpPort = udpPort
        self.logger = logger
    }

    /// Starts serving on 127.0.0.1 (ports chosen by the system when 0).
    public static func start(
        reader: SimulatedUFRReader, tcpPort: Int = 0, udpPort: Int = 0,
        logger: Logger = Logger(label: "cardflow.ufr.simulator")
    ) async throws -> SimulatedUFROnline {
        let group = MultiThreadedEventLoopGroup.singleton
        let (connections, connectionSink) = AsyncStream.makeStream(of: Connection.self)
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let (stream, sink) = AsyncStream.makeStream(of: [UInt8].self)
                    try channel.pipeline.syncOperations.addHandler(UFRSimulatorStreamHandler(sink: sink))
                    connectionSink.yield(Connection(channel: channel, bytes: stream))
                }
            }
            .bind(host: "127.0.0.1", port: tcpPort).get()
        let (datagrams, datagramSink) = AsyncStream.makeStream(of: AddressedEnvelope<ByteBuffer>.self)
        let udp = try await DatagramBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(UFRSimulatorDatagramHandler(sink: datagramSink))
                }
            }
            .bind(host: "127.0.0.1", port: udpPort).get()
        let online = SimulatedUFROnline(
            reader: reader, tcpPort: server.localAddress?.port ?? tcpPort, udpPort: udp.localAddress?.port ?? udpPort,
            logger: logger)
        await online.run(server: server, connections: connections, udp: udp, datagrams: datagrams)
        return online
    }

    /// Sets the UDP faults to inject from now on.
    public func setDatagramFaults(_ faults: UFRDatagramFaults) {
        self.faults = faults
    }

    /// Stops serving and closes every connection.
    public func stop() async {
        for task in tasks { task.cancel() }
        for channel in channels { try? await channel.close().get() }
        channels.removeAll()
        tasks.removeAll()
    }

    private func run(
        server: any Channel, connections: AsyncStream<Connection>, udp: any Channel,
        datagrams: AsyncStream<AddressedEnvelope<ByteBuffer>>
    ) {
        channels += [server, udp]
        tasks.append(
            Task {
                for await connection in connections { self.serve(connection) }
            })
        tasks.append(
            Task {
                var parsers: [SocketAddress: UFRCommandParser] = [:]
                for await datagram in datagrams {
                    var data = datagram.data
                    let bytes = data.readBytes(length: data.readableBytes) ?? []
                    guard !self.takeIncomingDrop() else { continue }
                    var parser = parsers[datagram.remoteAddress] ?? UFRCommandParser()
                    let events = parser.feed(bytes)
                    parsers[datagram.remoteAddress] = parser
                    for answer in await self.answers(to: events) {
                        await self.sendDatagram(answer, to: datagram.remoteAddress, on: udp)
                    }
                }
            })
    }

    /// An accepted TCP connection and the bytes it receives.
    struct Connection: Sendable {
        let channel: any Channel
        let bytes: AsyncStream<[UInt8]>
    }

    private func serve(_ accepted: Connection) {
        let connection = accepted.channel
        channels.append(connection)
        let reader = self.reader
        tasks.append(Task { await UFRStreamServing.serve(accepted.bytes, on: connection, reader: reader) })
    }

    private func answers(to events: [UFRCommandParser.Event]) async -> [[UInt8]] {
        var answers: [[UInt8]] = []
        for event in events {
            switch event {
            case .reply(let bytes): answers.append(bytes)
            case .command(let code, let parameter0, let parameter1, let ext):
                answers.append(await reader.run(code: code, parameter0: parameter0, parameter1: parameter1, ext: ext))
            }
        }
        return answers
    }

    private func takeIncomingDrop() -> Bool {
        guard faults.dropIncoming > 0 else { return false }
        faults.dropIncoming -= 1
        return true
    }

    private func sendDatagram(_ bytes: [UInt8], to address: SocketAddress, on channel: any Channel) async {
        guard !bytes.isEmpty else { return }
        var outgoing: [[UInt8]] = [bytes]
        if faults.dropOutgoing > 0 {
            faults.dropOutgoing -= 1
            outgoing = []
        } else if faults.duplicateOutgoing > 0 {
            faults.duplicateOutgoing -= 1
            outgoing = [bytes, bytes]
        } else if faults.delayOutgoing > 0 {
            faults.delayOutgoing -= 1
            heldDatagram = bytes
            return
        }
        if let held = heldDatagram, !outgoing.isEmpty {
            heldDatagram = nil
            outgoing.append(held)
        }
        for datagram in outgoing {
            let envelope = AddressedEnvelope(remoteAddress: address, data: channel.allocator.buffer(bytes: datagram))
            try? await channel.writeAndFlush(envelope).get()
        }
    }
}

final class UFRSimulatorStreamHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    private let sink: AsyncStream<[UInt8]>.Continuation

    init(sink: AsyncStream<[UInt8]>.Continuation) {
        self.sink = sink
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = Self.unwrapInboundIn(data)
        sink.yield(buffer.readBytes(length: buffer.readableBytes) ?? [])
    }

    func channelInactive(context: ChannelHandlerContext) {
        sink.finish()
        context.fireChannelInactive()
    }
}

final class UFRSimulatorDatagramHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let sink: AsyncStream<AddressedEnvelope<ByteBuffer>>.Continuation

    init(sink: AsyncStream<AddressedEnvelope<ByteBuffer>>.Continuation) {
        self.sink = sink
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        sink.yield(Self.unwrapInboundIn(data))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A datagram socket stays up (an ICMP error for one peer is that peer's problem).
        _ = error
    }
}
