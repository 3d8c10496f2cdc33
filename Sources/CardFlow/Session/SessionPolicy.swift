/// How a ``Reader`` runs sessions and flows: pauses, bounds and recovery.
///
/// ```swift
/// var policy = SessionPolicy()
/// policy.cooldown = .milliseconds(500)      // the seed library slept 5 s; make it a policy
/// policy.reconnectBetweenSteps = true
/// policy.retries = RetryPolicy(attempts: 2, backoff: .milliseconds(200))
/// ```
public struct SessionPolicy: Sendable {
    /// Minimum pause between the end of one session on a reader and the start of the next.
    public var cooldown: Duration = .zero
    /// Power-cycle the card and replay the registered restorations between flow steps.
    public var reconnectBetweenSteps = false
    /// How long ``Reader/connect(policy:)`` waits for a card.
    public var connectTimeout: Duration = .seconds(30)
    /// Bound on one APDU exchange (nil: the driver's own bounds apply, its read timeouts and its
    /// `CCIDDriverConfiguration.exchangeTimeLimit`, five minutes by default, which holds even
    /// against endless time extensions).
    public var apduTimeout: Duration? = nil
    /// Bound on one flow step, retries included (nil: unbounded).
    public var stepTimeout: Duration? = nil
    /// How long a flow waits for the same card to come back after it left mid-flow; zero turns
    /// recovery off (the card-loss error ends the flow).
    public var cardReturnTimeout: Duration = .seconds(30)
    /// Retries of a failed step for errors other than card loss (card loss is recovered by
    /// waiting for the card instead).
    public var retries = RetryPolicy(attempts: 0, backoff: .zero)
    /// Bounds on 61xx / 6Cxx continuation for ``CardSession/send(_:)``.
    public var responseChaining = ResponseChainingPolicy.default
    /// How often card presence is polled when the reader has no interrupt endpoint.
    public var presencePollInterval: Duration = .milliseconds(400)
    /// The transmission protocol (T=0 or T=1) asked for when the session powers a contact card
    /// on; nil leaves it to the backend (the CCID driver's configured preference: T=1 when card
    /// and reader offer it). A protocol the card or reader does not offer makes connecting fail
    /// with the backend's typed error instead of running the other one.
    public var transmissionProtocol: CardProtocol? = nil
    /// How a card is recognised when it comes back (UID by default).
    public var identity: CardIdentityResolver = .uid
    /// Asked before each flow step starts (and before an interrupted step is resumed); a throw
    /// ends the flow there with that error, so nothing more is sent to the card. A fleet host
    /// uses it to stop a flow whose claim it lost before the next write.
    public var beforeStep: (@Sendable (FlowStepGate) async throws -> Void)? = nil
    /// The clock cooldowns, timeouts and backoffs are measured with.
    public var clock: any ElapsedClock = RealClock()

    public init() {}

    /// The defaults: no cooldown, no reconnect between steps, 30 s to find a card.
    public static var `default`: SessionPolicy { SessionPolicy() }
}

/// Retries with a fixed, then doubling, backoff.
public struct RetryPolicy: Sendable, Hashable {
    /// Additional attempts after the first failure.
    public var attempts: Int
    /// Pause before the first retry; doubled for each further retry.
    public var backoff: Duration

    public init(attempts: Int, backoff: Duration) {
        self.attempts = max(0, attempts)
        self.backoff = backoff
    }

    /// The pause before retry number `retry` (1-based).
    public func delay(beforeRetry retry: Int) -> Duration {
        backoff * (1 << min(max(retry - 1, 0), 16))
    }
}

/// The step a flow is about to run, as ``SessionPolicy/beforeStep`` sees it.
public struct FlowStepGate: Sendable, Hashable {
    public var index: Int
    public var name: String
    /// Whether running the step again is harmless (reads, idempotent writes).
    public var idempotent: Bool

    public init(index: Int, name: String, idempotent: Bool) {
        self.index = index
        self.name = name
        self.idempotent = idempotent
    }
}
