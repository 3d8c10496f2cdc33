/// Errors of readers, sessions and flows. Card errors (status words) and driver errors keep
/// their own types and reach the caller unchanged, or wrapped in ``FlowError`` with the step.
public enum SessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No card arrived within the connect timeout.
    case noCard(waited: Duration)
    /// A card is on the reader but could not be activated: usually several cards in the field at
    /// once (the reader cannot single one out), else a card the reader cannot talk to.
    case cardNotActivated
    /// The card left and did not come back within the card-return timeout.
    case cardDidNotReturn(waited: Duration)
    /// A step or APDU exceeded its time bound.
    case timedOut(what: String, after: Duration)
    /// The session was closed; no more APDUs.
    case sessionClosed
    /// The card was lifted during a step that is not idempotent and offers no verification, so
    /// it cannot be known whether the step took effect.
    case unverifiableStepInterrupted(step: Int, name: String)

    public var description: String {
        switch self {
        case .noCard(let waited): "no card on the reader after waiting \(Self.seconds(waited))"
        case .cardNotActivated:
            "a card is on the reader but could not be activated: present one card at a time (several cards in the field?)"
        case .cardDidNotReturn(let waited): "the card left and did not come back within \(Self.seconds(waited))"
        case .timedOut(let what, let after): "\(what) timed out after \(after)"
        case .sessionClosed: "the card session is closed"
        case .unverifiableStepInterrupted(let step, let name):
            "the card left during step \(step + 1) (\(name)), which is not idempotent and cannot be verified; not retried"
        }
    }

    /// A wait as people read it: rounded to the millisecond, `30 seconds`, `0.3 seconds`.
    static func seconds(_ duration: Duration) -> String {
        let (whole, attoseconds) = duration.components
        let milliseconds = whole * 1000 + (attoseconds + 500_000_000_000_000) / 1_000_000_000_000_000
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) seconds" }
        return "\(Double(milliseconds) / 1000) seconds"
    }
}

/// A flow step failed; carries the step and the underlying error.
public struct FlowError: Error, Sendable, CustomStringConvertible {
    public let stepIndex: Int
    public let stepName: String
    public let underlying: any Error

    public var description: String { "step \(stepIndex + 1) (\(stepName)) failed: \(underlying)" }
}
