import CardFlowFleet
import CardFlowHex
import Foundation
import Logging
import PostgresNIO

extension FleetStore {
    /// Claims the next record of `batch` for the card `uid` on `reader` and binds the card to it,
    /// in one transaction.
    ///
    /// Only a blank card gets a record: a card already bound to a claimed or done record, or on
    /// the spoilage list, is answered as such. The claimable records are `pending` ones and
    /// `claimed` ones whose lease ran out (`FOR UPDATE SKIP LOCKED`, so hosts never wait for each
    /// other); the card a dead host had bound to a re-claimed record goes on the spoilage list,
    /// and its claim is kept as the record's previous one: its completion, should it still
    /// arrive, wins as long as the new claim has not begun writing (``beginWriting(_:lease:)``,
    /// ``complete(recordID:token:state:result:error:)``).
    /// Records whose lease ran out on their last allowed attempt become `failed`.
    public func claim(
        batch: String, host: String, reader: String, uid: [UInt8], lease: Duration
    ) async throws(FleetStoreError) -> FleetClaimResult {
        let uidText = HexFormat.string(uid)
        let leaseSeconds = Self.seconds(lease)
        do {
            return try await perform("claim") { client, logger in
                try await client.withTransaction(logger: logger) { connection -> FleetClaimResult in
                    let batches = try await connection.query(
                        "SELECT max_attempts FROM fleet_batches WHERE name = \(batch)", logger: logger)
                    var maximumAttempts: Int?
                    for try await value in batches.decode(Int.self) { maximumAttempts = value }
                    guard let maximumAttempts else { throw FleetStoreError.unknownBatch(batch) }
                    try await Self.failExhaustedClaims(
                        batch: batch, maximumAttempts: maximumAttempts, connection, logger)
                    if let bound = try await Self.recordBound(to: uidText, connection, logger) { return bound }
                    let spoiled = try await connection.query(
                        "SELECT record_id FROM fleet_spoiled WHERE uid = \(uidText) LIMIT 1", logger: logger)
                    for try await recordID in spoiled.decode(Int64?.self) { return .cardSpoiled(recordID: recordID) }
                    let claimed = try await connection.query(
                        """
                        WITH candidate AS (
                            SELECT id, uid AS previous_uid, claimed_by AS previous_host,
                                   reader AS previous_reader, claim_token AS previous_token
                            FROM fleet_records
                            WHERE batch = \(batch) AND attempts < \(maximumAttempts)
                              AND (state = 'pending' OR (state = 'claimed' AND lease_until < now()))
                            ORDER BY id
                            FOR UPDATE SKIP LOCKED
                            LIMIT 1
                        ), spoil AS (
                            INSERT INTO fleet_spoiled (uid, record_id, batch, host, reader, claim_token, reason)
                            SELECT previous_uid, id, \(batch), previous_host, previous_reader, previous_token,
                                   'lease expired; record claimed again'
                            FROM candidate WHERE previous_uid IS NOT NULL
                        )
                        UPDATE fleet_records r
                        SET state = 'claimed', attempts = r.attempts + 1, claim_token = gen_random_uuid(),
                            claimed_by = \(host), reader = \(reader),
                            lease_until = now() + make_interval(secs => \(leaseSeconds)),
                            uid = \(uidText), result = NULL, error = NULL, updated_at = now(), writing = false,
                            previous_token = c.previous_token, previous_uid = c.previous_uid,
                            previous_host = c.previous_host, previous_reader = c.previous_reader
                        FROM candidate c
                        WHERE r.id = c.id
                        RETURNING r.id, r.ref, r.params::text, r.claim_token, r.attempts, r.previous_token IS NOT NULL
                        """, logger: logger)
                    for try await (id, reference, parameters, token, attempt, replaces) in claimed.decode(
                        (Int64, String, String, UUID, Int, Bool).self)
                    {
                        return .claimed(
                            FleetClaim(
                                recordID: id, batch: batch, reference: reference, parameters: Array(parameters.utf8),
                                token: token, attempt: attempt, uid: uid, replacesEarlierClaim: replaces))
                    }
                    return .nothingPending
                }
            }
        } catch .server(_, let state, _) where state == Self.uniqueViolation {
            // Another host bound this UID between the check and the update (the same card
            // seen twice); the transaction rolled back, so ask again what it is bound to.
            let bound = try await perform("claim") { client, logger in
                try await client.withConnection { try await Self.recordBound(to: uidText, $0, logger) }
            }
            return bound ?? .nothingPending
        }
    }

    private static func recordBound(
        to uid: String, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> FleetClaimResult? {
        let rows = try await connection.query(
            "SELECT id, ref, state FROM fleet_records WHERE uid = \(uid) AND state IN ('claimed', 'done') LIMIT 1",
            logger: logger)
        for try await (id, reference, state) in rows.decode((Int64, String, String).self) {
            return .cardAlreadyBound(
                recordID: id, reference: reference, state: FleetRecordState(rawValue: state) ?? .claimed)
        }
        return nil
    }

    /// Expired claims fail for good on their last allowed attempt. Bounded and served by the
    /// `fleet_records_expiring` index (claimed rows by lease end), so a claim costs the same in a
    /// batch of ten records or a million; a backlog clears over the following claims.
    private static func failExhaustedClaims(
        batch: String, maximumAttempts: Int, _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        try await connection.query(
            """
            WITH exhausted AS (
                UPDATE fleet_records
                SET state = 'failed', lease_until = NULL, updated_at = now(), completed_at = now(),
                    error = 'lease expired on attempt ' || attempts || ' of ' || \(maximumAttempts)
                            || ' (host ' || coalesce(claimed_by, '?') || ')'
                WHERE id IN (
                    SELECT id FROM fleet_records
                    WHERE batch = \(batch) AND state = 'claimed' AND lease_until < now()
                      AND attempts >= \(maximumAttempts)
                    ORDER BY lease_until
                    LIMIT \(exhaustedClaimsPerSweep)
                    FOR UPDATE SKIP LOCKED
                )
                RETURNING id, uid, batch, claimed_by, reader, claim_token
            )
            INSERT INTO fleet_spoiled (uid, record_id, batch, host, reader, claim_token, reason)
            SELECT uid, id, batch, claimed_by, reader, claim_token, 'lease expired on the last attempt'
            FROM exhausted WHERE uid IS NOT NULL
            """, logger: logger)
    }

    /// Expired last attempts one claim fails at most: more than claims can expire between two
    /// claims in practice.
    static let exhaustedClaimsPerSweep = 16

    /// Extends the lease of a claim the caller still holds; false when the token no longer
    /// matches (the record was claimed again, retried or voided): the caller lost it.
    public func extendLease(_ claim: FleetClaim, by lease: Duration) async throws(FleetStoreError) -> Bool {
        let seconds = Self.seconds(lease)
        return try await perform("extend lease") { client, logger in
            let rows = try await client.query(
                """
                UPDATE fleet_records SET lease_until = now() + make_interval(secs => \(seconds)), updated_at = now()
                WHERE id = \(claim.recordID) AND claim_token = \(claim.token) AND state = 'claimed'
                RETURNING id
                """, logger: logger)
            for try await _ in rows.decode(Int64.self) { return true }
            return false
        }
    }

    /// Tells the store that the claim's first step begins, so its card may be written from now
    /// on, and extends the lease. False when the token no longer matches: the record was claimed
    /// again, or taken back by the completion of the claim before (the card must stay untouched).
    public func beginWriting(_ claim: FleetClaim, lease: Duration) async throws(FleetStoreError) -> Bool {
        let seconds = Self.seconds(lease)
        return try await perform("begin writing") { client, logger in
            let rows = try await client.query(
                """
                UPDATE fleet_records
                SET writing = true, lease_until = now() + make_interval(secs => \(seconds)), updated_at = now()
                WHERE id = \(claim.recordID) AND claim_token = \(claim.token) AND state = 'claimed'
                RETURNING id
                """, logger: logger)
            for try await _ in rows.decode(Int64.self) { return true }
            return false
        }
    }

    /// Records how a claim ended, fenced by its token. Safe to repeat: a completion the store
    /// already took is answered ``/CardFlowFleet/FleetCompletionOutcome/alreadyApplied``.
    ///
    /// A `done` completion of the claim a re-claim took the record from (its holder wrote the
    /// card but could not say so in time) is applied while the new claim has not begun writing:
    /// the record is done with that claim's card, which leaves the spoilage list, and the new
    /// claim is fenced before it touches its card. Once the new claim writes, it is fenced.
    ///
    /// - Parameters:
    ///   - recordID: the claimed record.
    ///   - token: the claim's fencing token.
    ///   - state: done or failed.
    ///   - result: a JSON object (UTF-8) with what the card got, or nil.
    ///   - error: why the flow failed, or nil.
    public func complete(
        recordID: Int64, token: UUID, state: FleetCompletionState, result: [UInt8]?, error: String?
    ) async throws(FleetStoreError) -> FleetCompletionOutcome {
        let resultText = result.map { String(decoding: $0, as: UTF8.self) }
        let errorText = error.map { String($0.prefix(2000)) }
        return try await perform("complete") { client, logger in
            try await client.withTransaction(logger: logger) { connection -> FleetCompletionOutcome in
                let updated = try await connection.query(
                    """
                    UPDATE fleet_records
                    SET state = \(state.rawValue), result = \(resultText)::jsonb, error = \(errorText),
                        lease_until = NULL, completed_at = now(), updated_at = now()
                    WHERE id = \(recordID) AND claim_token = \(token) AND state = 'claimed'
                    RETURNING id
                    """, logger: logger)
                for try await _ in updated.decode(Int64.self) { return .applied }
                if state == .done {
                    let taken = try await connection.query(
                        """
                        WITH won AS (
                            UPDATE fleet_records
                            SET state = 'done', claim_token = previous_token, uid = previous_uid,
                                claimed_by = previous_host, reader = previous_reader, writing = true,
                                result = \(resultText)::jsonb, error = NULL, lease_until = NULL,
                                completed_at = now(), updated_at = now(), previous_token = NULL,
                                previous_uid = NULL, previous_host = NULL, previous_reader = NULL
                            WHERE id = \(recordID) AND previous_token = \(token) AND state = 'claimed'
                              AND NOT writing
                            RETURNING id
                        ), unspoiled AS (
                            DELETE FROM fleet_spoiled
                            WHERE record_id IN (SELECT id FROM won) AND claim_token = \(token)
                        )
                        SELECT id FROM won
                        """, logger: logger)
                    for try await _ in taken.decode(Int64.self) { return .applied }
                }
                let current = try await connection.query(
                    "SELECT state, claim_token FROM fleet_records WHERE id = \(recordID)", logger: logger)
                for try await (currentState, currentToken) in current.decode((String, UUID?).self) {
                    if currentToken == token, currentState == state.rawValue { return .alreadyApplied }
                }
                return .fenced
            }
        }
    }

    /// Gives a claim back untouched (the card left before anything was written): the record is
    /// pending again and the attempt does not count. False when the claim was no longer held.
    public func release(_ claim: FleetClaim) async throws(FleetStoreError) -> Bool {
        try await perform("release") { client, logger in
            let rows = try await client.query(
                """
                UPDATE fleet_records
                SET state = 'pending', attempts = greatest(attempts - 1, 0), claim_token = NULL, claimed_by = NULL,
                    reader = NULL, lease_until = NULL, uid = NULL, updated_at = now()
                WHERE id = \(claim.recordID) AND claim_token = \(claim.token) AND state = 'claimed'
                RETURNING id
                """, logger: logger)
            for try await _ in rows.decode(Int64.self) { return true }
            return false
        }
    }
}
