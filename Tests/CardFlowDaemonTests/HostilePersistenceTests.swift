import CardFlow
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowDaemonFlows
import CardFlowDaemonTestSupport
import Foundation
import GRDB
import Testing

/// Files others can write: a tampered or foreign job log, the socket folder, the key store.
@Suite("cardd hostile persistence", .serialized)
struct HostilePersistenceTests {
    static func temporaryFolder() throws -> String {
        let folder = NSTemporaryDirectory() + "cardd-hostile-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        return folder
    }

    /// Rebuilds both tables without types or constraints (as another program could), so that
    /// the tampering can put anything anywhere.
    static let loosen = """
        CREATE TABLE job_copy AS SELECT * FROM job; DROP TABLE job;
        CREATE TABLE job (id INTEGER PRIMARY KEY, reader, rule, flow, trigger, state, card_atr, card_uid, started_at,
                          finished_at, last_step, outcome, error);
        INSERT INTO job SELECT * FROM job_copy; DROP TABLE job_copy;
        CREATE TABLE event_copy AS SELECT * FROM job_event; DROP TABLE job_event;
        CREATE TABLE job_event (id INTEGER PRIMARY KEY, job_id, at, kind, detail);
        INSERT INTO job_event SELECT * FROM event_copy; DROP TABLE event_copy;
        """

    /// A log with one finished job, then `tamper` run on it with plain SQL; reopened unless
    /// `reopen` is false.
    static func tamperedLog(_ tamper: String) async throws -> (JobLog, JobID, String) {
        let (id, path) = try await tamperedFile(tamper)
        return (try JobLog(path: path), id, path)
    }

    static func tamperedFile(_ tamper: String) async throws -> (JobID, String) {
        let folder = try temporaryFolder()
        let path = folder + "/jobs.sqlite"
        var id: JobID = 0
        do {
            let log = try JobLog(path: path)
            id = try await log.begin(reader: "sim:0", rule: "r", flow: "report", trigger: .card)
            try await log.recordEvent(id, kind: "stepFinished", detail: "identify", completedStep: "identify")
            try await log.finish(id, state: .succeeded, outcome: JobOutcome(["uid": "04"]))
        }
        let queue = try DatabaseQueue(path: path)
        try await queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: Self.loosen + tamper)
        }
        try await queue.close()
        return (id, path)
    }

    static let tamperings: [(sql: String, column: String)] = [
        ("UPDATE job SET state = 'banana'", "state"),
        ("UPDATE job SET trigger = 'magic'", "trigger"),
        ("UPDATE job SET reader = NULL", "reader"),
        ("UPDATE job SET reader = 42", "reader"),
        ("UPDATE job SET flow = x'00FF00FF'", "flow"),
        ("UPDATE job SET started_at = NULL", "started_at"),
        ("UPDATE job SET started_at = 'yesterday'", "started_at"),
        ("UPDATE job SET finished_at = 1e300", "finished_at"),
        ("UPDATE job SET outcome = '{\"values\": 7}'", "outcome"),
        ("UPDATE job SET outcome = zeroblob(5000000)", "outcome"),
        ("UPDATE job SET error = hex(zeroblob(200000))", "error"),
        ("UPDATE job SET rule = x'C3'", "rule"),
    ]

    @Test(arguments: tamperings.indices)
    func aTamperedRowGivesATypedErrorNotATrap(_ index: Int) async throws {
        let (sql, column) = Self.tamperings[index]
        let (log, id, _) = try await Self.tamperedLog(sql)
        do {
            _ = try await log.jobs()
            Issue.record("\(sql): read back without complaint")
        } catch let error as JobLogError {
            switch error {
            case .unexpectedContent(let table, let row, let failing, _),
                .fieldTooLarge(let table, let row, let failing, _):
                #expect(table == "job" && row == id && failing == column, "\(sql): \(error)")
            default: Issue.record("\(sql): \(error)")
            }
        }
        await #expect(throws: JobLogError.self) { _ = try await log.job(id) }
        // The events are untouched and still readable.
        #expect(try await log.events(of: id).count == 1)
    }

    @Test func tamperedEventsGiveATypedError() async throws {
        let (log, id, _) = try await Self.tamperedLog("UPDATE job_event SET detail = NULL")
        await #expect(throws: JobLogError.self) { _ = try await log.events(of: id) }
    }

    @Test func aForeignOrBrokenDatabaseIsRefusedAtOpenWithAClearMessage() async throws {
        let folder = try Self.temporaryFolder()
        // Not a database at all.
        let garbage = folder + "/garbage.sqlite"
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: garbage))
        #expect(throws: JobLogError.self) { _ = try JobLog(path: garbage) }
        // Another program's database with a table of the same name.
        let foreign = folder + "/foreign.sqlite"
        let queue = try DatabaseQueue(path: foreign)
        try await queue.write { db in try db.execute(sql: "CREATE TABLE job (id INTEGER PRIMARY KEY, name TEXT)") }
        try await queue.close()
        #expect(throws: JobLogError.self) { _ = try JobLog(path: foreign) }
        // cardd's own log with a column dropped afterwards.
        let (_, path) = try await Self.tamperedFile("ALTER TABLE job DROP COLUMN last_step")
        do {
            _ = try JobLog(path: path)
            Issue.record("a log without last_step opened")
        } catch let error as JobLogError {
            #expect(error.description.contains("last_step"), "\(error)")
        }
        // The daemon refuses to start with that message instead of crashing.
        let configuration = ConfigurationStore(DaemonConfiguration(readers: []), path: nil, flowKinds: .standard)
        #expect(throws: JobLogError.self) {
            _ = try CardDaemon(
                configuration: configuration, socketPath: folder + "/cardd.sock", jobLogPath: foreign,
                logger: .init(label: "test"))
        }
    }

    @Test func theDaemonAnswersATamperedJobWithAnErrorAndKeepsServing() async throws {
        try await DaemonHarness.run(readers: ["sim:iso7816"]) { harness in
            let client = try await ControlClient.connect(path: harness.socket)
            let answer = try await client.request([
                "op": "flow", "reader": "sim:0", "flow": ["kind": "report"], "follow": .bool(true),
            ])
            let job = try #require(answer["result"]?["id"]?.intValue)
            let path = try #require(harness.daemon.jobLog).path
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in
                try db.execute(sql: "UPDATE job SET state = 'banana' WHERE id = ?", arguments: [job])
            }
            try await queue.close()
            let broken = try await client.request(["op": "job", "job": .number(Double(job))])
            #expect(broken["error"]?["code"] == "jobLogCorrupt", "\(broken.jsonLine())")
            #expect(try await client.request(["op": "ping"])["result"] == "pong")
            await client.close()
        }
    }

    @Test func aWorldWritableSocketFolderIsRefused() async throws {
        let folder = try Self.temporaryFolder()
        chmod(folder, 0o777)
        try await expectRefusal(socketFolder: folder, reason: "writable by every user")
    }

    @Test func aSocketFolderOwnedByAnotherUserIsRefused() async throws {
        let folder: String
        if geteuid() == 0 {
            folder = try Self.temporaryFolder()
            #expect(chown(folder, 65_534, 65_534) == 0)
        } else {
            // Not root: the root directory belongs to someone else.
            folder = "/"
        }
        try await expectRefusal(socketFolder: folder, reason: "owned by uid")
    }

    private func expectRefusal(socketFolder folder: String, reason: String) async throws {
        let logFolder = try Self.temporaryFolder()
        let daemon = try CardDaemon(
            configuration: ConfigurationStore(DaemonConfiguration(readers: []), path: nil, flowKinds: .standard),
            socketPath: (folder as NSString).appendingPathComponent("cardd.sock"),
            jobLogPath: logFolder + "/jobs.sqlite", logger: .init(label: "test"))
        do {
            try await daemon.run()
            Issue.record("the daemon ran with its socket in \(folder)")
        } catch let error as ControlSocketError {
            #expect(error.description.contains(reason), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent("cardd.sock")))
    }

    @Test func aHugeKeyStoreFileIsRefusedWithoutBeingRead() async throws {
        let folder = try Self.temporaryFolder()
        let path = folder + "/keys.json"
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: Data("{".utf8), attributes: [.posixPermissions: 0o600]))
        // Sparse: 1 GiB on paper, nothing on disk.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 1 << 30)
        try handle.close()
        let store = FileKeyStore(path: path)
        await #expect(throws: KeyStoreError.self) { _ = try await store.listing() }
    }

    @Test func aDeeplyNestedKeyStoreFileIsATypedError() async throws {
        let folder = try Self.temporaryFolder()
        let path = folder + "/keys.json"
        let text = String(repeating: "[", count: 200_000)
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]))
        await #expect(throws: KeyStoreError.self) { _ = try await FileKeyStore(path: path).listing() }
    }
}
