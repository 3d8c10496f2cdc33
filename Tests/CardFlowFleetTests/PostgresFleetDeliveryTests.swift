import CardFlowDaemon
import CardFlowFleet
import CardFlowFleetPostgres
import CardFlowPostgresTestSupport
import Foundation
import Logging
import Testing

/// The outbox is delivered by one pass at a time, however many callers ask at once (each
/// reader's job end, the delivery loop, a reader's first claim after a restart).
@Suite(
    "PostgresFleet outbox delivery", .serialized,
    .enabled(if: FleetTestEnvironment.hasPostgres, FleetTestEnvironment.skipReason))
struct PostgresFleetDeliveryTests {
    @Test func concurrentDeliveriesSendEachCompletionOnce() async throws {
        try await withFleetStore { store, server in
            let count = 24
            let fencedCount = 4
            let folder = try Self.temporaryFolder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            // Every record claimed; the first few end with a token the store no longer knows
            // (a claim lost to another host): those completions are fenced.
            let log = try await Self.outbox(at: folder, store: store, count: count, fenced: fencedCount)
            let calls = QueueCalls()
            let worker = Self.worker(store: store, server: server, log: log, calls: calls)
            // Two readers' job ends, the delivery loop and two first claims ask at once.
            await withDiscardingTaskGroup { group in
                for _ in 0..<5 { group.addTask { await worker.deliverOutbox() } }
            }
            let report = await worker.report
            #expect(await calls.completions == count, "completion UPDATEs sent")
            #expect(await calls.completionsPerRecord.values.allSatisfy { $0 == 1 })
            // One pass found them all waiting: one call (one round trip) took them together.
            #expect(await calls.completionBatches == [count])
            #expect(report.completions == count - fencedCount)
            #expect(report.fencedWrites == fencedCount)
            #expect(report.outboxDepth == 0)
            #expect(try await log.fleetOutboxDepth() == 0)
            #expect(try await store.records(batch: "b", state: .done).count == count - fencedCount)
            // A later ask with nothing pending sends nothing.
            await worker.deliverOutbox()
            #expect(await calls.completions == count)
        }
    }

    /// A read of the outbox returns at most `FleetWorker.outboxReadLimit` entries; the worker
    /// keeps the pending list in memory only after a read found all of them, so a previous
    /// run's outbox larger than one read is still delivered whole, each completion once.
    @Test func anOutboxLargerThanOneReadIsDeliveredWhole() async throws {
        try await withFleetStore { store, server in
            let count = FleetWorker.outboxReadLimit + 12
            let folder = try Self.temporaryFolder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let log = try await Self.outbox(at: folder, store: store, count: count, fenced: 0)
            let calls = QueueCalls()
            let worker = Self.worker(store: store, server: server, log: log, calls: calls)
            await worker.deliverOutbox()
            // The first read held the oldest entries only; the rest still wait in the log.
            #expect(await calls.completions == FleetWorker.outboxReadLimit)
            #expect(await worker.report.outboxDepth == count - FleetWorker.outboxReadLimit)
            #expect(try await log.fleetOutboxDepth() == count - FleetWorker.outboxReadLimit)
            await worker.deliverOutbox()
            #expect(await calls.completions == count)
            #expect(await calls.completionsPerRecord.values.allSatisfy { $0 == 1 })
            let perCall = FleetWorker.completionsPerCall
            #expect(
                await calls.completionBatches
                    == Array(repeating: perCall, count: FleetWorker.outboxReadLimit / perCall)
                    + [count - FleetWorker.outboxReadLimit])
            #expect(await worker.report.outboxDepth == 0)
            #expect(try await log.fleetOutboxDepth() == 0)
            #expect(try await store.records(batch: "b", state: .done).count == count)
            await worker.deliverOutbox()
            #expect(await calls.completions == count)
        }
    }

    static func temporaryFolder() throws -> String {
        let folder = NSTemporaryDirectory() + "fleet-outbox-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A job log whose outbox holds the completions of `count` claimed records of batch "b"
    /// (imported here), as a previous run left them; the first `fenced` carry a token the store
    /// does not know.
    static func outbox(at folder: String, store: FleetStore, count: Int, fenced: Int) async throws -> JobLog {
        _ = try await store.importRecords(batch: "b", records(count))
        let log = try JobLog(path: folder + "/jobs.sqlite")
        for index in 0..<count {
            let claim = try claimed(
                try await store.claim(
                    batch: "b", host: "a", reader: "sim:\(index % 2)", uid: uid(index), lease: .seconds(60)))
            try await log.enqueueFleetCompletion(
                recordID: claim.recordID, token: index < fenced ? UUID() : claim.token, batch: "b", state: .done,
                result: nil, error: nil, job: nil)
        }
        return log
    }

    static func worker(store: FleetStore, server: ThrowawayPostgres, log: JobLog, calls: QueueCalls) -> FleetWorker {
        var logger = Logger(label: "fleet.delivery")
        logger.logLevel = .warning
        return FleetWorker(
            settings: FleetSettings(postgres: server.url, batch: "b", leaseSeconds: 60, hostName: "a"),
            queue: RecordingQueue(store: store, calls: calls), log: log, metrics: DaemonMetrics(),
            version: "test", readers: { ["sim:0", "sim:1"] }, logger: logger)
    }
}
