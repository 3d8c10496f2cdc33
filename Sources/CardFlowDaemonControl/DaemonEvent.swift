/// Something the daemon reports on its event stream (control socket `events`) and its log.
public enum DaemonEvent: Sendable, Hashable {
    /// A reader is supervised now.
    case readerAdded(id: String, name: String)
    /// A reader went away (unplugged, or the daemon stops).
    case readerRemoved(id: String)
    /// A card is on the reader.
    case cardArrived(reader: String)
    /// The card left the reader.
    case cardLeft(reader: String)
    /// The reader's supervisor is done with the card that arrived: its job ended, or it ran
    /// none (no rule matched, or the card could not be identified).
    case cardHandled(reader: String, job: JobID?)
    /// A job started: the rule that chose it (nil for a requested job) and its flow.
    case jobStarted(JobID, reader: String, flow: String, rule: String?)
    /// A flow event of a running job, in the words of CardFlow's `FlowEvent`.
    case jobProgress(JobID, kind: String, detail: String, fraction: Double?)
    /// A job ended in `state`; `error` says why when it failed.
    case jobFinished(JobID, state: JobState, error: String?)

    /// The job the event belongs to, if any.
    public var jobID: JobID? {
        switch self {
        case .jobStarted(let id, _, _, _), .jobProgress(let id, _, _, _), .jobFinished(let id, _, _): id
        default: nil
        }
    }

    /// A JSON-ready dictionary: `{"event": "...", ...}`.
    public var fields: [String: JSONValue] {
        switch self {
        case .readerAdded(let id, let name): ["event": "readerAdded", "reader": .string(id), "name": .string(name)]
        case .readerRemoved(let id): ["event": "readerRemoved", "reader": .string(id)]
        case .cardArrived(let reader): ["event": "cardArrived", "reader": .string(reader)]
        case .cardLeft(let reader): ["event": "cardLeft", "reader": .string(reader)]
        case .cardHandled(let reader, let job):
            ["event": "cardHandled", "reader": .string(reader), "job": job.map { .number(Double($0)) } ?? .null]
        case .jobStarted(let id, let reader, let flow, let rule):
            [
                "event": "jobStarted", "job": .number(Double(id)), "reader": .string(reader), "flow": .string(flow),
                "rule": rule.map(JSONValue.string) ?? .null,
            ]
        case .jobProgress(let id, let kind, let detail, let fraction):
            [
                "event": "jobProgress", "job": .number(Double(id)), "kind": .string(kind), "detail": .string(detail),
                "fraction": fraction.map(JSONValue.number) ?? .null,
            ]
        case .jobFinished(let id, let state, let error):
            [
                "event": "jobFinished", "job": .number(Double(id)), "state": .string(state.rawValue),
                "error": error.map(JSONValue.string) ?? .null,
            ]
        }
    }
}
