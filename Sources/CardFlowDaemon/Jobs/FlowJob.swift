import CardFlow
import CardFlowDaemonControl

/// A flow ready to run, with what it needs of the session policy (e.g. DESFire's identity by
/// GetCardUID) and what must happen once it ended (a relay closes its connection).
public struct FlowJob: Sendable {
    public var flow: Flow<JobOutcome>
    public var policy: @Sendable (SessionPolicy) -> SessionPolicy
    /// Called once when the flow ended, with its error (nil when it succeeded).
    public var finish: @Sendable ((any Error)?) async -> Void

    public init(
        flow: Flow<JobOutcome>, policy: @escaping @Sendable (SessionPolicy) -> SessionPolicy = { $0 },
        finish: @escaping @Sendable ((any Error)?) async -> Void = { _ in }
    ) {
        self.flow = flow
        self.policy = policy
        self.finish = finish
    }
}
