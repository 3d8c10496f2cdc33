import CardFlow
import CardFlowDaemon
import CardFlowDaemonTestSupport
import CardFlowFleet
import CardFlowFleetPostgres
import CardFlowPostgresTestSupport
import Testing

/// Two hosts: the first writes its card while cut off from the store for longer than the lease;
/// the second re-claims the record, and its first step waits. The first host's completion, when
/// the link heals, wins: its card is not spoiled, and the second host's card stays blank.
@Suite(
    "PostgresFleet earlier claim across hosts", .serialized,
    .enabled(if: FleetTestEnvironment.hasPostgres, FleetTestEnvironment.skipReason))
struct PostgresFleetEarlierClaimWorkerTests {
    /// Opens once; whoever waits before goes on then.
    actor Gate {
        private var open = false
        private var waiters: [CheckedContinuation<Void, Never>] = []
        func wait() async {
            if open { return }
            await withCheckedContinuation { waiters.append($0) }
        }
        func openGate() {
            open = true
            for waiter in waiters { waiter.resume() }
            waiters = []
        }
    }

    @Test func aCompletionFromTheOutboxWinsOverAnUntouchedReclaim() async throws {
        try await withFleetStore { store, server in
            _ = try await store.importRecords(
                batch: "b", [FleetRecordInput(reference: "R1", parameters: Array(#"{"text": "one"}"#.utf8))])
            let partition = PartitionSwitch()
            let (configurationA, membershipA) = try PostgresFleetWorkerTests.host(
                "a", server: server, lease: 3, partition: partition)
            let (readerA, uidA) = await PostgresFleetWorkerTests.reader("sim:a", seed: 101, latency: .milliseconds(400))
            try await DaemonHarness.run(
                configuration: configurationA, simulatedReaders: [readerA], fleetMembership: membershipA
            ) { hostA in
                try await PostgresFleetWorkerTests.waitFor("host a claims the record") {
                    try await PostgresFleetWorkerTests.record(store)?.host == "a"
                }
                await partition.set(cut: true)
                let jobA = try await hostA.waitForJob { $0.state != .running }
                #expect(jobA.state == .succeeded, "\(jobA.error ?? "")")
                let gate = Gate()
                let callsB = QueueCalls()
                let (configurationB, membershipB) = try recordingHost(
                    "b", server: server, lease: 30, calls: callsB, beforeWriting: { await gate.wait() })
                let (readerB, uidB) = await PostgresFleetWorkerTests.reader("sim:b", seed: 202, latency: .zero)
                try await DaemonHarness.run(
                    configuration: configurationB, simulatedReaders: [readerB], fleetMembership: membershipB
                ) { hostB in
                    // Once a's lease ran out, b claims the record again; its first step waits.
                    try await PostgresFleetWorkerTests.waitFor("host b claims the record") {
                        try await PostgresFleetWorkerTests.record(store)?.host == "b"
                    }
                    #expect(try await store.spoiledCards(batch: "b").map(\.uid) == [uidA.hexString])
                    // Healed: a's outbox delivers its completion, which wins.
                    await partition.set(cut: false)
                    try await PostgresFleetWorkerTests.waitFor("host a's completion is applied") {
                        try await PostgresFleetWorkerTests.record(store)?.state == .done
                    }
                    await gate.openGate()
                    let jobB = try await hostB.waitForJob { $0.state != .running }
                    #expect(jobB.state == .failed)
                    #expect(jobB.error?.contains("claim on fleet record") == true, "\(jobB.error ?? "")")
                    try await PostgresFleetWorkerTests.waitFor("host b gives its claim back") {
                        await callsB.releases == 1
                    }
                    #expect(await callsB.completions == 0)
                }
                let row = try #require(try await PostgresFleetWorkerTests.record(store))
                #expect(row.host == "a")
                #expect(row.uid == uidA.hexString)
                #expect(row.uid != uidB.hexString)
                #expect(try await store.spoiledCards(batch: "b").isEmpty)
                let worker = try #require(hostA.daemon.fleetWorker)
                try await PostgresFleetWorkerTests.waitFor("host a's outbox is empty") {
                    await worker.report.outboxDepth == 0
                }
                let report = await worker.report
                #expect(report.completions == 1)
                #expect(report.fencedWrites == 0)
            }
        }
    }
}
