import CardFlowFleet
import CardFlowFleetPostgres
import Foundation

/// What a host asked of the store, counted call by call (the statements the store was sent).
actor QueueCalls {
    private(set) var claims = 0
    private(set) var completions = 0
    private(set) var releases = 0
    private(set) var writesBegun = 0
    private(set) var reports = 0
    private(set) var completionsPerRecord: [Int64: Int] = [:]

    func claimed() -> Int {
        claims += 1
        return claims
    }

    func completing(_ recordID: Int64) {
        completions += 1
        completionsPerRecord[recordID, default: 0] += 1
    }

    func released() { releases += 1 }

    /// Calls that sent more than one completion, and how many each sent.
    private(set) var completionBatches: [Int] = []

    func completedTogether(_ count: Int) { completionBatches.append(count) }

    func beganWriting() { writesBegun += 1 }

    func reported() { reports += 1 }
}

/// A fleet store that counts every call, and can hold the answer to a claim back until
/// `claimReply` returns (a database that answers late).
struct RecordingQueue: FleetQueue {
    let store: FleetStore
    let calls: QueueCalls
    /// Runs after the store took claim number N (1-based) and before the host sees the answer.
    var claimReply: @Sendable (_ number: Int, _ result: FleetClaimResult) async -> Void = { _, _ in }
    /// Runs before the store is told that a claim's first step begins.
    var beforeWriting: @Sendable () async -> Void = {}

    func run() async { await store.run() }
    func migrate() async throws(FleetStoreError) { try await store.migrate() }
    func claim(
        batch: String, host: String, reader: String, uid: [UInt8], lease: Duration
    ) async throws(FleetStoreError) -> FleetClaimResult {
        let result = try await store.claim(batch: batch, host: host, reader: reader, uid: uid, lease: lease)
        let number = await calls.claimed()
        await claimReply(number, result)
        return result
    }
    func extendLease(_ claim: FleetClaim, by lease: Duration) async throws(FleetStoreError) -> Bool {
        try await store.extendLease(claim, by: lease)
    }
    func beginWriting(_ claim: FleetClaim, lease: Duration) async throws(FleetStoreError) -> Bool {
        await beforeWriting()
        await calls.beganWriting()
        return try await store.beginWriting(claim, lease: lease)
    }
    func complete(
        recordID: Int64, token: UUID, state: FleetCompletionState, result: [UInt8]?, error: String?
    ) async throws(FleetStoreError) -> FleetCompletionOutcome {
        await calls.completing(recordID)
        return try await store.complete(recordID: recordID, token: token, state: state, result: result, error: error)
    }
    func complete(_ completions: [FleetCompletion]) async throws(FleetStoreError) -> [FleetCompletionOutcome] {
        for completion in completions { await calls.completing(completion.recordID) }
        if completions.count > 1 { await calls.completedTogether(completions.count) }
        return try await store.complete(completions)
    }
    func release(_ claim: FleetClaim) async throws(FleetStoreError) -> Bool {
        await calls.released()
        return try await store.release(claim)
    }
    func report(_ host: FleetHostReport) async throws(FleetStoreError) {
        await calls.reported()
        try await store.report(host)
    }
    func wakeUps(batch: String, retryInterval: Duration) -> AsyncStream<Void> {
        store.wakeUps(batch: batch, retryInterval: retryInterval)
    }
}
