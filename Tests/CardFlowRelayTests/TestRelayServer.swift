import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// A message the client sent, as the test service sees it.
struct ClientMessage: Sendable, Decodable {
    let v: Int
    let type: String
    let id: Int?
    let uid: String?
    let atr: String?
    let aid: String?
    let select: String?
    let response: String?
    let reason: String?
}

/// Everything the test service saw, for the tests' assertions.
actor ServiceLog {
    private(set) var connections = 0
    private(set) var authorizations: [String?] = []
    private(set) var messages: [ClientMessage] = []
    private(set) var unparsable: [String] = []
    private(set) var closedConnections = 0

    func connected(authorization: String?) {
        connections += 1
        authorizations.append(authorization)
    }
    func record(_ message: ClientMessage) { messages.append(message) }
    func recordUnparsable(_ text: String) { unparsable.append(text) }
    func closed() { closedConnections += 1 }
    var types: [String] { messages.map(\.type) }

    /// Waits (bounded) until `condition` holds.
    func waitUntil(timeout: Duration = .seconds(5), _ condition: @Sendable (ServiceLog) async -> Bool) async -> Bool {
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            if await condition(self) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return await condition(self)
    }
}

/// One client connection of the test service: receive client messages, send raw text.
struct ServiceConnection: Sendable {
    let messages: MessageQueue
    let outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>
    let log: ServiceLog

    struct Closed: Error {}

    /// The next client message; throws when the client closed.
    func next() async throws -> ClientMessage {
        guard let message = await messages.next() else { throw Closed() }
        return message
    }

    func send(_ text: String) async throws {
        try await outbound.write(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text)))
    }

    func send(json object: [String: Any]) async throws {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        try await send(String(decoding: data, as: UTF8.self))
    }

    func sendBinary(_ bytes: [UInt8]) async throws {
        try await outbound.write(WebSocketFrame(fin: true, opcode: .binary, data: ByteBuffer(bytes: bytes)))
    }

    struct Dropped: Error {}

    /// Closes the connection abruptly (no close handshake): the service "drops" the client.
    func drop() throws -> Never {
        throw Dropped()
    }
}

/// A client frame as plain values, unmasked on the event loop.
///
/// NIO's `WebSocketFrame` keeps its payload in a class instance created on the event loop. In one
/// long ThreadSanitizer run, reads of it from the server's task (after the hand-off through
/// `NIOAsyncChannel`) were reported as races; they did not reproduce in later runs, and whether
/// TSan missed the hand-off's ordering is not settled. The test server copies the payload out on
/// the event loop, so only values cross threads and the question does not arise here.
struct ServiceFrame: Sendable {
    let opcode: WebSocketOpcode
    let fin: Bool
    let payload: [UInt8]
}

/// Turns each inbound `WebSocketFrame` into a `ServiceFrame` before the async channel sees it.
final class FrameUnmasking: ChannelInboundHandler, Sendable {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = ServiceFrame

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        var payload = frame.unmaskedData
        let bytes = payload.readBytes(length: payload.readableBytes) ?? []
        context.fireChannelRead(wrapInboundOut(ServiceFrame(opcode: frame.opcode, fin: frame.fin, payload: bytes)))
    }
}

/// The client's messages of one connection, read one at a time.
actor MessageQueue {
    private var buffer: [ClientMessage] = []
    private var finished = false
    private var waiter: CheckedContinuation<ClientMessage?, Never>?

    func push(_ message: ClientMessage) {
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: message)
        } else {
            buffer.append(message)
        }
    }

    func finish() {
        finished = true
        waiter?.resume(returning: nil)
        waiter = nil
    }

    func next() async -> ClientMessage? {
        if !buffer.isEmpty { return buffer.removeFirst() }
        if finished { return nil }
        return await withCheckedContinuation { waiter = $0 }
    }
}

/// A relay service for the tests: a WebSocket server on 127.0.0.1 (TLS when given a context)
/// that runs `behaviour` for every connection.
final class TestRelayServer: Sendable {
    enum Upgrade: Sendable {
        case websocket(NIOAsyncChannel<ServiceFrame, WebSocketFrame>, authorization: String?)
        case notUpgraded
    }

    let port: Int
    let log: ServiceLog
    private let serverTask: Task<Void, Never>
    private let channel: any Channel

    private init(port: Int, log: ServiceLog, serverTask: Task<Void, Never>, channel: any Channel) {
        self.port = port
        self.log = log
        self.serverTask = serverTask
        self.channel = channel
    }

    var url: String { "ws://127.0.0.1:\(port)/sync" }

    static func start(
        tls: NIOSSLContext? = nil,
        behaviour: @escaping @Sendable (ServiceConnection) async throws -> Void
    ) async throws -> TestRelayServer {
        let server: NIOAsyncChannel<EventLoopFuture<Upgrade>, Never> = try await ServerBootstrap(
            group: MultiThreadedEventLoopGroup.singleton
        )
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .bind(host: "127.0.0.1", port: 0) { channel in
            channel.eventLoop.makeCompletedFuture {
                if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                let upgrader = NIOTypedWebSocketServerUpgrader<Upgrade>(
                    maxFrameSize: 1 << 20,
                    shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
                    upgradePipelineHandler: { channel, head in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(FrameUnmasking())
                            let websocket = try NIOAsyncChannel<ServiceFrame, WebSocketFrame>(
                                wrappingChannelSynchronously: channel)
                            return Upgrade.websocket(websocket, authorization: head.headers["Authorization"].first)
                        }
                    })
                let configuration = NIOTypedHTTPServerUpgradeConfiguration(
                    upgraders: [upgrader],
                    notUpgradingCompletionHandler: { channel in
                        channel.eventLoop.makeCompletedFuture {
                            channel.close(promise: nil)
                            return Upgrade.notUpgraded
                        }
                    })
                return try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
                    configuration: .init(upgradeConfiguration: configuration))
            }
        }
        let log = ServiceLog()
        let port = server.channel.localAddress?.port ?? 0
        let task = Task {
            _ = try? await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { inbound in
                    for try await upgrade in inbound {
                        group.addTask {
                            guard case .websocket(let websocket, let authorization) = try? await upgrade.get() else {
                                return
                            }
                            await log.connected(authorization: authorization)
                            try? await Self.serve(websocket, log: log, behaviour: behaviour)
                            await log.closed()
                        }
                    }
                }
            }
        }
        return TestRelayServer(port: port, log: log, serverTask: task, channel: server.channel)
    }

    private static func serve(
        _ websocket: NIOAsyncChannel<ServiceFrame, WebSocketFrame>, log: ServiceLog,
        behaviour: @escaping @Sendable (ServiceConnection) async throws -> Void
    ) async throws {
        try await websocket.executeThenClose { inbound, outbound in
            let messages = MessageQueue()
            let connection = ServiceConnection(messages: messages, outbound: outbound, log: log)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    var text: [UInt8] = []
                    do {
                        for try await frame in inbound {
                            switch frame.opcode {
                            case .text, .continuation:
                                text += frame.payload
                                guard frame.fin else { continue }
                                let string = String(decoding: text, as: UTF8.self)
                                text.removeAll()
                                if let message = try? JSONDecoder().decode(ClientMessage.self, from: Data(string.utf8))
                                {
                                    await log.record(message)
                                    await messages.push(message)
                                } else {
                                    await log.recordUnparsable(string)
                                }
                            case .ping:
                                try await outbound.write(
                                    WebSocketFrame(fin: true, opcode: .pong, data: ByteBuffer(bytes: frame.payload)))
                            case .connectionClose:
                                await messages.finish()
                                let code = ByteBuffer(bytes: frame.payload.prefix(2))
                                try? await outbound.write(
                                    WebSocketFrame(fin: true, opcode: .connectionClose, data: code))
                                return
                            default:
                                break
                            }
                        }
                    } catch {
                        // The client vanished: the behaviour sees the end of its messages.
                    }
                    await messages.finish()
                }
                group.addTask {
                    try await behaviour(connection)
                    // Let the client close (it does after done/failed), bounded.
                    try await Task.sleep(for: .seconds(5))
                }
                try await group.next()
                group.cancelAll()
            }
        }
    }

    func stop() async {
        try? await channel.close()
        serverTask.cancel()
        await serverTask.value
    }
}
