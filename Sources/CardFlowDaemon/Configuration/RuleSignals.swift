import CardFlow
import CardFlowDaemonControl

/// The reader signals a rule gives when its job ends: `success` when the flow completed,
/// `failure` when it failed (nothing for a cancelled or interrupted job). A reader whose backend
/// has no signal gets none, and the daemon logs why once per job; the job's outcome is unchanged.
///
/// ```json
/// "signals": { "success": { "light": "green", "beep": "short" }, "failure": { "light": "red", "beep": "long" } }
/// ```
public struct RuleSignals: Sendable, Hashable, Codable {
    /// After a succeeded job.
    public var success: ReaderSignal?
    /// After a failed job.
    public var failure: ReaderSignal?

    public init(success: ReaderSignal? = nil, failure: ReaderSignal? = nil) {
        self.success = success
        self.failure = failure
    }

    /// The signal for a job that ended in `state`, if the rule asks for one.
    public func signal(after state: JobState) -> ReaderSignal? {
        switch state {
        case .succeeded: success
        case .failed: failure
        case .running, .cancelled, .interrupted: nil
        }
    }
}
