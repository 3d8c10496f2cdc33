import Foundation
import CardFlow
import GRDB

/// The persistent job log: every job with its steps, outcome and card identity, in SQLite.
///
/// Each change is its own transaction in WAL mode with `synchronous=NORMAL`: a crash or `SIGKILL`
/// leaves every committed record intact (a power cut can lose the last few, never corrupt the
/// file), without an fsync per progress event; jobs still `running` when the log is opened again are marked
/// ``JobState/interrupted`` with the last step they completed. Write failures (a full disk)
/// are thrown to the caller, which keeps the daemon running.
///
/// ```swift
/// let log = try JobLog(path: "/var/lib/cardd/jobs.sqlite")
/// let id = try await log.begin(reader: "sim:0", rule: "posters", flow: "ndef-write", trigger: .card)
/// try await log.recordStep(id, name: "identify")
/// try await log.finish(id, state: .succeeded, outcome: JobOutcome(["uid": "04A1B2C3D4E5F6"]))
/// ```
public final class JobLog: Sendable {
    private let database: DatabasePool
    /// Older jobs are pruned beyond this many, so that a daemon running for months stays bounded.
    public let retainedJobs: Int

    /// Opens (creating if needed) the log at `path`; its folder is created with mode 0700.
    public init(path: String, retainedJobs: Int = 100_000) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        database = try DatabasePool(path: path, configuration: configuration)
        self.retainedJobs = retainedJobs
        try Self.migrator.migrate(database)
        try database.write { db in
            try db.execute(sql: "UPDATE job SET state = 'interrupted', finished_at = ? WHERE state = 'running'",
                           arguments: [Date().timeIntervalSince1970])
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE job (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    reader TEXT NOT NULL,
                    rule TEXT,
                    flow TEXT NOT NULL,
                    trigger TEXT NOT NULL,
                    state TEXT NOT NULL,
                    card_atr TEXT,
                    card_uid TEXT,
                    started_at REAL NOT NULL,
                    finished_at REAL,
                    last_step TEXT,
                    outcome TEXT,
                    error TEXT
                );
                CREATE TABLE job_event (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    job_id INTEGER NOT NULL REFERENCES job(id) ON DELETE CASCADE,
                    at REAL NOT NULL,
                    kind TEXT NOT NULL,
                    detail TEXT NOT NULL
                );
                CREATE INDEX job_event_by_job ON job_event(job_id);
                """)
        }
        return migrator
    }

    /// Writes in a task of its own: a job that is being cancelled still gets its last records
    /// (GRDB's async writes would otherwise give up with `CancellationError`).
    private func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let database = self.database
        return try await Task { try await database.write(updates) }.value
    }

    /// Records a new running job and returns its id.
    public func begin(reader: String, rule: String?, flow: String, trigger: JobTrigger) async throws -> JobID {
        let retained = retainedJobs
        return try await write { db in
            try db.execute(sql: """
                INSERT INTO job (reader, rule, flow, trigger, state, started_at) VALUES (?, ?, ?, ?, 'running', ?)
                """, arguments: [reader, rule, flow, trigger.rawValue, Date().timeIntervalSince1970])
            let id = db.lastInsertedRowID
            if id % Int64(max(1, min(1000, retained / 10))) == 0 {
                try db.execute(sql: "DELETE FROM job WHERE id <= ?", arguments: [id - Int64(retained)])
                try db.execute(sql: "DELETE FROM job_event WHERE job_id <= ?", arguments: [id - Int64(retained)])
            }
            return id
        }
    }

    /// Records the card a job runs on.
    public func recordCard(_ id: JobID, atr: [UInt8], uid: [UInt8]?) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE job SET card_atr = ?, card_uid = ? WHERE id = ?",
                           arguments: [atr.hexString, uid?.hexString, id])
        }
    }

    /// Records a progress event; a finished step also becomes the job's `lastStep`.
    public func recordEvent(_ id: JobID, kind: String, detail: String, completedStep: String? = nil) async throws {
        try await write { db in
            try db.execute(sql: "INSERT INTO job_event (job_id, at, kind, detail) VALUES (?, ?, ?, ?)",
                           arguments: [id, Date().timeIntervalSince1970, kind, detail])
            if let completedStep {
                try db.execute(sql: "UPDATE job SET last_step = ? WHERE id = ?", arguments: [completedStep, id])
            }
        }
    }

    /// Records how a job ended.
    public func finish(_ id: JobID, state: JobState, outcome: JobOutcome? = nil, error: String? = nil) async throws {
        let outcomeText = try outcome.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        try await write { db in
            try db.execute(sql: "UPDATE job SET state = ?, finished_at = ?, outcome = ?, error = ? WHERE id = ?",
                           arguments: [state.rawValue, Date().timeIntervalSince1970, outcomeText, error, id])
        }
    }

    /// The most recent jobs, newest first.
    public func jobs(limit: Int = 50) async throws -> [JobRecord] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM job ORDER BY id DESC LIMIT ?", arguments: [max(0, limit)])
                .map(Self.record)
        }
    }

    /// One job, or nil.
    public func job(_ id: JobID) async throws -> JobRecord? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM job WHERE id = ?", arguments: [id]).map(Self.record)
        }
    }

    /// A job's events, oldest first.
    public func events(of id: JobID) async throws -> [JobEventRecord] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM job_event WHERE job_id = ? ORDER BY id", arguments: [id]).map { row in
                JobEventRecord(jobID: row["job_id"], at: Date(timeIntervalSince1970: row["at"]),
                               kind: row["kind"], detail: row["detail"])
            }
        }
    }

    private static func record(_ row: Row) -> JobRecord {
        let outcomeText: String? = row["outcome"]
        let finished: Double? = row["finished_at"]
        return JobRecord(
            id: row["id"], reader: row["reader"], rule: row["rule"], flow: row["flow"],
            trigger: JobTrigger(rawValue: row["trigger"]) ?? .request,
            state: JobState(rawValue: row["state"]) ?? .interrupted,
            cardATR: row["card_atr"], cardUID: row["card_uid"],
            startedAt: Date(timeIntervalSince1970: row["started_at"]),
            finishedAt: finished.map(Date.init(timeIntervalSince1970:)),
            lastStep: row["last_step"],
            outcome: outcomeText.flatMap { try? JSONDecoder().decode(JobOutcome.self, from: Data($0.utf8)) },
            error: row["error"])
    }
}
