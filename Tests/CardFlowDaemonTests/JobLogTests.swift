import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowFleet
import Foundation
import Testing

@Suite("cardd job log")
struct JobLogTests {
    @Test func recordsJobsStepsAndOutcomes() async throws {
        let path = Self.temporaryPath()
        let log = try JobLog(path: path)
        let id = try await log.begin(reader: "sim:0", rule: "posters", flow: "ndef-write", trigger: .card)
        try await log.recordCard(id, atr: [0x3B, 0x8F], uid: [0x04, 0x11, 0x22])
        try await log.recordEvent(
            id, kind: "stepFinished", detail: "step 1/2 identify finished", completedStep: "identify")
        try await log.finish(id, state: .succeeded, outcome: JobOutcome(["uid": "041122"]))
        let record = try #require(try await log.job(id))
        #expect(record.state == .succeeded)
        #expect(record.cardUID == "041122")
        #expect(record.cardATR == "3B8F")
        #expect(record.lastStep == "identify")
        #expect(record.outcome == JobOutcome(["uid": "041122"]))
        #expect(record.rule == "posters")
        #expect(record.trigger == .card)
        #expect(try await log.events(of: id).map(\.kind) == ["stepFinished"])
        #expect(try await log.jobs().map(\.id) == [id])
    }

    /// A job that is being cancelled still gets its last records: the writes do not give up
    /// when the calling task is cancelled (as GRDB's async `write` would).
    @Test func aCancelledTaskStillWritesItsRecords() async throws {
        let log = try JobLog(path: Self.temporaryPath())
        let id = try await log.begin(reader: "sim:0", rule: nil, flow: "apdu", trigger: .request)
        let writer = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            #expect(Task.isCancelled)
            try await log.recordEvent(id, kind: "cancelled", detail: "the job was cancelled", completedStep: "identify")
            try await log.finish(id, state: .cancelled, error: "cancelled")
        }
        try await writer.value
        let record = try #require(try await log.job(id))
        #expect(record.state == .cancelled)
        #expect(record.lastStep == "identify")
        #expect(try await log.events(of: id).map(\.kind) == ["cancelled"])
    }

    /// The fleet outbox: a new entry comes back as a read would give it, the same record and
    /// token twice is not new, and a snapshot's last id covers every entry committed before it.
    @Test func fleetOutboxEntriesAndSnapshots() async throws {
        let log = try JobLog(path: Self.temporaryPath())
        let empty = try await log.fleetOutboxSnapshot()
        #expect(empty.pending.isEmpty && empty.lastID == 0)
        let token = UUID()
        let first = try #require(
            try await log.enqueueNewFleetCompletion(
                recordID: 7, token: token, batch: "b", state: .done, result: Array(#"{"uid":"04A1"}"#.utf8),
                error: nil, job: 3))
        let again = try await log.enqueueNewFleetCompletion(
            recordID: 7, token: token, batch: "b", state: .failed, result: nil, error: "late", job: nil)
        #expect(again == nil)
        #expect(
            try await log.enqueueFleetCompletion(
                recordID: 7, token: token, batch: "b", state: .done, result: nil, error: nil, job: nil) == first.id)
        let second = try #require(
            try await log.enqueueNewFleetCompletion(
                recordID: 8, token: UUID(), batch: "b", state: .failed, result: nil, error: "mute", job: nil))
        #expect(second.id > first.id)
        var snapshot = try await log.fleetOutboxSnapshot()
        // What the worker keeps in memory is what a read of the log returns (dates to the microsecond).
        #expect(snapshot.pending.map(\.id) == [first.id, second.id])
        #expect(snapshot.pending[0].result == first.result && snapshot.pending[0].job == 3)
        #expect(snapshot.pending[1].error == second.error && snapshot.pending[1].state == .failed)
        #expect(abs(snapshot.pending[0].createdAt.timeIntervalSince(first.createdAt)) < 0.001)
        #expect(snapshot.lastID == second.id)
        try await log.markFleetCompletionsDelivered([
            FleetOutboxDelivery(id: first.id, outcome: .applied), FleetOutboxDelivery(id: second.id, outcome: .fenced),
        ])
        snapshot = try await log.fleetOutboxSnapshot()
        #expect(snapshot.pending.isEmpty && snapshot.lastID == second.id)
        #expect(try await log.fleetOutboxDepth() == 0)
    }

    /// A fleet job's end: the job's record and its outbox entry are committed together, the
    /// entry carries the job's id, and the same record and token again is not new.
    @Test func aJobsEndCommitsItsFleetCompletionWithIt() async throws {
        let log = try JobLog(path: Self.temporaryPath())
        let id = try await log.begin(reader: "sim:0", rule: "badges", flow: "fleet", trigger: .card)
        let draft = FleetOutboxDraft(
            batch: "b",
            completion: FleetCompletion(
                recordID: 41, token: UUID(), state: .done, result: Array(#"{"ref":"B1"}"#.utf8), error: nil))
        let entry = try #require(
            try await log.finish(id, state: .succeeded, outcome: JobOutcome(["ref": "B1"]), outbox: draft))
        #expect(entry.recordID == 41 && entry.job == id && entry.result == draft.completion.result)
        #expect(try await log.job(id)?.state == .succeeded)
        let pending = try await log.fleetOutboxSnapshot().pending
        #expect(pending.map(\.id) == [entry.id] && pending.first?.job == id)
        #expect(pending.first?.result == draft.completion.result)
        let other = try await log.begin(reader: "sim:0", rule: "badges", flow: "fleet", trigger: .card)
        #expect(try await log.finish(other, state: .failed, error: "late", outbox: draft) == nil)
        #expect(try await log.job(other)?.state == .failed)
        #expect(try await log.fleetOutboxSnapshot().pending.map(\.id) == [entry.id])
    }

    @Test func jobsRunningWhenTheDaemonDiedAreMarkedInterrupted() async throws {
        let path = Self.temporaryPath()
        var id: JobID = 0
        do {
            let log = try JobLog(path: path)
            id = try await log.begin(reader: "sim:0", rule: nil, flow: "apdu", trigger: .request)
            try await log.recordEvent(id, kind: "stepFinished", detail: "identify", completedStep: "identify")
        }
        let reopened = try JobLog(path: path)
        let record = try #require(try await reopened.job(id))
        #expect(record.state == .interrupted)
        #expect(record.lastStep == "identify")
        #expect(record.finishedAt != nil)
    }

    @Test func oldJobsArePrunedBeyondTheRetention() async throws {
        let log = try JobLog(path: Self.temporaryPath(), retainedJobs: 10)
        for _ in 0..<25 {
            let id = try await log.begin(reader: "sim:0", rule: nil, flow: "report", trigger: .card)
            try await log.finish(id, state: .succeeded)
        }
        let jobs = try await log.jobs(limit: 2000)
        #expect(jobs.count == 10, "each insert beyond 10 prunes the oldest")
        #expect(jobs.first?.id == 25)
        #expect(jobs.last?.id == 16)
    }

    @Test func anUnwritableLocationFailsClearly() {
        #expect(throws: (any Error).self) { try JobLog(path: "/proc/cardd/jobs.sqlite") }
    }

    static func temporaryPath() -> String {
        NSTemporaryDirectory() + "cardd-jobs-\(UUID().uuidString)/jobs.sqlite"
    }
}
