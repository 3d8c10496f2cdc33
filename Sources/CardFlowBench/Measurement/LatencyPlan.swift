import CardFlow

/// How many round trips a latency run takes: a warm-up that is not measured, then samples
/// until both ``count`` and ``minimumDuration`` are reached (or ``maximumDuration`` passes).
public struct LatencyPlan: Sendable, Hashable {
    /// Round trips before measuring: the first exchanges after power-on pay for caches,
    /// protocol set-up and the card's own warm-up.
    public var warmup: Int
    /// Samples to measure at least.
    public var count: Int
    /// Time to measure for at least (on the measuring clock), so a fast reader is not judged on
    /// a fraction of a second.
    public var minimumDuration: Duration
    /// Time after which measuring stops even below ``count`` (nil: none).
    public var maximumDuration: Duration?
    /// Consecutive failed round trips after which the run stops (the reader or card is gone).
    public var failureLimit: Int

    /// - Parameters:
    ///   - warmup: unmeasured round trips first.
    ///   - count: samples to measure at least.
    ///   - minimumDuration: time to measure for at least.
    ///   - maximumDuration: time after which to stop anyway.
    ///   - failureLimit: consecutive failures that end the run.
    public init(
        warmup: Int = 50, count: Int = 1000, minimumDuration: Duration = .seconds(1),
        maximumDuration: Duration? = nil, failureLimit: Int = 10
    ) {
        self.warmup = max(0, warmup)
        self.count = max(1, count)
        self.minimumDuration = minimumDuration
        self.maximumDuration = maximumDuration
        self.failureLimit = max(1, failureLimit)
    }
}
