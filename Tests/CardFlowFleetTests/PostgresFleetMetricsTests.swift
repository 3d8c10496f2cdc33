import CardFlowDaemonTestSupport
import CardFlowFleet
import CardFlowFleetPostgres
import CardFlowPostgresTestSupport
import Testing

/// What an operator sees of a host in the fleet: claim and completion latency, the outbox's age.
@Suite(
    "PostgresFleet metrics", .serialized,
    .enabled(if: FleetTestEnvironment.hasPostgres, FleetTestEnvironment.skipReason))
struct PostgresFleetMetricsTests {
    @Test func claimAndCompletionLatencyAndOutboxAgeAreMeasured() async throws {
        try await withFleetStore { store, server in
            _ = try await store.importRecords(
                batch: "b", [FleetRecordInput(reference: "R1", parameters: Array(#"{"text": "one"}"#.utf8))])
            let (configuration, membership) = try recordingHost("a", server: server, lease: 30, calls: QueueCalls())
            let (reader, _) = await PostgresFleetWorkerTests.reader("sim:a", seed: 606, latency: .zero)
            try await DaemonHarness.run(
                configuration: configuration, simulatedReaders: [reader], fleetMembership: membership
            ) { host in
                try await PostgresFleetWorkerTests.waitFor("the record is done") {
                    try await PostgresFleetWorkerTests.record(store)?.state == .done
                }
                let worker = try #require(host.daemon.fleetWorker)
                try await PostgresFleetWorkerTests.waitFor("the outbox is empty") {
                    await worker.report.outboxDepth == 0
                }
                let text = host.daemon.metrics.exposition()
                #expect(text.contains("cardd_fleet_claim_duration_seconds_count 1"), "\(text)")
                #expect(text.contains("cardd_fleet_completion_duration_seconds_count 1"), "\(text)")
                // Nothing waits: the oldest entry is 0 s old.
                #expect(text.contains("cardd_fleet_outbox_age_seconds 0"), "\(text)")
            }
        }
    }
}
