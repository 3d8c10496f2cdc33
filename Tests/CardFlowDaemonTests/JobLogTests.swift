import CardFlowDaemon
import CardFlowDaemonControl
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
