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
}

extension JobLog {
    /// Puts a completion in the outbox (committed before the store is asked, so a crash or a
    /// store outage loses nothing). The same record and token twice keeps the first.
    @discardableResult
    public func enqueueFleetCompletion(
        recordID: Int64, token: UUID, batch: String, state: FleetCompletionState, result: [UInt8]?, error: String?,
        job: JobID?
    ) async throws -> Int64 {
        let retained = Int64(retainedJobs)
        return try await write { db in
            try db.executeCached(
                sql: """
                    INSERT INTO fleet_outbox (record_id, token, batch, state, result, error, job_id, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (record_id, token) DO NOTHING
                    """,
                arguments: [
                    recordID, token.uuidString, batch, state.rawValue,
                    result.map { String(decoding: $0, as: UTF8.self) }, error.map { String($0.prefix(2000)) },
                    job.flatMap { $0 >= 0 ? $0 : nil }, Date().timeIntervalSince1970,
                ])
            let id = db.lastInsertedRowID
            // Delivered entries are history; keep as many as jobs.
            try db.executeCached(
                sql: "DELETE FROM fleet_outbox WHERE delivered_at IS NOT NULL AND id <= ?", arguments: [id - retained])
            return id
        }
    }

    /// Completions the store has not taken yet, oldest first.
    public func pendingFleetCompletions(limit: Int = 100) async throws -> [FleetOutboxEntry] {
        try await database.read { db in
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
    }

    /// Marks an entry taken by the store, with what the store did (applied, alreadyApplied, fenced).
    public func markFleetCompletionDelivered(_ id: Int64, outcome: FleetCompletionOutcome) async throws {
        try await write { db in
            try db.executeCached(
                sql: "UPDATE fleet_outbox SET delivered_at = ?, outcome = ? WHERE id = ?",
                arguments: [Date().timeIntervalSince1970, outcome.rawValue, id])
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
