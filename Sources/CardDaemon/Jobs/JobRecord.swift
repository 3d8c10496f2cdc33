import Foundation

/// Identifies a job in the job log and on the control socket.
public typealias JobID = Int64

/// Where a job stands.
public enum JobState: String, Sendable, Hashable, Codable {
    case running
    case succeeded
    case failed
    case cancelled
    /// The daemon stopped (crash, SIGKILL, power loss) while the job ran; `lastStep` tells how far it got.
    case interrupted
}

/// Why a job ran.
public enum JobTrigger: String, Sendable, Hashable, Codable {
    /// A card arrived and a configured rule matched it.
    case card
    /// A control-socket client submitted it.
    case request
}

/// One job as the job log keeps it.
public struct JobRecord: Sendable, Hashable, Codable {
    public var id: JobID
    public var reader: String
    public var rule: String?
    public var flow: String
    public var trigger: JobTrigger
    public var state: JobState
    public var cardATR: String?
    public var cardUID: String?
    public var startedAt: Date
    public var finishedAt: Date?
    /// The last step that completed.
    public var lastStep: String?
    public var outcome: JobOutcome?
    public var error: String?
}

/// One progress event of a job, as logged.
public struct JobEventRecord: Sendable, Hashable, Codable {
    public var jobID: JobID
    public var at: Date
    public var kind: String
    public var detail: String
}
