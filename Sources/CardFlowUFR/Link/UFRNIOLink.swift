import NIOCore
import NIOPosix

/// A ``UFRLink`` over SwiftNIO: a TCP connection or UDP datagrams to a uFR Nano Online
/// (its UART1 port is 8881 by default), or a serial device (``UFRSerialPort/open(path:baudRate:)``).
///
/// ```swift
/// let tcp = try await UFRNIOLink.tcp(host: "192.168.1.5", port: 8881)
/// let udp = try await UFRNIOLink.udp(host: "192.168.1.5", port: 8881)
/// ```
public struct UFRNIOLink: UFRLink {
    /// The Nano Online's UART1 port.
    public static let defaultPort = 8881

    public let endpoint: String
    public let isDatagram: Bool
    public let incoming: AsyncStream<UFRLinkEvent>
    private let channel: any Channel
    private let remote: SocketAddress?

    private init(
        endpoint: String, channel: any Channel, remote: SocketAddress?, incoming: AsyncStream<UFRLinkEvent>
    ) {
        self.endpoint = endpoint
        self.isDatagram = remote != nil
        self.channel = channel
        self.remote = remote
        self.incoming = incoming
    }

    /// Connects over TCP.
    ///
    /// - Parameters:
    ///   - host: the reader's address or name.
    ///   - port: its port (8881 for UART1).
    ///   - connectTimeout: how long the connection may take.
    /// - Throws: ``UFRError/connectionFailed(endpoint:reason:)``.
    public static func tcp(
        host: String, port: Int = defaultPort, connectTimeout: Duration = .seconds(3)
    ) async throws -> UFRNIOLink {
        let endpoint = "tcp:\(host):\(port)"
        let (stream, continuation) = AsyncStream.makeStream(of: UFRLinkEvent.self)
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.nanoseconds(connectTimeout.nanoseconds))
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(UFRStreamHandler(continuation: continuation))
                    }
                }
                .connect(host: host, port: port).get()
            return UFRNIOLink(endpoint: endpoint, channel: channel, remote: nil, incoming: stream)
        } catch {
            continuation.finish()
            throw UFRError.connectionFailed(endpoint: endpoint, reason: "\(error)")
        }
    }

    /// Opens a UDP socket towards the reader. Datagrams from any other address are dropped.
    ///
    /// - Parameters:
    ///   - host: the reader's address or name.
    ///   - port: its port (8881 for UART1).
    /// - Throws: ``UFRError/connectionFailed(endpoint:reason:)``.
    public static func udp(host: String, port: Int = defaultPort) async throws -> UFRNIOLink {
        let endpoint = "udp:\(host):\(port)"
        let (stream, continuation) = AsyncStream.makeStream(of: UFRLinkEvent.self)
        do {
            let remote = try SocketAddress.makeAddressResolvingHost(host, port: port)
            let local = remote.protocol == .inet6 ? "::" : "0.0.0.0"
            let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            UFRDatagramHandler(remote: remote, continuation: continuation))
                    }
                }
                .bind(host: local, port: 0).get()
            return UFRNIOLink(endpoint: endpoint, channel: channel, remote: remote, incoming: stream)
        } catch {
            continuation.finish()
            throw UFRError.connectionFailed(endpoint: endpoint, reason: "\(error)")
        }
    }

    /// Takes a configured serial device's descriptor (see ``UFRSerialPort``).
    static func pipe(descriptor: CInt, endpoint: String) async throws -> UFRNIOLink {
        let (stream, continuation) = AsyncStream.makeStream(of: UFRLinkEvent.self)
        do {
            let channel = try await NIOPipeBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(UFRStreamHandler(continuation: continuation))
                    }
                }
                .takingOwnershipOfDescriptor(inputOutput: descriptor).get()
            return UFRNIOLink(endpoint: endpoint, channel: channel, remote: nil, incoming: stream)
        } catch {
            continuation.finish()
            throw UFRError.connectionFailed(endpoint: endpoint, reason: "\(error)")
        }
    }

    public func send(_ bytes: [UInt8]) async throws {
        let buffer = channel.allocator.buffer(bytes: bytes)
        if let remote {
            try await channel.writeAndFlush(AddressedEnvelope(remoteAddress: remote, data: buffer)).get()
        } else {
            try await channel.writeAndFlush(buffer).get()
        }
    }

    public func close() async {
        try? await channel.close().get()
    }
}

extension Duration {
    fileprivate var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

/// Bytes from a TCP connection or a serial device into the link's stream.
final class UFRStreamHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    private let continuation: AsyncStream<UFRLinkEvent>.Continuation

    init(continuation: AsyncStream<UFRLinkEvent>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = Self.unwrapInboundIn(data)
        if let bytes = buffer.readBytes(length: buffer.readableBytes), !bytes.isEmpty {
            continuation.yield(.bytes(bytes))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.yield(.closed(nil))
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.yield(.closed("\(error)"))
        context.close(promise: nil)
    }
}

/// Datagrams from the reader's address into the link's stream; others are dropped.
final class UFRDatagramHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let remote: SocketAddress
    private let continuation: AsyncStream<UFRLinkEvent>.Continuation

    init(remote: SocketAddress, continuation: AsyncStream<UFRLinkEvent>.Continuation) {
        self.remote = remote
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var envelope = Self.unwrapInboundIn(data)
        guard envelope.remoteAddress.ipAddress == remote.ipAddress, envelope.remoteAddress.port == remote.port
        else { return }
        if let bytes = envelope.data.readBytes(length: envelope.data.readableBytes), !bytes.isEmpty {
            continuation.yield(.bytes(bytes))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.yield(.closed(nil))
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP port-unreachable surfaces here on Linux; a datagram link stays open and the
        // command's own timeout decides.
        _ = error
    }
}
