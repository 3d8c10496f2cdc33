import CardFlow
import CardFlowDaemon
import CardFlowDaemonTestSupport
import CardFlowFleet
import CardFlowFleetPostgres
import CardFlowPostgresTestSupport
import Foundation
import Testing

/// The database server's disk fills up: PostgreSQL refuses to extend a table (SQLSTATE 53100)
/// and, once it cannot start a WAL segment, stops itself (a PANIC). The server runs on a small
/// tmpfs of its own that the test fills; nothing is simulated on the client side.
@Suite(
    "PostgresFleet disk full", .serialized,
    .enabled(if: FleetTestEnvironment.hasPostgres, FleetTestEnvironment.skipReason))
struct PostgresFleetDiskFullTests {
    @Test func aFullDiskIsATypedTransientRefusalAndStoresNothing() async throws {
        try await withSmallServer { store, server in
            try await server.fillDisk()
            let batch = records(5_000)
            await #expect {
                try await store.importRecords(batch: "b", batch)
            } throws: { error in
                guard let error = error as? FleetStoreError else { return false }
                return error.isDiskFull && error.isTransient && error.category == .reader
                    && error.description.contains("disk is full")
            }
            try await server.freeDisk()
            // Nothing of the refused import was stored; the same import succeeds with space.
            #expect(try await store.records(batch: "b").isEmpty)
            #expect(try await store.importRecords(batch: "b", batch).imported == 5_000)
        }
    }

    @Test func aCompletionWaitsInTheOutboxWhileTheDiskIsFullAndIsDeliveredOnce() async throws {
        try await withSmallServer { store, server in
            _ = try await store.importRecords(
                batch: "b", [FleetRecordInput(reference: "R1", parameters: Array(#"{"text": "one"}"#.utf8))])
            let (configuration, membership) = try PostgresFleetWorkerTests.host("a", server: server, lease: 60)
            let (reader, uid) = await PostgresFleetWorkerTests.reader("sim:a", seed: 606, latency: .milliseconds(300))
            try await DaemonHarness.run(
                configuration: configuration, simulatedReaders: [reader], fleetMembership: membership
            ) { host in
                try await PostgresFleetWorkerTests.waitFor("host a claims the record") {
                    try await PostgresFleetWorkerTests.record(store)?.host == "a"
                }
                try await server.fillDisk()
                // End the current WAL segment: the server's next write needs a new one, for which
                // there is no space. (If the server already stopped, there is nothing to end.)
                _ = try? await server.psql("SELECT pg_switch_wal()")
                let job = try await host.waitForJob { $0.state != .running }
                #expect(job.state == .succeeded, "\(job.error ?? "")")
                let worker = try #require(host.daemon.fleetWorker)
                try await PostgresFleetWorkerTests.waitFor("the completion waits in the outbox") {
                    await worker.report.outboxDepth == 1
                }
                #expect(try await host.daemon.jobLog?.fleetOutboxDepth() == 1)
                let log = (try? String(contentsOfFile: server.folder + "/server.log", encoding: .utf8)) ?? ""
                #expect(log.contains("No space left on device"), "the server never ran out of space")
                // Space returns; an operator starts the server if it stopped itself.
                try await server.freeDisk()
                try await server.resume()
                try await PostgresFleetWorkerTests.waitFor("the outbox is delivered", within: .seconds(90)) {
                    try await PostgresFleetWorkerTests.record(store)?.state == .done
                }
                let row = try #require(try await PostgresFleetWorkerTests.record(store))
                #expect(row.uid == uid.hexString)
                #expect(row.attempts == 1)
                try await PostgresFleetWorkerTests.waitFor("the outbox is empty") {
                    await worker.report.outboxDepth == 0
                }
                let report = await worker.report
                #expect(report.completions == 1)
                #expect(report.fencedWrites == 0)
                #expect(try await store.spoiledCards(batch: "b").isEmpty)
            }
        }
    }

    /// A store on a fresh server on a 64 MB tmpfs (its cluster takes about 40 MB).
    private func withSmallServer(
        _ body: @Sendable (FleetStore, ThrowawayPostgres) async throws -> Void
    ) async throws {
        try await withFleetStore(start: { try await ThrowawayPostgres.startSmall(megabytes: 64) }, body)
    }
}
