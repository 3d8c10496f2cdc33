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
    /// Counters: in a report a host sends, since its run (``session``) started; as the store
    /// lists hosts, the totals over all the host's runs.
    public var claims: Int
    public var completions: Int
    public var fencedWrites: Int
    public var leaseLosses: Int
    /// Completions in the host's outbox that the store has not taken yet.
    public var outboxDepth: Int
    public var startedAt: Date
    /// Identifies one run of the host (a fresh UUID each time the process starts): the store adds
    /// a finished run's counters to the host's totals when a new run reports under the same name.
    public var session: UUID?
    /// When the store last heard of the host (set by the store; ignored when reporting).
    public var lastSeen: Date?

    public init(
        name: String, version: String, batch: String?, readers: [String], runningJobs: Int, claims: Int,
        completions: Int, fencedWrites: Int, leaseLosses: Int, outboxDepth: Int, startedAt: Date,
        session: UUID? = nil, lastSeen: Date? = nil
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
        self.session = session
        self.lastSeen = lastSeen
    }
}
