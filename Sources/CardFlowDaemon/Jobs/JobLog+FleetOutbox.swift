import CardFlowDaemonControl
import CardFlowFleet
import Foundation
import GRDB

/// How a claimed fleet record ended, waiting in the host's outbox until the fleet store took it.
public struct FleetOutboxEntry: Sendable, Hashable {
    public var id: Int64
    public var recordID: Int64
    public var token: UUID
    public var batch: String
    public var state: FleetCompletionState
    /// A JSON object (UTF-8) with what the card got.
    public var result: [UInt8]?
    public var error: String?
    public var job: JobID?
    public var attempts: Int
    /// When the completion was put in the outbox (its age is the `cardd_fleet_outbox_age_seconds` gauge).
    public var createdAt: Date

    /// The completion this entry holds, as the fleet store takes it.
    public var completion: FleetCompletion {
        FleetCompletion(recordID: recordID, token: token, state: state, result: result, error: error)
    }
}

/// A completion to put in the outbox, and the batch of its record: what ``FleetOutboxEntry``
/// holds before the outbox gave it an id (the job's end writes it in the same transaction as the
/// job's record).
public struct FleetOutboxDraft: Sendable, Hashable {
    public var batch: String
    public var completion: FleetCompletion

    public init(batch: String, completion: FleetCompletion) {
        self.batch = batch
        self.completion = completion
    }
}

/// What became of a completion the job's end was asked to put in the outbox.
public enum FleetOutboxWrite: Sendable, Hashable {
    /// Committed with the job's record; nil when the record and token were in the outbox already.
    case written(FleetOutboxEntry?)
    /// The job log could not be written (a full disk): the completion is not in the outbox.
    case failed
}

/// An outbox entry the store took, and what the store did with it.
public struct FleetOutboxDelivery: Sendable, Hashable {
    /// The outbox entry's id.
    public var id: Int64
    /// What the store did: applied, alreadyApplied or fenced.
    public var outcome: FleetCompletionOutcome

    /// An entry the store took, with the store's answer.
    public init(id: Int64, outcome: FleetCompletionOutcome) {
        self.id = id
        self.outcome = outcome
    }
}

/// What the outbox held when it was read: its pending entries and the last id it ever gave.
public struct FleetOutboxSnapshot: Sendable, Hashable {
    /// Completions the store has not taken yet, oldest first (at most the limit asked for).
    public var pending: [FleetOutboxEntry]
    /// The highest id the outbox has given an entry (0 when none): every entry committed before
    /// the read has an id up to this one (ids only grow, `AUTOINCREMENT`).
    public var lastID: Int64
}

extension JobLog {
    /// Puts a completion in the outbox (committed before the store is asked, so a crash or a
    /// store outage loses nothing). The same record and token twice keeps the first.
    ///
    /// - Returns: the entry's id (the first one's when the completion was there already).
    @discardableResult
    public func enqueueFleetCompletion(
        recordID: Int64, token: UUID, batch: String, state: FleetCompletionState, result: [UInt8]?, error: String?,
        job: JobID?
    ) async throws -> Int64 {
        let entry = try await enqueueNewFleetCompletion(
            recordID: recordID, token: token, batch: batch, state: state, result: result, error: error, job: job)
        if let entry { return entry.id }
        return try await database.read { db in
            try Int64.fetchOne(
                db, sql: "SELECT id FROM fleet_outbox WHERE record_id = ? AND token = ?",
                arguments: [recordID, token.uuidString]) ?? 0
        }
    }

    /// Puts a completion in the outbox like ``enqueueFleetCompletion(recordID:token:batch:state:result:error:job:)``
    /// and returns the entry as committed, or nil when the record and token were there already
    /// (the entry is not new: whoever put it there delivers it).
    public func enqueueNewFleetCompletion(
        recordID: Int64, token: UUID, batch: String, state: FleetCompletionState, result: [UInt8]?, error: String?,
        job: JobID?
    ) async throws -> FleetOutboxEntry? {
        try await enqueueNewFleetCompletion(
            FleetOutboxDraft(
                batch: batch,
                completion: FleetCompletion(
                    recordID: recordID, token: token, state: state, result: result, error: error)),
            job: job)
    }

    /// ``enqueueNewFleetCompletion(recordID:token:batch:state:result:error:job:)`` of a draft.
    public func enqueueNewFleetCompletion(_ draft: FleetOutboxDraft, job: JobID?) async throws -> FleetOutboxEntry? {
        let retained = Int64(retainedJobs)
        return try await write { db in try Self.insert(draft, job: job, retained: retained, db) }
    }

    /// Inserts `draft` into the outbox in the caller's transaction; nil when the record and token
    /// were there already.
    static func insert(_ draft: FleetOutboxDraft, job: JobID?, retained: Int64, _ db: Database) throws
        -> FleetOutboxEntry?
    {
        let createdAt = Date()
        let completion = draft.completion
        let resultText = completion.result.map { String(decoding: $0, as: UTF8.self) }
        let errorText = completion.error.map { String($0.prefix(2000)) }
        let jobID = job.flatMap { $0 >= 0 ? $0 : nil }
        try db.executeCached(
            sql: """
                INSERT INTO fleet_outbox (record_id, token, batch, state, result, error, job_id, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (record_id, token) DO NOTHING
                """,
            arguments: [
                completion.recordID, completion.token.uuidString, draft.batch, completion.state.rawValue, resultText,
                errorText, jobID,
                createdAt.timeIntervalSince1970,
            ])
        // DO NOTHING leaves lastInsertedRowID at an earlier insert: only a changed row is new.
        guard db.changesCount > 0 else { return nil }
        let id = db.lastInsertedRowID
        // Delivered entries are history; keep as many as jobs.
        try db.executeCached(
            sql: "DELETE FROM fleet_outbox WHERE delivered_at IS NOT NULL AND id <= ?", arguments: [id - retained])
        // As a read of the entry would give it (`substr` counts code points).
        let stored = resultText.map { text in
            Array(String(String.UnicodeScalarView(text.unicodeScalars.prefix(65536))).utf8)
        }
        return FleetOutboxEntry(
            id: id, recordID: completion.recordID, token: completion.token, batch: draft.batch, state: completion.state,
            result: stored, error: errorText, job: jobID, attempts: 0, createdAt: createdAt)
    }

    /// The pending completions (oldest first, at most `limit`) and the last id given, read together.
    public func fleetOutboxSnapshot(limit: Int = 100) async throws -> FleetOutboxSnapshot {
        try await database.read { db in
            let lastID =
                try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'fleet_outbox'") ?? 0
            return FleetOutboxSnapshot(pending: try Self.pendingFleetCompletions(db, limit: limit), lastID: lastID)
        }
    }

    /// Completions the store has not taken yet, oldest first.
    public func pendingFleetCompletions(limit: Int = 100) async throws -> [FleetOutboxEntry] {
        try await database.read { db in try Self.pendingFleetCompletions(db, limit: limit) }
    }

    private static func pendingFleetCompletions(_ db: Database, limit: Int) throws -> [FleetOutboxEntry] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT id, record_id, token, batch, state, substr(result, 1, 65536) AS result,
                       substr(error, 1, 2000) AS error, job_id, attempts, created_at
                FROM fleet_outbox WHERE delivered_at IS NULL ORDER BY id LIMIT ?
                """, arguments: [limit]
        ).map { row in
            let id: Int64 = try row.decode(forColumn: "id")
            let tokenText: String = try row.decode(forColumn: "token")
            let stateText: String = try row.decode(forColumn: "state")
            guard let token = UUID(uuidString: tokenText) else {
                throw JobLogError.unexpectedContent(
                    table: "fleet_outbox", row: id, column: "token", reason: "not a UUID")
            }
            guard let state = FleetCompletionState(rawValue: stateText) else {
                throw JobLogError.unexpectedContent(
                    table: "fleet_outbox", row: id, column: "state", reason: "not done or failed")
            }
            let result: String? = try row.decode(forColumn: "result")
            return FleetOutboxEntry(
                id: id, recordID: try row.decode(forColumn: "record_id"), token: token,
                batch: try row.decode(forColumn: "batch"), state: state, result: result.map { Array($0.utf8) },
                error: try row.decode(forColumn: "error"), job: try row.decode(forColumn: "job_id"),
                attempts: try row.decode(forColumn: "attempts"),
                createdAt: Date(timeIntervalSince1970: try row.decode(forColumn: "created_at")))
        }
    }

    /// Marks an entry taken by the store, with what the store did (applied, alreadyApplied, fenced).
    public func markFleetCompletionDelivered(_ id: Int64, outcome: FleetCompletionOutcome) async throws {
        try await markFleetCompletionsDelivered([FleetOutboxDelivery(id: id, outcome: outcome)])
    }

    /// Marks entries taken by the store in one transaction.
    public func markFleetCompletionsDelivered(_ deliveries: [FleetOutboxDelivery]) async throws {
        guard !deliveries.isEmpty else { return }
        let now = Date().timeIntervalSince1970
        try await write { db in
            for delivery in deliveries {
                try db.executeCached(
                    sql: "UPDATE fleet_outbox SET delivered_at = ?, outcome = ? WHERE id = ?",
                    arguments: [now, delivery.outcome.rawValue, delivery.id])
            }
        }
    }

    /// Counts a failed delivery attempt (the entry stays pending).
    public func recordFleetDeliveryFailure(_ id: Int64, error: String) async throws {
        try await write { db in
            try db.execute(
                sql: "UPDATE fleet_outbox SET attempts = attempts + 1, last_error = ? WHERE id = ?",
                arguments: [String(error.prefix(2000)), id])
        }
    }

    /// When the oldest completion still waiting for the store was put in the outbox; nil when none waits.
    public func oldestPendingFleetCompletion() async throws -> Date? {
        try await database.read { db in
            try Double.fetchOne(db, sql: "SELECT min(created_at) FROM fleet_outbox WHERE delivered_at IS NULL")
                .map { Date(timeIntervalSince1970: $0) }
        }
    }

    /// How many completions wait for the store.
    public func fleetOutboxDepth() async throws -> Int {
        try await database.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM fleet_outbox WHERE delivered_at IS NULL") ?? 0
        }
    }
}
