import CardFlowFleet
import CardFlowHex
import Foundation
import Logging
import PostgresNIO

extension FleetStore {
    /// Claims the next record of `batch` for the card `uid` on `reader` and binds the card to it,
    /// in one round trip: the `fleet_claim` function (installed by the schema) does it in one transaction,
    /// called through a statement prepared once per connection.
    ///
    /// Only a blank card gets a record: a card already bound to a claimed or done record, or on
    /// the spoilage list, is answered as such. The claimable records are `pending` ones and
    /// `claimed` ones whose lease ran out (`FOR UPDATE SKIP LOCKED`, so hosts never wait for each
    /// other); the card a dead host had bound to a re-claimed record goes on the spoilage list,
    /// and its claim is kept as the record's previous one: its completion, should it still
    /// arrive, wins as long as the new claim has not begun writing (``beginWriting(_:lease:)``,
    /// ``complete(recordID:token:state:result:error:)``).
    /// Records whose lease ran out on their last allowed attempt become `failed` (at most
    /// 16 per claim, found through an index of claimed rows by lease end).
    public func claim(
        batch: String, host: String, reader: String, uid: [UInt8], lease: Duration
    ) async throws(FleetStoreError) -> FleetClaimResult {
        let uidText = HexFormat.string(uid)
        let leaseSeconds = Self.seconds(lease)
        let sweep = Self.exhaustedClaimsPerSweep
        let answer: FleetClaimResult?
        do {
            answer = try await perform("claim") { client, logger -> FleetClaimResult? in
                let rows = try await client.execute(
                    FleetClaimStatement(
                        batch: batch, host: host, reader: reader, uid: uidText, leaseSeconds: leaseSeconds,
                        sweep: Int32(sweep)),
                    logger: logger)
                for try await (outcome, id, reference, parameters, token, attempt, replaces, state) in rows {
                    switch outcome {
                    case "claimed":
                        guard let id, let reference, let parameters, let token, let attempt else { break }
                        return .claimed(
                            FleetClaim(
                                recordID: id, batch: batch, reference: reference, parameters: Array(parameters.utf8),
                                token: token, attempt: attempt, uid: uid, replacesEarlierClaim: replaces ?? false))
                    case "bound":
                        guard let id else { break }
                        return .cardAlreadyBound(
                            recordID: id, reference: reference ?? "",
                            state: state.flatMap(FleetRecordState.init(rawValue:)) ?? .claimed)
                    case "spoiled": return .cardSpoiled(recordID: id)
                    case "nothing-pending": return .nothingPending
                    case "unknown-batch": return nil
                    default: break
                    }
                    throw FleetStoreError.corruptRow(operation: "claim", reason: "fleet_claim answered '\(outcome)'")
                }
                return .nothingPending
            }
        } catch .server(_, let state, _) where state == Self.uniqueViolation {
            // Another host bound this UID between the check and the update (the same card
            // seen twice); the transaction rolled back, so ask again what it is bound to.
            let bound = try await perform("claim") { client, logger in
                try await client.withConnection { try await Self.recordBound(to: uidText, $0, logger) }
            }
            return bound ?? .nothingPending
        }
        guard let answer else { throw .unknownBatch(batch) }
        return answer
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
            // One round trip: `fleet_complete` (``FleetSchema``) tries the claim's token, then the
            // earlier claim's, then tells an already applied completion from a fenced one.
            let rows = try await client.execute(
                FleetCompleteStatement(
                    recordID: recordID, token: token, state: state.rawValue, result: resultText, error: errorText),
                logger: logger)
            for try await outcome in rows {
                guard let known = FleetCompletionOutcome(storeAnswer: outcome) else {
                    throw FleetStoreError.corruptRow(
                        operation: "complete", reason: "fleet_complete answered '\(outcome)'")
                }
                return known
            }
            return .fenced
        }
    }

    /// Records how several claims ended in one round trip (`fleet_complete_many`: each one as
    /// ``complete(recordID:token:state:result:error:)`` would, in one transaction, so on an error
    /// none is recorded). The outcomes come in the order of `completions`.
    public func complete(_ completions: [FleetCompletion]) async throws(FleetStoreError) -> [FleetCompletionOutcome] {
        guard completions.count > 1 else {
            guard let only = completions.first else { return [] }
            return [
                try await complete(
                    recordID: only.recordID, token: only.token, state: only.state, result: only.result,
                    error: only.error)
            ]
        }
        let entries = completions.map { completion in
            FleetCompleteManyStatement.Entry(
                id: completion.recordID, token: completion.token, state: completion.state.rawValue,
                result: completion.result.map { String(decoding: $0, as: UTF8.self) },
                error: completion.error.map { String($0.prefix(2000)) })
        }
        return try await perform("complete") { client, logger in
            let rows = try await client.execute(try FleetCompleteManyStatement(entries), logger: logger)
            var outcomes = [FleetCompletionOutcome?](repeating: nil, count: entries.count)
            for try await (item, outcome) in rows {
                guard outcomes.indices.contains(item), let known = FleetCompletionOutcome(storeAnswer: outcome) else {
                    throw FleetStoreError.corruptRow(
                        operation: "complete", reason: "fleet_complete_many answered '\(outcome)' for item \(item)")
                }
                outcomes[item] = known
            }
            return try outcomes.enumerated().map { index, outcome in
                guard let outcome else {
                    throw FleetStoreError.corruptRow(
                        operation: "complete", reason: "fleet_complete_many did not answer item \(index)")
                }
                return outcome
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

extension FleetCompletionOutcome {
    /// The outcome `fleet_complete` answers as text.
    init?(storeAnswer: String) {
        switch storeAnswer {
        case "applied": self = .applied
        case "already-applied": self = .alreadyApplied
        case "fenced": self = .fenced
        default: return nil
        }
    }
}
