import CardFlowFleet
import CardFlowFleetPostgres
import CardFlowPostgresTestSupport
import Foundation
import Logging
import Testing

/// A store given a primary and its synchronous standby: it writes to whichever answers as the
/// primary, and a claim made on the old primary completes on the promoted standby.
@Suite(
    "PostgresFleet failover", .serialized,
    .enabled(if: FleetTestEnvironment.hasPostgres, FleetTestEnvironment.skipReason))
struct PostgresFleetFailoverTests {
    @Test func aClaimMadeBeforeTheFailoverCompletesOnThePromotedStandby() async throws {
        let primary = try await ThrowawayPostgres.start()
        var servers = [primary]
        do {
            let standby = try await primary.startStandby()
            servers.append(standby)
            var logger = Logger(label: "fleet.failover")
            logger.logLevel = .critical
            // The standby first: the store must find the primary, not take the first server.
            let store = FleetStore(
                address: try FleetDatabaseAddress(ThrowawayPostgres.url(of: [standby, primary])),
                operationTimeout: .seconds(3), logger: logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await store.run() }
                defer { group.cancelAll() }
                try await store.migrate()
                #expect(try await store.primaryIndex() == 1)
                #expect(try await store.importRecords(batch: "b", records(3)).imported == 3)
                let first = try claimed(
                    try await store.claim(batch: "b", host: "a", reader: "r", uid: uid(1), lease: .seconds(60)))
                try await primary.crash()
                // Nothing answers as the primary: a typed, transient error within the bound.
                await #expect {
                    try await store.complete(
                        recordID: first.recordID, token: first.token, state: .done, result: nil, error: nil)
                } throws: { error in
                    (error as? FleetStoreError)?.isTransient == true
                }
                try await standby.promote()
                #expect(try await store.primaryIndex() == 0)
                // The claim the old primary granted (synchronously replicated) completes here.
                let outcome = try await store.complete(
                    recordID: first.recordID, token: first.token, state: .done, result: nil, error: nil)
                #expect(outcome == .applied, "\(outcome)")
                let second = try claimed(
                    try await store.claim(batch: "b", host: "a", reader: "r", uid: uid(2), lease: .seconds(60)))
                #expect(second.recordID != first.recordID)
                #expect(second.attempt == 1)
                let done = try await store.records(batch: "b", state: .done)
                #expect(done.map(\.id) == [first.recordID])
            }
        } catch {
            for server in servers { await server.stop() }
            throw error
        }
        for server in servers { await server.stop() }
    }
}
