/// Time limits of a reader-side card connection.
public struct VPCDTimeouts: Sendable, Hashable {
    /// How long an answer (ATR or response APDU) may take unless a call gives its own limit.
    /// Contactless cards behind a phone can take seconds for one APDU.
    public var answer: Duration
    /// How long the answer owed to a cancelled or timed-out exchange may still take before the
    /// next exchange; after that the connection is closed (``VPCDCardLossReason/lateAnswerMissing``),
    /// because a late answer could otherwise be taken for the next command's.
    public var lateAnswer: Duration

    public init(answer: Duration = .seconds(10), lateAnswer: Duration = .seconds(5)) {
        self.answer = answer
        self.lateAnswer = lateAnswer
    }
}
