import CardFlowFleet
import Foundation
import Logging
import PostgresNIO

extension FleetStore {
    /// Adds `records` to `batch` (created when new, with `maxAttempts` claims per record) in
    /// one transaction, then wakes the hosts. References the batch already has are skipped.
    public func importRecords(
        batch: String, _ records: [FleetRecordInput], maxAttempts: Int = 3
    ) async throws(FleetStoreError) -> FleetImportSummary {
        guard (1...128).contains(batch.count) else {
            throw .invalidRecord(line: 0, reason: "a batch name has 1 to 128 characters")
        }
        guard maxAttempts >= 1 else { throw .invalidRecord(line: 0, reason: "max attempts must be at least 1") }
        let imported = try await perform("import") { client, logger in
            try await client.withTransaction(logger: logger) { connection -> Int in
                try await connection.query(
                    """
                    INSERT INTO fleet_batches (name, max_attempts) VALUES (\(batch), \(maxAttempts))
                    ON CONFLICT (name) DO NOTHING
                    """, logger: logger)
                var inserted = 0
                var start = 0
                while start < records.count {
                    let chunk = records[start..<min(start + 2_000, records.count)]
                    let references = chunk.map(\.reference)
                    let parameters = chunk.map { String(decoding: $0.parameters, as: UTF8.self) }
                    let rows = try await connection.query(
                        """
                        INSERT INTO fleet_records (batch, ref, params)
                        SELECT \(batch), r, p::jsonb FROM unnest(\(references)::text[], \(parameters)::text[]) AS t(r, p)
                        ON CONFLICT (batch, ref) DO NOTHING
                        RETURNING id
                        """, logger: logger)
                    for try await _ in rows.decode(Int64.self) { inserted += 1 }
                    start += chunk.count
                }
                return inserted
            }
        }
        // A lost notification only delays the hosts until their next poll.
        try? await announce(batch: batch)
        return FleetImportSummary(batch: batch, imported: imported, skipped: records.count - imported)
    }

    /// Counts per state and per host, for one batch or all, with each host's rate over the last
    /// minute.
    public func status(batch: String? = nil) async throws(FleetStoreError) -> [FleetBatchStatus] {
        try await status(batch: batch, rateWindow: .seconds(60))
    }

    /// Counts per state and per host, for one batch or all, with each host's rate over the last
    /// `rateWindow` (the records it finished, done or failed, by completion time).
    public func status(
        batch: String?, rateWindow: Duration
    ) async throws(FleetStoreError) -> [FleetBatchStatus] {
        let windowSeconds = max(Self.seconds(rateWindow), 1)
        let statuses = try await perform("status") { client, logger in
            try await client.withTransaction(logger: logger) { connection -> [FleetBatchStatus] in
                var byBatch: [String: FleetBatchStatus] = [:]
                let batches = try await connection.query(
                    "SELECT name, max_attempts FROM fleet_batches WHERE \(batch)::text IS NULL OR name = \(batch)",
                    logger: logger)
                for try await (name, maximum) in batches.decode((String, Int).self) {
                    var status = FleetBatchStatus(batch: name, maximumAttempts: maximum)
                    status.rateWindowSeconds = windowSeconds
                    byBatch[name] = status
                }
                let counts = try await connection.query(
                    """
                    SELECT batch, CASE WHEN state = 'claimed' AND lease_until < now() THEN 'expired' ELSE state END,
                           count(*)
                    FROM fleet_records WHERE \(batch)::text IS NULL OR batch = \(batch)
                    GROUP BY 1, 2
                    """, logger: logger)
                for try await (name, state, count) in counts.decode((String, String, Int).self) {
                    guard var status = byBatch[name] else { continue }
                    switch state {
                    case "pending": status.pending = count
                    case "claimed": status.claimed = count
                    case "expired": status.expired = count
                    case "done": status.done = count
                    case "failed": status.failed = count
                    case "void": status.void = count
                    default: break
                    }
                    byBatch[name] = status
                }
                let spoiled = try await connection.query(
                    """
                    SELECT batch, count(*) FROM fleet_spoiled WHERE \(batch)::text IS NULL OR batch = \(batch)
                    GROUP BY batch
                    """, logger: logger)
                for try await (name, count) in spoiled.decode((String, Int).self) { byBatch[name]?.spoiled = count }
                let perHost = try await connection.query(
                    """
                    SELECT batch, claimed_by, state, count(*),
                           count(*) FILTER (WHERE state <> 'claimed'
                                            AND completed_at >= now() - make_interval(secs => \(windowSeconds)))
                    FROM fleet_records
                    WHERE claimed_by IS NOT NULL AND state IN ('claimed', 'done', 'failed')
                      AND (\(batch)::text IS NULL OR batch = \(batch))
                    GROUP BY 1, 2, 3 ORDER BY 2
                    """, logger: logger)
                var hosts: [String: [String: FleetHostCounts]] = [:]
                for try await (name, host, state, count, recent) in perHost.decode(
                    (String, String, String, Int, Int).self)
                {
                    var counts = hosts[name, default: [:]][host] ?? FleetHostCounts(host: host)
                    counts.recentlyFinished += recent
                    switch state {
                    case "claimed": counts.claimed = count
                    case "done": counts.done = count
                    default: counts.failed = count
                    }
                    hosts[name, default: [:]][host] = counts
                }
                for (name, counts) in hosts {
                    byBatch[name]?.hosts = counts.values.sorted { $0.host < $1.host }.map { host in
                        var host = host
                        host.recordsPerMinute = Double(host.recentlyFinished) * 60 / windowSeconds
                        return host
                    }
                }
                return byBatch.values.sorted { $0.batch < $1.batch }
            }
        }
        if let batch, statuses.isEmpty { throw .unknownBatch(batch) }
        return statuses
    }

    /// Records of `batch`, oldest first, optionally only those in `state`.
    public func records(
        batch: String, state: FleetRecordState? = nil, limit: Int = 1_000
    ) async throws(FleetStoreError) -> [FleetRecordRow] {
        let stateName = state?.rawValue
        let limit = max(1, min(limit, 1_000_000))
        return try await perform("records") { client, logger in
            let rows = try await client.query(
                """
                SELECT id, ref, state, attempts, claimed_by, reader, uid, lease_until, params::text, result::text,
                       error, updated_at
                FROM fleet_records
                WHERE batch = \(batch) AND (\(stateName)::text IS NULL OR state = \(stateName))
                ORDER BY id LIMIT \(limit)
                """, logger: logger)
            var records: [FleetRecordRow] = []
            for try await (id, reference, state, attempts, host, reader, uid, lease, parameters, result, error, updated)
                in rows.decode(
                    (Int64, String, String, Int, String?, String?, String?, Date?, String, String?, String?, Date).self)
            {
                guard let state = FleetRecordState(rawValue: state) else {
                    throw FleetStoreError.corruptRow(operation: "records", reason: "record \(id) has state '\(state)'")
                }
                records.append(
                    FleetRecordRow(
                        id: id, reference: reference, state: state, attempts: attempts, host: host, reader: reader,
                        uid: uid, leaseUntil: lease, parameters: parameters, result: result, error: error,
                        updatedAt: updated))
            }
            return records
        }
    }

    /// Puts `failed` records of `batch` (all, or those in `ids`) back to `pending` with their
    /// attempts reset, and wakes the hosts. The card a failed attempt had bound goes on the
    /// spoilage list: it may be half-written. Returns how many records were put back.
    public func retry(batch: String, ids: [Int64] = []) async throws(FleetStoreError) -> Int {
        let count = try await perform("retry") { client, logger in
            try await client.withTransaction(logger: logger) { connection -> Int in
                let rows = try await connection.query(
                    """
                    WITH retried AS (
                        UPDATE fleet_records r
                        SET state = 'pending', attempts = 0, claim_token = NULL, claimed_by = NULL, reader = NULL,
                            lease_until = NULL, uid = NULL, result = NULL, error = NULL, updated_at = now()
                        FROM fleet_records old
                        WHERE r.id = old.id AND r.batch = \(batch) AND r.state = 'failed'
                          AND (cardinality(\(ids)::bigint[]) = 0 OR r.id = ANY(\(ids)::bigint[]))
                        RETURNING r.id, old.uid, old.claimed_by, old.reader, old.claim_token
                    ), spoil AS (
                        INSERT INTO fleet_spoiled (uid, record_id, batch, host, reader, claim_token, reason)
                        SELECT uid, id, \(batch), claimed_by, reader, claim_token, 'failed attempt; record retried'
                        FROM retried WHERE uid IS NOT NULL
                    )
                    SELECT id FROM retried
                    """, logger: logger)
                var count = 0
                for try await _ in rows.decode(Int64.self) { count += 1 }
                return count
            }
        }
        if count > 0 { try? await announce(batch: batch) }
        return count
    }

    /// Takes `pending` or `failed` records of `batch` (all, or those in `ids`) out of the
    /// batch; claimed and done records are left alone. Returns how many were voided.
    public func void(batch: String, ids: [Int64] = []) async throws(FleetStoreError) -> Int {
        try await perform("void") { client, logger in
            let rows = try await client.query(
                """
                UPDATE fleet_records SET state = 'void', lease_until = NULL, updated_at = now()
                WHERE batch = \(batch) AND state IN ('pending', 'failed')
                  AND (cardinality(\(ids)::bigint[]) = 0 OR id = ANY(\(ids)::bigint[]))
                RETURNING id
                """, logger: logger)
            var count = 0
            for try await _ in rows.decode(Int64.self) { count += 1 }
            return count
        }
    }

    /// The spoilage list, for one batch or all, newest first.
    public func spoiledCards(batch: String? = nil) async throws(FleetStoreError) -> [FleetSpoiledCard] {
        try await perform("spoiled") { client, logger in
            let rows = try await client.query(
                """
                SELECT uid, record_id, batch, host, reader, reason, spoiled_at FROM fleet_spoiled
                WHERE \(batch)::text IS NULL OR batch = \(batch) ORDER BY id DESC
                """, logger: logger)
            var cards: [FleetSpoiledCard] = []
            for try await (uid, record, name, host, reader, reason, at) in rows.decode(
                (String, Int64?, String, String?, String?, String, Date).self)
            {
                cards.append(
                    FleetSpoiledCard(
                        uid: uid, recordID: record, batch: name, host: host, reader: reader, reason: reason, at: at))
            }
            return cards
        }
    }
}
