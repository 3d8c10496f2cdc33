import Foundation

/// Identifies a job in the job log and on the control socket.
public typealias JobID = Int64

/// Where a job stands.
public enum JobState: String, Sendable, Hashable, Codable {
    /// Not finished yet.
    case running
    /// The flow completed.
    case succeeded
    /// The flow failed; the record's `error` says why.
    case failed
    /// Cancelled by a client or at shutdown.
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
    /// The job's number.
    public var id: JobID
    /// The id of the reader it ran on.
    public var reader: String
    /// The rule that chose it; nil for a requested job.
    public var rule: String?
    /// The flow's name.
    public var flow: String
    /// Why it ran.
    public var trigger: JobTrigger
    /// Where it stands.
    public var state: JobState
    /// The card's ATR in hex.
    public var cardATR: String?
    /// The card's UID in hex, when it has one.
    public var cardUID: String?
    /// When it started.
    public var startedAt: Date
    /// When it ended; nil while it runs.
    public var finishedAt: Date?
    /// The last step that completed.
    public var lastStep: String?
    /// What it reported, once finished.
    public var outcome: JobOutcome?
    /// Why it failed.
    public var error: String?

    /// A record with these fields (the job log reads them from its rows).
    ///
    /// - Parameters:
    ///   - id: the job's number.
    ///   - reader: the reader's id.
    ///   - rule: the rule that chose it.
    ///   - flow: the flow's name.
    ///   - trigger: why it ran.
    ///   - state: where it stands.
    ///   - cardATR: the card's ATR in hex.
    ///   - cardUID: the card's UID in hex.
    ///   - startedAt: when it started.
    ///   - finishedAt: when it ended.
    ///   - lastStep: the last step that completed.
    ///   - outcome: what it reported.
    ///   - error: why it failed.
    public init(
        id: JobID, reader: String, rule: String?, flow: String, trigger: JobTrigger, state: JobState,
        cardATR: String?, cardUID: String?, startedAt: Date, finishedAt: Date?, lastStep: String?,
        outcome: JobOutcome?, error: String?
    ) {
        self.id = id
        self.reader = reader
        self.rule = rule
        self.flow = flow
        self.trigger = trigger
        self.state = state
        self.cardATR = cardATR
        self.cardUID = cardUID
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.lastStep = lastStep
        self.outcome = outcome
        self.error = error
    }
}

/// One progress event of a job, as logged.
public struct JobEventRecord: Sendable, Hashable, Codable {
    /// The job it belongs to.
    public var jobID: JobID
    /// When it happened.
    public var at: Date
    /// The flow event's kind (`step`, `progress`, …).
    public var kind: String
    /// The flow event's words.
    public var detail: String

    /// A record with these fields.
    ///
    /// - Parameters:
    ///   - jobID: the job it belongs to.
    ///   - at: when it happened.
    ///   - kind: the flow event's kind.
    ///   - detail: the flow event's words.
    public init(jobID: JobID, at: Date, kind: String, detail: String) {
        self.jobID = jobID
        self.at = at
        self.kind = kind
        self.detail = detail
    }
}
