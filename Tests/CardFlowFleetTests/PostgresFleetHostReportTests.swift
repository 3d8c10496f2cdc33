import CardFlow
import CardFlowDaemon
import CardFlowDaemonTestSupport
import CardFlowFleet
import CardFlowFleetPostgres
import CardFlowPostgresTestSupport
import Testing

/// A host's counts reach the hosts table in batches (issue 36, item 6): one upsert per report
/// interval at most, not one per card, and the last ones at shutdown, so totals stay exact.
@Suite(
    "PostgresFleet host reports", .serialized,
    .enabled(if: FleetTestEnvironment.hasPostgres, FleetTestEnvironment.skipReason))
struct PostgresFleetHostReportTests {
    /// One simulated reader with one card per seed.
    static func readers(_ seeds: [UInt64]) async -> [Reader] {
        var readers: [Reader] = []
        for seed in seeds {
            readers.append(await PostgresFleetWorkerTests.reader("sim:a\(seed)", seed: seed, latency: .zero).0)
        }
        return readers
    }

    @Test func completionsAreReportedOncePerIntervalAndAtShutdown() async throws {
        try await withFleetStore { store, server in
            _ = try await store.importRecords(batch: "b", records(4))
            let calls = QueueCalls()
            // The report clock stands still unless the test moves it.
            let clock = ManualClock()
            let first = try recordingHost("a", server: server, lease: 30, calls: calls)
            var membership = first.1
            membership.reportClock = clock
            try await DaemonHarness.run(
                configuration: first.0, simulatedReaders: await Self.readers([21, 22]), fleetMembership: membership
            ) { host in
                try await PostgresFleetWorkerTests.waitFor("2 records done") {
                    try await store.records(batch: "b", state: .done).count == 2
                }
                let worker = try #require(host.daemon.fleetWorker)
                try await PostgresFleetWorkerTests.waitFor("both completions counted") {
                    await worker.report.completions == 2
                }
                // Two completions, no report of them yet: at most the one sent at start.
                let before = await calls.reports
                #expect(before <= 1)
                #expect(try await store.hosts().first?.completions ?? 0 < 2)
                await clock.advance(by: .seconds(1))
                try await PostgresFleetWorkerTests.waitFor("the tick's report") {
                    try await store.hosts().first?.completions == 2
                }
                #expect(await calls.reports == before + 1, "one upsert for both completions")
            }
            // The clock never moved again: the shutdown sent what the run counted since.
            let second = try recordingHost("a", server: server, lease: 30, calls: calls)
            membership = second.1
            membership.reportClock = ManualClock()
            try await DaemonHarness.run(
                configuration: second.0, simulatedReaders: await Self.readers([23, 24]), fleetMembership: membership
            ) { _ in
                try await PostgresFleetWorkerTests.waitFor("4 records done") {
                    try await store.records(batch: "b", state: .done).count == 4
                }
            }
            let hosts = try await store.hosts()
            #expect(hosts.map(\.completions) == [4], "\(hosts)")
            #expect(hosts.map(\.claims) == [4], "\(hosts)")
            #expect(await calls.completions == 4, "completion updates sent")
        }
    }
}
