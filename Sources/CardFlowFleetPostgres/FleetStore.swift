import CardFlowFleet
import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO

/// The fleet's shared state in PostgreSQL: batches of personalisation records, their claims
/// (lease and fencing token), spoiled cards and the hosts.
///
/// Every operation is one short statement or transaction (none is held across card I/O) and is
/// bounded by ``operationTimeout``: a stopped or unreachable server fails the call with
/// ``/CardFlowFleet/FleetStoreError/unreachable(operation:reason:)`` or
/// ``/CardFlowFleet/FleetStoreError/timedOut(operation:seconds:)``
/// instead of hanging, so the daemon keeps its completions in its outbox and goes on.
///
/// Run ``run()`` in a task for as long as the store is used (it runs the connection pool):
///
/// ```swift
/// let store = FleetStore(address: try FleetDatabaseAddress("postgresql:///cardflow?host=/run/postgresql"),
///                        logger: logger)
/// try await withThrowingDiscardingTaskGroup { group in
///     group.addTask { await store.run() }
///     try await store.migrate()
///     let imported = try await store.importRecords(batch: "badges-2026", records, maxAttempts: 3)
///     group.cancelAll()
/// }
/// ```
public final class FleetStore: FleetQueue {
    /// The server this store talks to (without password); with several servers, the primary
    /// among them (``primaryIndex()``).
    public let address: FleetDatabaseAddress
    /// Bound on one operation, waiting for a connection included.
    public let operationTimeout: Duration
    /// One connection pool per server of ``address``; operations use the selector's choice.
    let clients: [PostgresClient]
    let logger: Logger
    /// One per pool, opened by ``run()``: operations wait for their pool's rather than lease from
    /// a pool that is not running.
    let poolsStarted: [PoolStartSignal]
    /// LISTEN runs on a connection of its own, outside the pool: it is held for as long as the
    /// host listens, and closing it is what ends the listen at once on shutdown. One per server.
    let listenConfigurations: [PostgresConnection.Configuration?]
    /// Which server is the primary, for an address of several.
    let selector: FleetPrimarySelector

    /// A store on the servers of `address`.
    ///
    /// - Parameters:
    ///   - address: the server, or a primary and its standbys.
    ///   - operationTimeout: the longest any operation waits for the server.
    ///   - keepsConnections: whether a pool holds its connections open between operations (with
    ///     one server only): right for a host that claims card after card (cardd), which then
    ///     starts no idle-timeout timer per operation; a short-lived client (cardctl) leaves it off
    ///     and opens only the connections it uses.
    ///   - logger: where the store and postgres-nio log.
    public init(
        address: FleetDatabaseAddress, operationTimeout: Duration = .seconds(10), keepsConnections: Bool = false,
        logger: Logger
    ) {
        self.address = address
        self.operationTimeout = operationTimeout
        self.logger = logger
        let connections = address.endpoints.map { Self.configurations(address, $0) }
        clients = connections.map { configuration, _ in
            var configuration = configuration
            configuration.options.connectTimeout = min(operationTimeout, .seconds(10))
            configuration.options.maximumConnections = 4
            // A host with one server keeps its pool's connections: a connection above the minimum
            // gets an idle-timeout timer (two tasks and a sleep in postgres-nio's pool) each time it
            // goes back to the pool, twice per card. With standbys listed, their pools stay lazy.
            if keepsConnections, address.endpoints.count == 1 { configuration.options.minimumConnections = 4 }
            // The pool notices a server that went away through the keep-alive; a host then
            // reconnects when its next operation asks, without waiting for a long idle timeout.
            configuration.options.keepAliveBehavior = .init(frequency: .seconds(15))
            return PostgresClient(configuration: configuration, backgroundLogger: logger)
        }
        poolsStarted = clients.map { _ in PoolStartSignal() }
        listenConfigurations = connections.map(\.1)
        let probes = listenConfigurations
        // A probe is bounded well inside an operation: a server that does not answer within it
        // is not the one to wait for.
        let probeTimeout = min(operationTimeout / 2, .seconds(3))
        selector = FleetPrimarySelector(count: clients.count) { index in
            await Self.role(of: probes[index], timeout: probeTimeout, logger: logger)
        }
    }

    /// The pool's and the LISTEN connection's configurations for one server.
    private static func configurations(
        _ address: FleetDatabaseAddress, _ endpoint: FleetDatabaseAddress.Endpoint
    ) -> (PostgresClient.Configuration, PostgresConnection.Configuration?) {
        switch endpoint {
        case .unixSocket(let path):
            return (
                .init(
                    unixSocketPath: path, username: address.user, password: address.password,
                    database: address.database),
                .init(
                    unixSocketPath: path, username: address.user, password: address.password,
                    database: address.database)
            )
        case .tcp(let host, let port):
            let tls: PostgresClient.Configuration.TLS
            switch address.tls {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(.makeClientConfiguration())
            case .require: tls = .require(.makeClientConfiguration())
            }
            let listenTLS: PostgresConnection.Configuration.TLS?
            switch address.tls {
            case .disable: listenTLS = .disable
            case .prefer:
                listenTLS = (try? NIOSSLContext(configuration: .makeClientConfiguration())).map { .prefer($0) }
            case .require:
                listenTLS = (try? NIOSSLContext(configuration: .makeClientConfiguration())).map { .require($0) }
            }
            return (
                .init(
                    host: host, port: port, username: address.user, password: address.password,
                    database: address.database, tls: tls),
                listenTLS.map {
                    .init(
                        host: host, port: port, username: address.user, password: address.password,
                        database: address.database, tls: $0)
                }
            )
        }
    }

    /// Runs the connection pools until the calling task is cancelled. Operations asked before it
    /// starts wait for it (within ``operationTimeout``).
    public func run() async {
        // Each opened just before its pool, in the task that runs it: a client marks itself
        // running as the first thing its run() does, before anything the waiters resume to can
        // reach it.
        let clients = self.clients
        let signals = poolsStarted
        await withDiscardingTaskGroup { group in
            for (client, signal) in zip(clients.dropFirst(), signals.dropFirst()) {
                group.addTask {
                    signal.open()
                    await client.run()
                }
            }
            signals[0].open()
            await clients[0].run()
        }
    }

    /// The position in ``/CardFlowFleet/FleetDatabaseAddress/endpoints`` of the server operations go to: the
    /// one that last answered as the primary (asking the servers first when none has yet).
    /// Throws when none answers as the primary.
    public func primaryIndex() async throws(FleetStoreError) -> Int {
        try await selector.serverForOperation("find the primary")
    }

    /// Creates the fleet's tables when they are missing and upgrades an older schema (idempotent;
    /// several hosts may call it at once).
    ///
    /// Throws ``/CardFlowFleet/FleetStoreError/schemaMissing(_:)`` when the database is at a
    /// newer version than this build knows.
    public func migrate() async throws(FleetStoreError) {
        try await perform("migrate") { client, logger in
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(FleetSchema.lockKey))", logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: FleetSchema.versionTable), logger: logger)
                let versions = try await connection.query("SELECT version FROM fleet_schema", logger: logger)
                var found: [Int] = []
                for try await version in versions.decode(Int.self) { found.append(version) }
                let current = found.max() ?? 0
                guard current <= FleetSchema.version else {
                    throw FleetStoreError.schemaMissing(
                        "the database has schema version \(current); this build knows \(FleetSchema.version)")
                }
                for step in FleetSchema.steps where step.version > current {
                    for statement in step.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                }
                if found.isEmpty {
                    try await connection.query(
                        "INSERT INTO fleet_schema (version) VALUES (\(FleetSchema.version))", logger: logger)
                } else if current < FleetSchema.version {
                    try await connection.query(
                        "UPDATE fleet_schema SET version = \(FleetSchema.version)", logger: logger)
                    logger.info(
                        "fleet schema upgraded", metadata: ["from": "\(current)", "to": "\(FleetSchema.version)"])
                }
            }
        }
    }

    /// Runs `body` against the pool within ``operationTimeout``, mapping every failure to a
    /// ``/CardFlowFleet/FleetStoreError`` that names `operation`.
    ///
    /// The bound holds even when `body` does not end on cancellation (a pool that is shutting
    /// down can leave a lease request hanging): the first of the answer, the timeout and the
    /// caller's cancellation wins, and a body still running is cancelled and left behind. Waiting
    /// for ``run()`` to start counts towards the bound.
    func perform<Value: Sendable>(
        _ operation: String,
        _ body: @escaping @Sendable (PostgresClient, Logger) async throws -> Value
    ) async throws(FleetStoreError) -> Value {
        let server = try await selector.serverForOperation(operation)
        do {
            return try await perform(operation, on: clients[server], started: poolsStarted[server], body)
        } catch {
            await selector.operationFailed(on: server, with: error)
            throw error
        }
    }

    /// ``perform(_:_:)`` against one server's pool.
    private func perform<Value: Sendable>(
        _ operation: String, on client: PostgresClient, started poolStarted: PoolStartSignal,
        _ body: @escaping @Sendable (PostgresClient, Logger) async throws -> Value
    ) async throws(FleetStoreError) -> Value {
        let logger = self.logger
        let timeout = operationTimeout
        let (answers, sink) = AsyncThrowingStream<Value, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let work = Task {
            do {
                try await poolStarted.wait()
                sink.yield(try await body(client, logger))
                sink.finish()
            } catch {
                sink.finish(throwing: error)
            }
        }
        // The bound is a task scheduled on the event loops the clients use (a heap entry there),
        // not a Swift task with a timer of its own per operation.
        let timer = PostgresClient.defaultEventLoopGroup.any().scheduleTask(in: TimeAmount(timeout)) {
            sink.finish(throwing: FleetStoreError.timedOut(operation: operation, seconds: Self.seconds(timeout)))
        }
        defer {
            work.cancel()
            timer.cancel()
        }
        do {
            for try await value in answers { return value }
            throw CancellationError()
        } catch {
            throw Self.map(error, operation: operation)
        }
    }

    /// A store error for anything an operation threw; a transaction's error is unwrapped to
    /// what failed inside it (the body's own error, else the BEGIN, COMMIT or ROLLBACK).
    static func map(_ error: any Error, operation: String) -> FleetStoreError {
        switch error {
        case let error as FleetStoreError: return error
        case let error as PSQLError: return map(error, operation: operation)
        case let error as PostgresTransactionError:
            if let inner = error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError {
                return map(inner, operation: operation)
            }
            return .unreachable(operation: operation, reason: "transaction failed")
        case is CancellationError: return .unreachable(operation: operation, reason: "cancelled")
        default: return .unreachable(operation: operation, reason: String(describing: error))
        }
    }

    static func map(_ error: PSQLError, operation: String) -> FleetStoreError {
        if error.code == .server, let state = error.serverInfo?[.sqlState] {
            let message = error.serverInfo?[.message] ?? "no message"
            // undefined_table, undefined_column, undefined_function: no or an older schema.
            if ["42P01", "42703", "42883"].contains(state) { return .schemaMissing(message) }
            return .server(operation: operation, sqlState: state, message: message)
        }
        if error.code == .queryCancelled { return .unreachable(operation: operation, reason: "cancelled") }
        var reason = error.code.description
        if let underlying = error.underlying { reason += ": \(underlying)" }
        return .unreachable(operation: operation, reason: reason)
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// SQLSTATE of a unique violation, for callers that turn it into a domain answer.
    static let uniqueViolation = "23505"
}

extension FleetStore {
    /// Asks one server whether it is the primary (`pg_is_in_recovery()` false) on a connection of
    /// its own, closed afterwards; a server that does not answer within `timeout` is unreachable.
    static func role(
        of configuration: PostgresConnection.Configuration?, timeout: Duration, logger: Logger
    ) async -> FleetPrimarySelector.Role {
        guard var configuration else { return .unreachable("no TLS context") }
        configuration.options.connectTimeout = .nanoseconds(Int64(seconds(timeout) * 1e9))
        let (answers, sink) = AsyncStream<FleetPrimarySelector.Role>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let work = Task {
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: configuration, id: 0, logger: logger)
                let answer: Result<Bool, any Error>
                do {
                    var inRecovery: Bool?
                    for try await value in try await connection.query("SELECT pg_is_in_recovery()", logger: logger)
                        .decode(Bool.self)
                    {
                        inRecovery = value
                    }
                    answer = .success(inRecovery ?? true)
                } catch {
                    answer = .failure(error)
                }
                // postgres-nio asserts that no connection is dropped open.
                try? await connection.close()
                sink.yield(try answer.get() ? .standby : .primary)
            } catch {
                sink.yield(.unreachable(map(error, operation: "find the primary").description))
            }
            sink.finish()
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            sink.yield(.unreachable("no answer within \(seconds(timeout)) s"))
            sink.finish()
        }
        defer {
            work.cancel()
            timer.cancel()
        }
        for await role in answers { return role }
        return .unreachable("cancelled")
    }
}
