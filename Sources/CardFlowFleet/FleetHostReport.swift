import Foundation

/// What a host tells the fleet about itself at every heartbeat (the `fleet_hosts` table).
public struct FleetHostReport: Sendable, Hashable, Codable {
    public var name: String
    /// The CardFlow version the host runs.
    public var version: String
    public var batch: String?
    /// Reader identifiers the host supervises.
    public var readers: [String]
    public var runningJobs: Int
    /// Counters since the host started.
    public var claims: Int
    public var completions: Int
    public var fencedWrites: Int
    public var leaseLosses: Int
    /// Completions in the host's outbox that the store has not taken yet.
    public var outboxDepth: Int
    public var startedAt: Date
    /// When the store last heard of the host (set by the store; ignored when reporting).
    public var lastSeen: Date?

    public init(
        name: String, version: String, batch: String?, readers: [String], runningJobs: Int, claims: Int,
        completions: Int, fencedWrites: Int, leaseLosses: Int, outboxDepth: Int, startedAt: Date,
        lastSeen: Date? = nil
    ) {
        self.name = name
        self.version = version
        self.batch = batch
        self.readers = readers
        self.runningJobs = runningJobs
        self.claims = claims
        self.completions = completions
        self.fencedWrites = fencedWrites
        self.leaseLosses = leaseLosses
        self.outboxDepth = outboxDepth
        self.startedAt = startedAt
        self.lastSeen = lastSeen
    }
}
