import CardFlow
import CardFlowDaemonControl
import Foundation
import GRDB

/// The persistent job log: every job with its steps, outcome and card identity, in SQLite.
///
/// Each change is committed before its call returns (changes asked for together share one
/// transaction), in WAL mode with `synchronous=NORMAL`: a crash or `SIGKILL`
/// leaves every committed record intact (a power cut can lose the last few, never corrupt the
/// file), without an fsync per progress event; jobs still `running` when the log is opened again are marked
/// ``/CardFlowDaemonControl/JobState/interrupted`` with the last step they completed. Write failures (a full disk)
/// are thrown to the caller, which keeps the daemon running.
///
/// ```swift
/// let log = try JobLog(path: "/var/lib/cardd/jobs.sqlite")
/// let id = try await log.begin(reader: "sim:0", rule: "posters", flow: "ndef-write", trigger: .card)
/// try await log.recordStep(id, name: "identify")
/// try await log.finish(id, state: .succeeded, outcome: JobOutcome(["uid": "04A1B2C3D4E5F6"]))
/// ```
public final class JobLog: Sendable {
    let database: DatabasePool
    private let groupCommit: JobLogGroupCommit
    /// The SQLite file.
    public let path: String
    /// Older jobs are pruned beyond this many, so that a daemon running for months stays bounded.
    public let retainedJobs: Int

    /// Opens (creating if needed) the log at `path`; its folder is created with mode 0700.
    public init(path: String, retainedJobs: Int = 100_000) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            database = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw JobLogError.unusable(path: path, reason: Self.describe(error))
        }
        self.retainedJobs = retainedJobs
        self.path = path
        groupCommit = JobLogGroupCommit(database: database)
        do {
            try Self.migrator.migrate(database)
        } catch {
            throw JobLogError.schemaMismatch(path: path, reason: Self.describe(error))
        }
        try Self.checkSchema(database, path: path)
        do {
            try database.write { db in
                try db.execute(
                    sql: "UPDATE job SET state = 'interrupted', finished_at = ? WHERE state = 'running'",
                    arguments: [Date().timeIntervalSince1970])
            }
        } catch {
            throw JobLogError.unusable(path: path, reason: Self.describe(error))
        }
    }

    /// The columns cardd reads, per table.
    private static let requiredColumns: [String: Set<String>] = [
        "job": [
            "id", "reader", "rule", "flow", "trigger", "state", "card_atr", "card_uid", "started_at", "finished_at",
            "last_step", "outcome", "error",
        ],
        "job_event": ["id", "job_id", "at", "kind", "detail"],
    ]

    /// A database another program made, or whose tables were edited, is refused at open with
    /// what is missing (instead of failing on every later read).
    private static func checkSchema(_ database: DatabasePool, path: String) throws {
        do {
            try database.read { db in
                for (table, required) in requiredColumns.sorted(by: { $0.key < $1.key }) {
                    let present = Set(
                        try Row.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
                            .compactMap { row -> String? in try row.decode(forColumn: "name") })
                    let missing = required.subtracting(present)
                    guard missing.isEmpty else {
                        throw JobLogError.schemaMismatch(
                            path: path,
                            reason: present.isEmpty
                                ? "no table '\(table)'"
                                : "table '\(table)' lacks \(missing.sorted().joined(separator: ", "))")
                    }
                }
            }
        } catch let error as JobLogError {
            throw error
        } catch {
            throw JobLogError.unusable(path: path, reason: describe(error))
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? "\(error.resultCode)" }
        return String(describing: error)
    }

    /// Longest text cardd reads back from a column (it writes far less): a tampered row with a
    /// gigabyte blob is refused without being loaded.
    static let maximumFieldLength = 1 << 16

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
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
        // A fleet host's outbox: how each claimed record ended, kept until the fleet store took it.
        migrator.registerMigration("v2-fleet-outbox") { db in
            try db.execute(
                sql: """
                    CREATE TABLE fleet_outbox (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        record_id INTEGER NOT NULL,
                        token TEXT NOT NULL,
                        batch TEXT NOT NULL,
                        state TEXT NOT NULL,
                        result TEXT,
                        error TEXT,
                        job_id INTEGER,
                        created_at REAL NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        last_error TEXT,
                        delivered_at REAL,
                        outcome TEXT,
                        UNIQUE (record_id, token)
                    );
                    CREATE INDEX fleet_outbox_pending ON fleet_outbox(id) WHERE delivered_at IS NULL;
                    """)
        }
        return migrator
    }

    /// Writes whether or not the calling task is cancelled: a job that is being cancelled still
    /// gets its last records. Writes asked for together share a transaction
    /// (``JobLogGroupCommit``); each returns once its transaction committed.
    func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await groupCommit.write(updates)
    }

    /// Records a new running job and returns its id.
    public func begin(reader: String, rule: String?, flow: String, trigger: JobTrigger) async throws -> JobID {
        let retained = retainedJobs
        return try await write { db in
            try db.executeCached(
                sql: """
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
            try db.executeCached(
                sql: "UPDATE job SET card_atr = ?, card_uid = ? WHERE id = ?",
                arguments: [atr.hexString, uid?.hexString, id])
        }
    }

    /// Records a progress event; a finished step also becomes the job's `lastStep`.
    public func recordEvent(_ id: JobID, kind: String, detail: String, completedStep: String? = nil) async throws {
        try await write { db in
            try db.executeCached(
                sql: "INSERT INTO job_event (job_id, at, kind, detail) VALUES (?, ?, ?, ?)",
                arguments: [id, Date().timeIntervalSince1970, kind, detail])
            if let completedStep {
                try db.executeCached(sql: "UPDATE job SET last_step = ? WHERE id = ?", arguments: [completedStep, id])
            }
        }
    }

    /// Records the last step a job completed (without an event).
    public func recordLastStep(_ id: JobID, _ step: String) async throws {
        try await write { db in
            try db.executeCached(sql: "UPDATE job SET last_step = ? WHERE id = ?", arguments: [step, id])
        }
    }

    /// Records how a job ended, and with it (in the same transaction) a fleet completion for the
    /// outbox.
    ///
    /// - Returns: the outbox entry as committed; nil when there was none to write or the record
    ///   and token were in the outbox already.
    @discardableResult
    public func finish(
        _ id: JobID, state: JobState, outcome: JobOutcome? = nil, error: String? = nil,
        outbox: FleetOutboxDraft? = nil
    ) async throws -> FleetOutboxEntry? {
        let outcomeText = try outcome.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        let retained = Int64(retainedJobs)
        return try await write { db in
            try db.executeCached(
                sql: "UPDATE job SET state = ?, finished_at = ?, outcome = ?, error = ? WHERE id = ?",
                arguments: [state.rawValue, Date().timeIntervalSince1970, outcomeText, error, id])
            return try outbox.flatMap { try Self.insert($0, job: id, retained: retained, db) }
        }
    }

    /// The most recent jobs, newest first.
    ///
    /// - Throws: ``JobLogError`` for a row cardd did not write as it is (tampered or foreign).
    public func jobs(limit: Int = 50) async throws -> [JobRecord] {
        try await database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT \(Self.jobColumns) FROM job ORDER BY id DESC LIMIT ?", arguments: [max(0, limit)]
            )
            .map(Self.record)
        }
    }

    /// One job, or nil.
    ///
    /// - Throws: ``JobLogError`` for a row cardd did not write as it is.
    public func job(_ id: JobID) async throws -> JobRecord? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.jobColumns) FROM job WHERE id = ?", arguments: [id]).map(
                Self.record)
        }
    }

    /// A job's events, oldest first.
    ///
    /// - Throws: ``JobLogError`` for a row cardd did not write as it is.
    public func events(of id: JobID) async throws -> [JobEventRecord] {
        try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, job_id, at, \(Self.bounded("kind")), \(Self.bounded("detail"))
                    FROM job_event WHERE job_id = ? ORDER BY id
                    """, arguments: [id]
            ).map { row in
                let fields = RowFields(row: row, table: "job_event")
                return JobEventRecord(
                    jobID: try fields.required("job_id"), at: Date(timeIntervalSince1970: try fields.time("at")),
                    kind: try fields.text("kind"), detail: try fields.text("detail"))
            }
        }
    }

    /// Text columns are read as at most ``maximumFieldLength`` + 1 characters, so an oversize
    /// one is known without loading it; `typeof` tells text from a blob or a number.
    private static func bounded(_ column: String) -> String {
        "substr(\(column), 1, \(maximumFieldLength + 1)) AS \(column), typeof(\(column)) AS \(column)_type"
    }

    private static var jobColumns: String {
        (["id", "started_at", "finished_at"]
            + ["reader", "rule", "flow", "trigger", "state", "card_atr", "card_uid", "last_step", "outcome", "error"]
            .map(bounded))
            .joined(separator: ", ")
    }

    private static func record(_ row: Row) throws -> JobRecord {
        let fields = RowFields(row: row, table: "job")
        let id: JobID = try fields.required("id")
        let triggerText = try fields.text("trigger")
        guard let trigger = JobTrigger(rawValue: triggerText) else {
            throw fields.unexpected("trigger", "unknown trigger '\(triggerText.prefix(40))'")
        }
        let stateText = try fields.text("state")
        guard let state = JobState(rawValue: stateText) else {
            throw fields.unexpected("state", "unknown state '\(stateText.prefix(40))'")
        }
        var outcome: JobOutcome?
        if let outcomeText = try fields.optionalText("outcome") {
            do {
                outcome = try JSONDecoder().decode(JobOutcome.self, from: Data(outcomeText.utf8))
            } catch {
                throw fields.unexpected("outcome", "not an outcome object")
            }
        }
        let finished: Double? = try fields.optionalTime("finished_at")
        return JobRecord(
            id: id, reader: try fields.text("reader"), rule: try fields.optionalText("rule"),
            flow: try fields.text("flow"),
            trigger: trigger, state: state,
            cardATR: try fields.optionalText("card_atr"), cardUID: try fields.optionalText("card_uid"),
            startedAt: Date(timeIntervalSince1970: try fields.time("started_at")),
            finishedAt: finished.map(Date.init(timeIntervalSince1970:)),
            lastStep: try fields.optionalText("last_step"),
            outcome: outcome,
            error: try fields.optionalText("error"))
    }
}

/// Reads one job-log row's columns with typed errors: the row id for the message, text that
/// must be text (not a blob or a number) and not longer than the bound, times that are finite.
private struct RowFields {
    let row: Row
    let table: String

    private var rowID: Int64? { try? row.decode(Int64?.self, forColumn: "id") }

    func unexpected(_ column: String, _ reason: String) -> JobLogError {
        .unexpectedContent(table: table, row: rowID, column: column, reason: reason)
    }

    func required<T: DatabaseValueConvertible>(_ column: String) throws -> T {
        let value: T?
        do { value = try row.decode(T?.self, forColumn: column) } catch { throw unexpected(column, "not \(T.self)") }
        guard let value else { throw unexpected(column, "NULL where a value is required") }
        return value
    }

    func optionalText(_ column: String) throws -> String? {
        let type: String? = try? row.decode(String?.self, forColumn: column + "_type")
        switch type {
        case "null", nil: return nil
        case "text": break
        default: throw unexpected(column, "holds a \(type ?? "?") where text is expected")
        }
        let text: String
        do { text = try row.decode(String.self, forColumn: column) } catch {
            throw unexpected(column, "unreadable text")
        }
        guard text.utf8.count <= JobLog.maximumFieldLength else {
            throw JobLogError.fieldTooLarge(table: table, row: rowID, column: column, limit: JobLog.maximumFieldLength)
        }
        return text
    }

    func text(_ column: String) throws -> String {
        guard let text = try optionalText(column) else { throw unexpected(column, "NULL where text is required") }
        return text
    }

    func optionalTime(_ column: String) throws -> Double? {
        let value: Double?
        do { value = try row.decode(Double?.self, forColumn: column) } catch { throw unexpected(column, "not a time") }
        if let value, !value.isFinite || abs(value) > 1e11 { throw unexpected(column, "time \(value) out of range") }
        return value
    }

    func time(_ column: String) throws -> Double {
        guard let value = try optionalTime(column) else { throw unexpected(column, "NULL where a time is required") }
        return value
    }
}
