import CardFlow
import CardFlowDaemon
import CardFlowDaemonTestSupport
import CardFlowFleet
import CardFlowFleetPostgres
import CardFlowPostgresTestSupport
import Testing

/// The hosts table keeps each host's totals across restarts under the same name.
@Suite(
    "PostgresFleet host totals", .serialized,
    .enabled(if: FleetTestEnvironment.hasPostgres, FleetTestEnvironment.skipReason))
struct PostgresFleetHostTotalsTests {
    static func totals(_ store: FleetStore) async throws -> (claims: Int, completions: Int) {
        let hosts = try await store.hosts()
        return (hosts.map(\.claims).reduce(0, +), hosts.map(\.completions).reduce(0, +))
    }

    /// Runs host `name` with one card on each of two readers until both records are done.
    static func runHost(
        _ name: String, server: ThrowawayPostgres, store: FleetStore, calls: QueueCalls, seeds: [UInt64],
        doneAfter: Int
    ) async throws {
        let (configuration, membership) = try recordingHost(name, server: server, lease: 30, calls: calls)
        var readers: [Reader] = []
        for (index, seed) in seeds.enumerated() {
            readers.append(
                await PostgresFleetWorkerTests.reader("sim:\(name)\(index)", seed: seed, latency: .zero).0)
        }
        try await DaemonHarness.run(
            configuration: configuration, simulatedReaders: readers, fleetMembership: membership
        ) { _ in
            try await PostgresFleetWorkerTests.waitFor("\(doneAfter) records done") {
                try await store.records(batch: "b", state: .done).count == doneAfter
            }
            // The host's counts reach the hosts table with the heartbeat after its deliveries.
            try await PostgresFleetWorkerTests.waitFor("host totals reach \(doneAfter)", within: .seconds(20)) {
                try await totals(store).completions == doneAfter
            }
        }
    }

    @Test func aRestartUnderTheSameNameKeepsTheTotalsGrowing() async throws {
        try await withFleetStore { store, server in
            _ = try await store.importRecords(batch: "b", records(4))
            let calls = QueueCalls()
            try await Self.runHost("a", server: server, store: store, calls: calls, seeds: [11, 12], doneAfter: 2)
            // The same host name again, as after `systemctl restart cardd`.
            try await Self.runHost("a", server: server, store: store, calls: calls, seeds: [13, 14], doneAfter: 4)
            let hosts = try await store.hosts()
            #expect(hosts.map(\.name) == ["a"])
            let (claims, completions) = try await Self.totals(store)
            #expect(completions == 4)
            #expect(claims == 4)
            #expect(await calls.completions == 4, "completion UPDATEs sent")
        }
    }
}
