import CardFlow
import CardFlowDaemon
import CardFlowDaemonTestSupport
import CardFlowFleet
import CardFlowFleetPostgres
import CardFlowPostgresTestSupport
import Testing

/// A claim whose answer arrives after its lease ran out (a database stall) gives the record
/// back untouched: no step ran, so neither the record nor the card is spoiled.
@Suite(
    "PostgresFleet late claim", .serialized,
    .enabled(if: FleetTestEnvironment.hasPostgres, FleetTestEnvironment.skipReason))
struct PostgresFleetLateClaimTests {
    @Test func aClaimAnsweredAfterItsLeaseIsReleasedNotFailed() async throws {
        try await withFleetStore { store, server in
            _ = try await store.importRecords(
                batch: "b", [FleetRecordInput(reference: "R1", parameters: Array(#"{"text": "one"}"#.utf8))])
            let calls = QueueCalls()
            // The first claim's answer is held until the server itself says its lease ran out.
            let (configuration, membership) = try recordingHost(
                "a", server: server, lease: 2, calls: calls,
                claimReply: { number, result in
                    guard number == 1, case .claimed = result else { return }
                    try? await PostgresFleetWorkerTests.waitFor("the first claim's lease runs out") {
                        try await store.status(batch: "b").first?.expired == 1
                    }
                })
            let (reader, uid) = await PostgresFleetWorkerTests.reader("sim:a", seed: 303, latency: .zero)
            try await DaemonHarness.run(
                configuration: configuration, simulatedReaders: [reader], fleetMembership: membership
            ) { host in
                // The card is still on the reader: the host claims again and writes it.
                try await PostgresFleetWorkerTests.waitFor("the record is done", within: .seconds(30)) {
                    try await PostgresFleetWorkerTests.record(store)?.state == .done
                }
                let row = try #require(try await PostgresFleetWorkerTests.record(store))
                #expect(row.uid == uid.hexString)
                // The released claim does not count as an attempt.
                #expect(row.attempts == 1)
                #expect(await calls.releases == 1)
                #expect(await calls.claims == 2)
                #expect(try await store.spoiledCards(batch: "b").isEmpty)
                let jobs = try #require(try await host.daemon.jobLog?.jobs(limit: 10))
                #expect(jobs.map(\.state) == [.succeeded], "\(jobs.map { "\($0.state) \($0.error ?? "")" })")
            }
        }
    }
}
