import NIOCore
import NIOPosix

/// The discovery side of a simulated uFR Nano Online: a UDP port on the loopback interface that
/// answers every datagram with the Online's discovery answer, written from the vendor's layout
/// (ufr.md §1.3) rather than from CardFlow's parser: the IPv4 address, then per UART its port
/// (little-endian), `T` or `U`, and its baud rate (little-endian, 4 bytes); then, when a serial
/// is given, `0B <serial> 00` as pyuFR reads it.
///
/// The simulated Online serves its one reader on a UDP and a TCP port; the answer reports the
/// UDP port as UART1 and the TCP port as UART2 (a real Online would name two UARTs, each with the
/// transport its owner chose), so each selector the answer leads to opens the same reader.
///
/// ```swift
/// let online = try await SimulatedUFROnline.start(reader: SimulatedUFRReader(card: DESFireCard(seed: 1)))
/// let discovery = try await SimulatedUFRDiscoveryResponder.start(online: online, serial: "ON000001")
/// // cardctl list --discover-ufr --discovery-address 127.0.0.1 --discovery-port \(discovery.port)
/// await discovery.stop()
/// ```
///
/// ``start(answers:port:)`` answers with any datagrams instead: a hostile or broken device.
public actor SimulatedUFRDiscoveryResponder {
    /// The UDP port it answers on.
    public nonisolated let port: Int
    /// The datagrams it sends for each one it receives.
    public nonisolated let answers: [[UInt8]]
    /// How many datagrams it has answered.
    public private(set) var answered = 0
    private let channel: any Channel
    private var task: Task<Void, Never>?

    private init(port: Int, answers: [[UInt8]], channel: any Channel) {
        self.port = port
        self.answers = answers
        self.channel = channel
    }

    /// Answers on 127.0.0.1 for `online` (a port chosen by the system when 0; the real readers
    /// use 8880).
    public static func start(
        online: SimulatedUFROnline, port: Int = 0, serial: String? = nil, baudRate: UInt32 = 115_200
    ) async throws -> SimulatedUFRDiscoveryResponder {
        func uart(_ port: Int, _ transport: Unicode.Scalar) -> [UInt8] {
            [UInt8(truncatingIfNeeded: port), UInt8(truncatingIfNeeded: port >> 8), UInt8(ascii: transport)]
                + (0..<4).map { UInt8(truncatingIfNeeded: baudRate >> ($0 * 8)) }
        }
        var answer: [UInt8] = [127, 0, 0, 1] + uart(online.udpPort, "U") + uart(online.tcpPort, "T")
        if let serial { answer += [0x0B] + Array(serial.utf8) + [0x00] }
        return try await start(answers: [answer], port: port)
    }

    /// Answers every datagram on 127.0.0.1 with `answers`, in order.
    public static func start(answers: [[UInt8]], port: Int = 0) async throws -> SimulatedUFRDiscoveryResponder {
        let (datagrams, sink) = AsyncStream.makeStream(of: AddressedEnvelope<ByteBuffer>.self)
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(UFRSimulatorDatagramHandler(sink: sink))
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
        let responder = SimulatedUFRDiscoveryResponder(
            port: channel.localAddress?.port ?? port, answers: answers, channel: channel)
        await responder.serve(datagrams)
        return responder
    }

    /// Stops answering.
    public func stop() async {
        task?.cancel()
        try? await channel.close().get()
    }

    private func serve(_ datagrams: AsyncStream<AddressedEnvelope<ByteBuffer>>) {
        task = Task {
            for await datagram in datagrams { await self.reply(to: datagram.remoteAddress) }
        }
    }

    private func reply(to address: SocketAddress) async {
        answered += 1
        for answer in answers {
            let envelope = AddressedEnvelope(remoteAddress: address, data: channel.allocator.buffer(bytes: answer))
            try? await channel.writeAndFlush(envelope).get()
        }
    }
}
