/// Reconnection delays: doubling from a first delay up to a ceiling.
struct VPCDBackoff: Sendable {
    let initial: Duration
    let maximum: Duration
    private(set) var next: Duration

    init(initial: Duration, maximum: Duration) {
        self.initial = initial
        self.maximum = max(initial, maximum)
        self.next = initial
    }

    /// The delay to wait now; the one after it doubles, up to ``maximum``.
    mutating func take() -> Duration {
        let delay = next
        next = min(next * 2, maximum)
        return delay
    }

    mutating func reset() {
        next = initial
    }
}
