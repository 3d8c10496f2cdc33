import CardFlow
import CardFlowDESFire
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowDaemonFlows
import CardFlowDaemonTestSupport
import CardFlowFleet
import CardFlowFleetPostgres
import CardFlowPostgresTestSupport
import CardFlowSimulator
import Foundation
import Logging
import Testing

/// A host's link to the store that the test can cut (a network partition) and heal.
actor PartitionSwitch {
    private(set) var cut = false
    func set(cut: Bool) { self.cut = cut }
}

struct PartitionableQueue: FleetQueue {
    let store: FleetStore
    let partition: PartitionSwitch

    private func check(_ operation: String) async throws(FleetStoreError) {
        if await partition.cut { throw .unreachable(operation: operation, reason: "partitioned (test)") }
    }

    func run() async { await store.run() }
    func migrate() async throws(FleetStoreError) {
        try await check("migrate")
        try await store.migrate()
    }
    func claim(
        batch: String, host: String, reader: String, uid: [UInt8], lease: Duration
    ) async throws(FleetStoreError) -> FleetClaimResult {
        try await check("claim")
        return try await store.claim(batch: batch, host: host, reader: reader, uid: uid, lease: lease)
    }
    func extendLease(_ claim: FleetClaim, by lease: Duration) async throws(FleetStoreError) -> Bool {
        try await check("extend lease")
        return try await store.extendLease(claim, by: lease)
    }
    func beginWriting(_ claim: FleetClaim, lease: Duration) async throws(FleetStoreError) -> Bool {
        try await check("begin writing")
        return try await store.beginWriting(claim, lease: lease)
    }
    func complete(
        recordID: Int64, token: UUID, state: FleetCompletionState, result: [UInt8]?, error: String?
    ) async throws(FleetStoreError) -> FleetCompletionOutcome {
        try await check("complete")
        return try await store.complete(recordID: recordID, token: token, state: state, result: result, error: error)
    }
    func complete(_ completions: [FleetCompletion]) async throws(FleetStoreError) -> [FleetCompletionOutcome] {
        try await check("complete")
        return try await store.complete(completions)
    }
    func release(_ claim: FleetClaim) async throws(FleetStoreError) -> Bool {
        try await check("release")
        return try await store.release(claim)
    }
    func report(_ host: FleetHostReport) async throws(FleetStoreError) {
        try await check("report")
        try await store.report(host)
    }
    func wakeUps(batch: String, retryInterval: Duration) -> AsyncStream<Void> {
        store.wakeUps(batch: batch, retryInterval: retryInterval)
    }
}

@Suite(
    "PostgresFleet worker", .serialized,
    .enabled(if: FleetTestEnvironment.hasPostgres, FleetTestEnvironment.skipReason))
struct PostgresFleetWorkerTests {
    static func host(
        _ name: String, server: ThrowawayPostgres, through url: String? = nil, lease: Int,
        partition: PartitionSwitch? = nil, template: [String: JSONValue] = ["kind": "ndef-write"]
    ) throws -> (DaemonConfiguration, FleetMembership) {
        var logger = Logger(label: "fleet.\(name)")
        logger.logLevel = .warning
        let url = url ?? server.url
        // As cardd makes its store: the pool holds its connections (with one server).
        let store = FleetStore(
            address: try FleetDatabaseAddress(url), operationTimeout: .seconds(3), keepsConnections: true,
            logger: logger)
        let settings = FleetSettings(postgres: url, batch: "b", leaseSeconds: lease, hostName: name, pollSeconds: 1)
        let queue: any FleetQueue = partition.map { PartitionableQueue(store: store, partition: $0) } ?? store
        let configuration = DaemonConfiguration(
            readers: [],
            rules: [
                CardRule(
                    name: "badges",
                    flow: .fleet(try FleetFlowTemplate(parameters: template, kinds: .standard)))
            ], fleet: settings)
        return (configuration, FleetMembership(settings: settings, queue: queue))
    }

    /// A reader with an NDEF Type 4 tag whose every exchange takes `latency`.
    static func reader(_ id: String, seed: UInt64, latency: Duration) async -> (Reader, [UInt8]) {
        var configuration = VirtualReaderConfiguration()
        configuration.timing.extraLatency = latency
        let virtual = VirtualCCIDReader(configuration: configuration)
        let tag = NDEFType4Tag(seed: seed, capacity: 1024)
        await virtual.insert(tag)
        return (Reader.simulated(virtual, id: id), tag.uid)
    }

    static func waitFor(
        _ what: String, within bound: Duration = .seconds(60), _ condition: () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + bound
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ThrowawayPostgresError(description: "\(what): not within \(bound)")
    }

    static func record(_ store: FleetStore) async throws -> FleetRecordRow? {
        try? await store.records(batch: "b").first
    }

    @Test func aPartitionedHostsLateCompletionIsFencedAndItsCardSpoiled() async throws {
        try await withFleetStore { store, server in
            _ = try await store.importRecords(
                batch: "b", [FleetRecordInput(reference: "R1", parameters: Array(#"{"text": "one"}"#.utf8))])
            let partition = PartitionSwitch()
            let (configurationA, membershipA) = try Self.host("a", server: server, lease: 3, partition: partition)
            let (readerA, uidA) = await Self.reader("sim:a", seed: 101, latency: .milliseconds(400))
            try await DaemonHarness.run(
                configuration: configurationA, simulatedReaders: [readerA], fleetMembership: membershipA
            ) { hostA in
                try await Self.waitFor("host a claims the record") {
                    try await Self.record(store)?.host == "a"
                }
                await partition.set(cut: true)
                // Host a writes its card (the step had begun) but cannot tell the store.
                let jobA = try await hostA.waitForJob { $0.state != .running }
                #expect(jobA.state == .succeeded, "\(jobA.error ?? "")")
                let (configurationB, membershipB) = try Self.host("b", server: server, lease: 30)
                let (readerB, uidB) = await Self.reader("sim:b", seed: 202, latency: .zero)
                try await DaemonHarness.run(
                    configuration: configurationB, simulatedReaders: [readerB], fleetMembership: membershipB
                ) { hostB in
                    // Once a's lease ran out, b claims the record again and finishes it.
                    let jobB = try await hostB.waitForJob { $0.state != .running }
                    #expect(jobB.state == .succeeded, "\(jobB.error ?? "")")
                    try await Self.waitFor("host b completes the record") {
                        try await Self.record(store)?.state == .done
                    }
                    let row = try #require(try await Self.record(store))
                    #expect(row.host == "b")
                    #expect(row.uid == uidB.hexString)
                    #expect(row.attempts == 2)
                }
                #expect(try await store.spoiledCards(batch: "b").map(\.uid) == [uidA.hexString])
                // Healed: a's outbox delivers its completion, which the store fences.
                await partition.set(cut: false)
                let worker = try #require(hostA.daemon.fleetWorker)
                // The worker counts the fenced write before it re-reads the outbox depth (an await
                // between them): wait for both.
                try await Self.waitFor("host a's outbox is delivered") {
                    let report = await worker.report
                    return report.fencedWrites == 1 && report.outboxDepth == 0
                }
                let report = await worker.report
                #expect(report.completions == 0)
                #expect(report.outboxDepth == 0)
                #expect(try await Self.record(store)?.host == "b")
            }
        }
    }

    @Test func aHostThatCannotRenewStopsBeforeTheNextStep() async throws {
        try await withFleetStore { store, server in
            _ = try await store.importRecords(
                batch: "b", [FleetRecordInput(reference: "R1", parameters: Array(#"{"text": "one"}"#.utf8))])
            let partition = PartitionSwitch()
            // DESFire provisioning: seven steps of several APDUs each, 300 ms per exchange, so the
            // flow outlasts the 3 s lease it can no longer renew.
            let (configuration, membership) = try Self.host(
                "a", server: server, lease: 3, partition: partition,
                template: [
                    "kind": "desfire-provision", "aid": "F01020", "file": .number(1), "size": .number(32),
                    "keySlot": .number(2),
                ])
            let keys = InMemoryKeyStore()
            try await keys.setKey(
                try StoredKey(algorithm: .aes128, bytes: Array(0..<16), version: 1), in: try KeySlot(2))
            var readerConfiguration = VirtualReaderConfiguration()
            readerConfiguration.timing.extraLatency = .milliseconds(300)
            let virtual = VirtualCCIDReader(configuration: readerConfiguration)
            await virtual.insert(DESFireCard(seed: 505))
            let reader = Reader.simulated(virtual, id: "sim:a")
            try await DaemonHarness.run(
                configuration: configuration, simulatedReaders: [reader], keys: keys, fleetMembership: membership
            ) { host in
                try await Self.waitFor("host a claims the record") { try await Self.record(store)?.host == "a" }
                await partition.set(cut: true)
                let job = try await host.waitForJob { $0.state != .running }
                #expect(job.state == .failed)
                #expect(job.error?.contains("claim on fleet record") == true, "\(job.error ?? "")")
                // Stopped between steps: the flow did not reach its end.
                #expect(job.lastStep != "read back")
                let worker = try #require(host.daemon.fleetWorker)
                #expect(await worker.report.leaseLosses == 1)
                await partition.set(cut: false)
                // The claim's token still matches (nobody claimed it since): the failure is recorded.
                try await Self.waitFor("the failure reaches the store") {
                    try await Self.record(store)?.state == .failed
                }
                #expect(try await Self.record(store)?.error?.contains("claim on fleet record") == true)
            }
        }
    }

    @Test func aStoppedDatabaseKeepsCompletionsInTheOutboxUntilItReturns() async throws {
        try await withFleetStore { store, server in
            _ = try await store.importRecords(
                batch: "b", [FleetRecordInput(reference: "R1", parameters: Array(#"{"text": "one"}"#.utf8))])
            let (configuration, membership) = try Self.host("a", server: server, lease: 60)
            let (reader, uid) = await Self.reader("sim:a", seed: 404, latency: .milliseconds(300))
            try await DaemonHarness.run(
                configuration: configuration, simulatedReaders: [reader], fleetMembership: membership
            ) { host in
                try await Self.waitFor("host a claims the record") { try await Self.record(store)?.host == "a" }
                try await server.pause()
                let job = try await host.waitForJob { $0.state != .running }
                #expect(job.state == .succeeded, "\(job.error ?? "")")
                let worker = try #require(host.daemon.fleetWorker)
                try await Self.waitFor("the completion waits in the outbox") { await worker.report.outboxDepth == 1 }
                // A restart of the host would find it there too: it is in the job log.
                #expect(try await host.daemon.jobLog?.fleetOutboxDepth() == 1)
                try await server.resume()
                try await Self.waitFor("the outbox is delivered", within: .seconds(90)) {
                    try await Self.record(store)?.state == .done
                }
                let row = try #require(try await Self.record(store))
                #expect(row.uid == uid.hexString)
                #expect(row.attempts == 1)
                try await Self.waitFor("the outbox is empty") { await worker.report.outboxDepth == 0 }
                let report = await worker.report
                #expect(report.completions == 1)
                #expect(report.fencedWrites == 0)
            }
        }
    }
}
