import CardFlowDaemonControl
import CardFlowNIOSupport
import Foundation
import Logging
import NIOCore
import NIOPosix

/// The control socket: a Unix domain socket (mode 0600, owner only) speaking JSON lines.
///
/// Every connection is served on its own, and every request of a connection in its own task, so
/// a slow or stuck client delays only itself. Lines over the line limit are answered with
/// `lineTooLong` and dropped without being buffered; connections beyond the connection limit
/// are answered `tooManyConnections` and closed; requests beyond the per-connection limit are
/// answered `busy` (``DaemonLimits``).
///
/// ```sh
/// echo '{"id":1,"op":"readers"}' | socat - UNIX-CONNECT:/run/cardd/cardd.sock
/// ```
public struct ControlServer: Sendable {
    public let path: String
    public let limits: DaemonLimits
    public var maximumLineLength: Int { limits.maximumLineLength }
    /// Requests of one connection running at once (streams included); more are refused.
    public var maximumRequestsPerConnection: Int { limits.maximumRequestsPerConnection }
    let handler: ControlRequestHandler
    let logger: Logger
    private let connections: RequestLimiter
    /// Accepted connections the accept loop has not taken; closed when serving stops.
    private let accepted = NIOAcceptedConnections<ControlLine, ByteBuffer>()

    init(path: String, handler: ControlRequestHandler, logger: Logger, limits: DaemonLimits = DaemonLimits()) {
        self.path = path
        var handler = handler
        handler.maximumJSONNesting = limits.maximumJSONNesting
        self.handler = handler
        self.logger = logger
        self.limits = limits
        connections = RequestLimiter(limit: limits.maximumConnections)
    }

    /// Binds the socket; the returned channel accepts connections when passed to ``serve(_:)``.
    func bind() async throws -> NIOAsyncChannel<NIOAsyncChannel<ControlLine, ByteBuffer>, Never> {
        // Owner and mode checked before use: a folder others can write lets them swap the socket.
        try ControlSocketFolder.prepare((path as NSString).deletingLastPathComponent)
        // The socket file is created with the umask; 0177 makes it owner-only from the first
        // instant rather than after a chmod.
        let previous = umask(0o177)
        defer { umask(previous) }
        let lineLimit = maximumLineLength
        let accepted = accepted
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try accepted.admit(channel) {
                        try channel.pipeline.syncOperations.addHandler(
                            ByteToMessageHandler(ControlLineDecoder(maximumLength: lineLimit)))
                        return try NIOAsyncChannel<ControlLine, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
            }
        chmod(path, 0o600)
        return server
    }

    /// Serves connections until the task is cancelled; then closes the socket and every
    /// connection (those accepted as it stopped too: ``NIOAcceptLoop``) and removes the file.
    func serve(_ server: NIOAsyncChannel<NIOAsyncChannel<ControlLine, ByteBuffer>, Never>) async throws {
        defer { unlink(path) }
        try await NIOAcceptLoop.run(server, accepted: accepted) { connection in
            guard await connections.enter() else {
                await refuse(connection)
                return
            }
            await serveConnection(connection)
            await connections.leave()
        }
    }

    /// Tells a connection beyond the limit why, and closes it (bounded: a client that does not
    /// read cannot hold the task).
    private func refuse(_ connection: NIOAsyncChannel<ControlLine, ByteBuffer>) async {
        handler.metrics.controlRequest(.tooManyConnections, ok: false)
        logger.warning("control connection refused", metadata: ["limit": "\(limits.maximumConnections)"])
        let answer = ControlRequestHandler.failure(
            id: .null,
            ControlError(
                "tooManyConnections", "more than \(limits.maximumConnections) connections at once; try again later"))
        var buffer = ByteBuffer(string: answer.jsonLine())
        buffer.writeInteger(UInt8(ascii: "\n"))
        try? await connection.channel.writeAndFlush(buffer)
        try? await connection.channel.close()
    }

    private func serveConnection(_ connection: NIOAsyncChannel<ControlLine, ByteBuffer>) async {
        do {
            try await connection.executeThenClose { inbound, outbound in
                let limiter = RequestLimiter(limit: maximumRequestsPerConnection)
                let send: @Sendable (JSONValue) async -> Void = { value in
                    var buffer = ByteBuffer(string: value.jsonLine())
                    buffer.writeInteger(UInt8(ascii: "\n"))
                    try? await outbound.write(buffer)
                }
                await withDiscardingTaskGroup { group in
                    do {
                        for try await line in inbound {
                            guard await limiter.enter() else {
                                handler.metrics.controlRequest(.busy, ok: false)
                                await send(
                                    ControlRequestHandler.failure(
                                        id: .null,
                                        ControlError(
                                            "busy", "more than \(maximumRequestsPerConnection) requests at once")))
                                continue
                            }
                            group.addTask {
                                await handler.handle(line, send: send)
                                await limiter.leave()
                            }
                        }
                    } catch {
                        logger.debug("control connection ended", metadata: ["error": "\(error)"])
                    }
                    // The client is gone: stop its streams.
                    group.cancelAll()
                }
            }
        } catch {
            logger.debug("control connection failed", metadata: ["error": "\(error)"])
        }
    }
}

/// Counts the requests of one connection in flight.
actor RequestLimiter {
    private let limit: Int
    private var active = 0

    init(limit: Int) { self.limit = limit }

    func enter() -> Bool {
        guard active < limit else { return false }
        active += 1
        return true
    }

    func leave() { active -= 1 }
}
