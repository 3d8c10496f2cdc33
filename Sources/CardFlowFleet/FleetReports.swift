import Foundation

/// A batch's records by state, and who handled them (`cardctl fleet status`).
public struct FleetBatchStatus: Sendable, Hashable, Codable {
    public var batch: String
    public var maximumAttempts: Int
    public var pending: Int
    /// Claimed records whose lease is still running.
    public var claimed: Int
    /// Claimed records whose lease ran out: their host died or lost the store; the next claim takes them.
    public var expired: Int
    public var done: Int
    public var failed: Int
    public var void: Int
    /// Cards on the spoilage list for this batch.
    public var spoiled: Int
    public var hosts: [FleetHostCounts]
    /// The recent window the hosts' rates cover, in seconds.
    public var rateWindowSeconds: Double = 60

    public var total: Int { pending + claimed + expired + done + failed + void }

    public init(batch: String, maximumAttempts: Int) {
        self.batch = batch
        self.maximumAttempts = maximumAttempts
        pending = 0
        claimed = 0
        expired = 0
        done = 0
        failed = 0
        void = 0
        spoiled = 0
        hosts = []
    }
}

/// One host's share of a batch.
public struct FleetHostCounts: Sendable, Hashable, Codable {
    public var host: String
    public var claimed: Int
    public var done: Int
    public var failed: Int
    /// Records the host finished (done or failed) within the status's rate window.
    public var recentlyFinished = 0
    /// ``recentlyFinished`` per minute of the window.
    public var recordsPerMinute: Double = 0

    public init(host: String, claimed: Int = 0, done: Int = 0, failed: Int = 0) {
        self.host = host
        self.claimed = claimed
        self.done = done
        self.failed = failed
    }
}

/// One record as `cardctl fleet records` shows it.
public struct FleetRecordRow: Sendable, Hashable, Codable {
    public var id: Int64
    public var reference: String
    public var state: FleetRecordState
    public var attempts: Int
    public var host: String?
    public var reader: String?
    /// The bound card's UID (hex).
    public var uid: String?
    public var leaseUntil: Date?
    /// The flow parameters (a JSON object, as text).
    public var parameters: String
    /// What the host reported for a done record (a JSON object, as text).
    public var result: String?
    public var error: String?
    public var updatedAt: Date

    public init(
        id: Int64, reference: String, state: FleetRecordState, attempts: Int, host: String?, reader: String?,
        uid: String?, leaseUntil: Date?, parameters: String, result: String?, error: String?, updatedAt: Date
    ) {
        self.id = id
        self.reference = reference
        self.state = state
        self.attempts = attempts
        self.host = host
        self.reader = reader
        self.uid = uid
        self.leaseUntil = leaseUntil
        self.parameters = parameters
        self.result = result
        self.error = error
        self.updatedAt = updatedAt
    }
}

/// A card a host bound and may have half-written before it lost its claim.
public struct FleetSpoiledCard: Sendable, Hashable, Codable {
    public var uid: String
    public var recordID: Int64?
    public var batch: String
    public var host: String?
    public var reader: String?
    public var reason: String
    public var at: Date

    public init(
        uid: String, recordID: Int64?, batch: String, host: String?, reader: String?, reason: String, at: Date
    ) {
        self.uid = uid
        self.recordID = recordID
        self.batch = batch
        self.host = host
        self.reader = reader
        self.reason = reason
        self.at = at
    }
}

/// What an import did.
public struct FleetImportSummary: Sendable, Hashable, Codable {
    public var batch: String
    /// Records added.
    public var imported: Int
    /// Records whose reference the batch already had (left as they are: importing a file twice is harmless).
    public var skipped: Int

    public init(batch: String, imported: Int, skipped: Int) {
        self.batch = batch
        self.imported = imported
        self.skipped = skipped
    }
}
