import CardFlowDaemon
import CardFlowDaemonTestSupport
import CardFlowFleet
import CardFlowFleetPostgres
import CardFlowPostgresTestSupport
import Testing

/// One host cut off from PostgreSQL by a real partition (a relay that stops forwarding, as a
/// network does: nothing closes, queued bytes arrive after healing), for longer than its lease,
/// while another host reaches the server directly. Unlike the queue-level switch of
/// ``PostgresFleetWorkerTests``, the partitioned host's statements hang on live connections and
/// those it gave up on may still run on the server once the link heals.
@Suite(
    "PostgresFleet network partition", .serialized,
    .enabled(if: FleetTestEnvironment.hasPostgres, FleetTestEnvironment.skipReason))
struct PostgresFleetNetworkPartitionTests {
    @Test func aHostPartitionedLongerThanItsLeaseIsFencedAndItsCardAccountedFor() async throws {
        try await withFleetStore { store, server in
            _ = try await store.importRecords(
                batch: "b", [FleetRecordInput(reference: "R1", parameters: Array(#"{"text": "one"}"#.utf8))])
            let link = try await server.startProxy()
            do {
                try await Self.run(store: store, server: server, link: link)
            } catch {
                await link.stop()
                throw error
            }
            await link.stop()
        }
    }

    private static func run(store: FleetStore, server: ThrowawayPostgres, link: PartitionProxy) async throws {
        let (configurationA, membershipA) = try PostgresFleetWorkerTests.host(
            "a", server: server, through: link.url, lease: 3)
        let (readerA, uidA) = await PostgresFleetWorkerTests.reader("sim:a", seed: 111, latency: .milliseconds(400))
        try await DaemonHarness.run(
            configuration: configurationA, simulatedReaders: [readerA], fleetMembership: membershipA
        ) { hostA in
            try await PostgresFleetWorkerTests.waitFor("host a claims the record") {
                try await PostgresFleetWorkerTests.record(store)?.host == "a"
            }
            try await link.cut()
            // Host a writes its card (its first step had begun); its lease renewals and its
            // completion hang on the cut link until the store's operation timeout.
            let jobA = try await hostA.waitForJob { $0.state != .running }
            #expect(jobA.state == .succeeded, "\(jobA.error ?? "")")
            let workerA = try #require(hostA.daemon.fleetWorker)
            try await PostgresFleetWorkerTests.waitFor("host a's completion waits in its outbox") {
                await workerA.report.outboxDepth == 1
            }
            let (configurationB, membershipB) = try PostgresFleetWorkerTests.host("b", server: server, lease: 30)
            let (readerB, uidB) = await PostgresFleetWorkerTests.reader("sim:b", seed: 222, latency: .zero)
            try await DaemonHarness.run(
                configuration: configurationB, simulatedReaders: [readerB], fleetMembership: membershipB
            ) { hostB in
                // Once a's lease ran out (the server's clock), b claims the record again and writes.
                let jobB = try await hostB.waitForJob { $0.state != .running }
                #expect(jobB.state == .succeeded, "\(jobB.error ?? "")")
                try await PostgresFleetWorkerTests.waitFor("host b completes the record") {
                    try await PostgresFleetWorkerTests.record(store)?.state == .done
                }
                let workerB = try #require(hostB.daemon.fleetWorker)
                try await PostgresFleetWorkerTests.waitFor("b counts its completion") {
                    await workerB.report.completions == 1
                }
            }
            let row = try #require(try await PostgresFleetWorkerTests.record(store))
            #expect(row.host == "b")
            #expect(row.uid == uidB.hexString)
            #expect(row.attempts == 2)
            // a's written card is accounted for: on the spoilage list, not lost.
            #expect(try await store.spoiledCards(batch: "b").map(\.uid) == [uidA.hexString])

            // Healed: what a sent during the cut reaches the server now, and a's outbox delivers
            // its completion on connections that hung through the partition. It is fenced (b's
            // claim holds the record), counted once, and changes nothing.
            try await link.heal()
            try await PostgresFleetWorkerTests.waitFor("host a's outbox is delivered", within: .seconds(90)) {
                let report = await workerA.report
                return report.fencedWrites == 1 && report.outboxDepth == 0
            }
            let report = await workerA.report
            #expect(report.completions == 0)
            #expect(report.fencedWrites == 1)
            let after = try #require(try await PostgresFleetWorkerTests.record(store))
            #expect(after.host == "b")
            #expect(after.uid == uidB.hexString)
            #expect(after.state == .done)
            #expect(try await store.spoiledCards(batch: "b").map(\.uid) == [uidA.hexString])
        }
    }
}
