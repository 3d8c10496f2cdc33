import CardFlowNIOSupport
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// Serves `GET /metrics` (Prometheus text format) on a loopback port, for scrapers that cannot
/// read the control socket. Anything else gets 404; it never binds beyond 127.0.0.1.
struct MetricsHTTPServer: Sendable {
    let metrics: DaemonMetrics
    let logger: Logger
    /// Accepted connections the accept loop has not taken; closed when serving stops.
    let accepted = NIOAcceptedConnections<HTTPServerRequestPart, HTTPServerResponsePart>()

    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    /// Binds 127.0.0.1:`port` (0: any free port; the channel's local address tells which).
    func bind(port: Int) async throws -> NIOAsyncChannel<Connection, Never> {
        let accepted = accepted
        return try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 16)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try accepted.admit(channel) {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        return try Connection(wrappingChannelSynchronously: channel)
                    }
                }
            }
    }

    /// Serves until the task is cancelled; then closes every connection (``NIOAcceptLoop``).
    func serve(_ server: NIOAsyncChannel<Connection, Never>) async throws {
        try await NIOAcceptLoop.run(server, accepted: accepted) { connection in await answer(connection) }
    }

    private func answer(_ connection: Connection) async {
        do {
            try await connection.executeThenClose { inbound, outbound in
                var head: HTTPRequestHead?
                for try await part in inbound {
                    switch part {
                    case .head(let request): head = request
                    case .body: continue
                    case .end:
                        guard let request = head else { continue }
                        let found =
                            request.method == .GET && (request.uri == "/metrics" || request.uri.hasPrefix("/metrics?"))
                        let body = found ? metrics.exposition() : "not found; try GET /metrics\n"
                        var headers = HTTPHeaders()
                        headers.add(name: "Content-Type", value: found ? "text/plain; version=0.0.4" : "text/plain")
                        headers.add(name: "Content-Length", value: "\(body.utf8.count)")
                        headers.add(name: "Connection", value: "close")
                        try await outbound.write(
                            .head(
                                HTTPResponseHead(
                                    version: request.version, status: found ? .ok : .notFound,
                                    headers: headers)))
                        try await outbound.write(.body(.byteBuffer(ByteBuffer(string: body))))
                        try await outbound.write(.end(nil))
                        return
                    }
                }
            }
        } catch {
            logger.debug("metrics connection failed", metadata: ["error": "\(error)"])
        }
    }
}
