import CardFlowDaemonTestSupport
import CardFlowFleet
import CardFlowFleetPostgres
import CardFlowPostgresTestSupport
import Testing

/// A store never leases a connection from a pool that is not running (postgres-nio warns, and
/// `cardctl fleet …` showed the warning): operations wait for ``FleetStore/run()``.
@Suite(
    "PostgresFleet pool start", .serialized,
    .enabled(if: FleetTestEnvironment.hasPostgres, FleetTestEnvironment.skipReason))
struct PostgresFleetPoolStartTests {
    @Test func aQueryBeforeThePoolRunsWaitsForIt() async throws {
        try await withFleetStore { _, server in
            let capture = LogCapture()
            let store = FleetStore(
                address: try FleetDatabaseAddress(server.url), operationTimeout: .seconds(1),
                logger: capture.logger())
            // Nobody runs the pool yet: the operation waits for it, within its bound, instead
            // of leasing a connection from a pool that is not running.
            await #expect(throws: FleetStoreError.self) { try await store.migrate() }
            #expect(!capture.text.contains("hasn't been called yet"), "\(capture.text)")
            // Started together, as `cardctl fleet …` starts them: the query waits for the pool.
            let pool = Task { await store.run() }
            defer { pool.cancel() }
            try await store.migrate()
            #expect(!capture.text.contains("hasn't been called yet"), "\(capture.text)")
        }
    }
}
