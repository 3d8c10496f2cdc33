import CardFlow
import Synchronization

/// Real time plus the waits it skipped: a sleeper returns at once and the clock jumps forward to
/// its deadline, so everything else (the stack's own work between waits) still counts in real
/// time.
///
/// The latency-model benchmark gives it to the simulated reader and times the APDU loop on it:
/// elapsed = the model's waits + the stack's real time. That is the quantity the ≥ 0.99 target
/// is about (extra round trips or polling would add waits; the stack's CPU time adds real
/// time), without the 50–300 µs by which this VM's timers wake late, which a wall-clock
/// measurement cannot separate from the stack at 1 % of a 1.4 ms exchange. ``waits`` counts the
/// skipped waits, so the benchmark can check there was exactly one per APDU.
///
/// For one sleeper at a time (one simulated reader whose answers the measured task awaits): two
/// concurrent sleepers would each add their wait.
///
/// ```swift
/// let clock = SkippedWaitClock()
/// let reader = VirtualCCIDReader(configuration: configuration, clock: clock)
/// ```
public final class SkippedWaitClock: ElapsedClock {
    private let clock = ContinuousClock()
    private let origin: ContinuousClock.Instant
    private let skippedNanoseconds = Atomic<Int64>(0)
    private let waitCount = Atomic<Int>(0)

    public init() { origin = clock.now }

    public func now() -> Duration {
        origin.duration(to: clock.now) + .nanoseconds(skippedNanoseconds.load(ordering: .acquiring))
    }

    public func suspend(until deadline: Duration) async throws {
        try Task.checkCancellation()
        let wait = deadline - now()
        guard wait > .zero else { return }
        let (seconds, attoseconds) = wait.components
        skippedNanoseconds.add(seconds * 1_000_000_000 + attoseconds / 1_000_000_000, ordering: .acquiringAndReleasing)
        waitCount.add(1, ordering: .relaxed)
    }

    /// How many waits were skipped so far.
    public var waits: Int { waitCount.load(ordering: .relaxed) }
}
