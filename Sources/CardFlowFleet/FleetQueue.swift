import Foundation

/// Where a cardd host claims personalisation records and reports how they ended: the fleet's
/// shared store as the daemon sees it. `CardFlowFleetPostgres.FleetStore` is the PostgreSQL one.
///
/// Every write after ``claim(batch:host:reader:uid:lease:)`` presents the claim's token; the
/// store refuses it when the token no longer matches (fencing).
public protocol FleetQueue: Sendable {
    /// Keeps the store's connections; runs until the calling task is cancelled.
    func run() async
    /// Makes the store usable (creates missing tables).
    func migrate() async throws(FleetStoreError)
    /// Claims a record for the blank card `uid` and binds the card to it.
    func claim(
        batch: String, host: String, reader: String, uid: [UInt8], lease: Duration
    ) async throws(FleetStoreError) -> FleetClaimResult
    /// Says that the first step of a claim that replaced an earlier one begins (its card may be
    /// written from now on) and extends its lease; false when the claim was lost.
    func beginWriting(_ claim: FleetClaim, lease: Duration) async throws(FleetStoreError) -> Bool
    /// Extends a held claim's lease; false when the claim was lost.
    func extendLease(_ claim: FleetClaim, by lease: Duration) async throws(FleetStoreError) -> Bool
    /// Records how a claim ended; idempotent for the same token and state.
    func complete(
        recordID: Int64, token: UUID, state: FleetCompletionState, result: [UInt8]?, error: String?
    ) async throws(FleetStoreError) -> FleetCompletionOutcome
    /// Records how several claims ended, each fenced by its own token as with
    /// ``complete(recordID:token:state:result:error:)``; the outcomes come in the same order.
    /// A store that can does it in one round trip; all of them or, on an error, none.
    func complete(_ completions: [FleetCompletion]) async throws(FleetStoreError) -> [FleetCompletionOutcome]
    /// Gives back a claim nothing was written for.
    func release(_ claim: FleetClaim) async throws(FleetStoreError) -> Bool
    /// Records the host's heartbeat.
    func report(_ host: FleetHostReport) async throws(FleetStoreError)
    /// Yields when records of `batch` may have become claimable.
    func wakeUps(batch: String, retryInterval: Duration) -> AsyncStream<Void>
}

extension FleetQueue {
    /// One ``complete(recordID:token:state:result:error:)`` after the other, for stores without a
    /// batch form (not atomic: an error leaves the earlier ones recorded, which completing again
    /// answers as already applied).
    public func complete(_ completions: [FleetCompletion]) async throws(FleetStoreError) -> [FleetCompletionOutcome] {
        var outcomes: [FleetCompletionOutcome] = []
        outcomes.reserveCapacity(completions.count)
        for completion in completions {
            outcomes.append(
                try await complete(
                    recordID: completion.recordID, token: completion.token, state: completion.state,
                    result: completion.result, error: completion.error))
        }
        return outcomes
    }
}
