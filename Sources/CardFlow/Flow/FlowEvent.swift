/// What a running flow reports on ``FlowRun/progress``.
public enum FlowEvent: Sendable, Hashable, CustomStringConvertible {
    /// No card (yet, or again): put one on the reader.
    case waitingForCard
    /// A session is open on this card.
    case connected(CardIdentity)
    case stepStarted(index: Int, total: Int, name: String)
    case stepFinished(index: Int, total: Int, name: String)
    /// The step failed for a reason other than card loss and is tried again.
    case retrying(index: Int, attempt: Int, reason: String)
    /// The card left during the step.
    case cardLost(index: Int)
    /// Another card came; the flow keeps waiting for its own card and does not touch this one.
    case wrongCard(CardIdentity)
    /// The flow's card is back and the step is resumed.
    case resumed(index: Int)
    /// Progress within the current step (0...1), as reported by the step.
    case progress(Double)
    case completed
    case failed(String)

    public var description: String {
        switch self {
        case .waitingForCard: "waiting for card"
        case .connected(let identity): "connected to \(identity)"
        case .stepStarted(let index, let total, let name): "step \(index + 1)/\(total) \(name) started"
        case .stepFinished(let index, let total, let name): "step \(index + 1)/\(total) \(name) finished"
        case .retrying(let index, let attempt, let reason): "step \(index + 1) retry \(attempt): \(reason)"
        case .cardLost(let index): "card lost during step \(index + 1)"
        case .wrongCard(let identity): "wrong card (\(identity)); waiting for the flow's card"
        case .resumed(let index): "card back; resuming step \(index + 1)"
        case .progress(let fraction): "progress \(Int((fraction * 100).rounded()))%"
        case .completed: "completed"
        case .failed(let reason): "failed: \(reason)"
        }
    }
}

/// Where a running flow's events go (an AsyncStream continuation; yielding is thread-safe).
struct FlowEventSink: Sendable {
    let continuation: AsyncStream<FlowEvent>.Continuation
    func emit(_ event: FlowEvent) { continuation.yield(event) }
}
