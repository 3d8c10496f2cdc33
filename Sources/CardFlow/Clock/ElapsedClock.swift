import Synchronization

/// A clock measured as time elapsed since its origin, which every CardFlow component that
/// waits uses: session cooldowns and timeouts, the simulated reader's timing model and card
/// returns. Tests substitute ``ManualClock`` to run time-dependent behaviour without waiting.
public protocol ElapsedClock: Sendable {
    /// Time elapsed since the clock's origin.
    func now() -> Duration
    /// Suspends until `deadline` (measured from the origin); throws on task cancellation.
    func suspend(until deadline: Duration) async throws
    /// Whether the clock runs with real (monotonic) time, so that a duration measured on it is
    /// the same on any other real-time clock: a backend may then hold an exchange to a time
    /// limit with its own timers (``ReaderDriver/transmit(_:timeLimit:clock:)``). False unless
    /// a clock says otherwise.
    var measuresRealTime: Bool { get }
}

extension ElapsedClock {
    public var measuresRealTime: Bool { false }
}

/// Real time, measured from when the clock was made.
public struct RealClock: ElapsedClock {
    private let clock = ContinuousClock()
    private let origin: ContinuousClock.Instant

    public init() { origin = clock.now }

    public var measuresRealTime: Bool { true }

    public func now() -> Duration { origin.duration(to: clock.now) }

    public func suspend(until deadline: Duration) async throws {
        try await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil)
    }
}

/// A clock that only moves when told to: sleepers wake when ``advance(by:)`` passes their
/// deadline. For deterministic tests of timeouts, latency and card returns.
public actor ManualClock: ElapsedClock {
    private var current: Duration = .zero
    private var sleepers: [(id: UInt64, deadline: Duration, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextID: UInt64 = 0

    public init() {}

    public nonisolated func now() -> Duration {
        // Callers read the time synchronously, so the actor mirrors it in an atomic.
        .nanoseconds(mirror.load(ordering: .acquiring))
    }

    private let mirror = Atomic<Int64>(0)

    public func suspend(until deadline: Duration) async throws {
        if deadline <= current { return }
        let id = nextID
        nextID += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    sleepers.append((id, deadline, continuation))
                }
            }
        } onCancel: {
            Task { await self.cancelSleeper(id) }
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has passed.
    public func advance(by duration: Duration) {
        current += duration
        mirror.store(current.wholeNanoseconds, ordering: .releasing)
        let due = sleepers.filter { $0.deadline <= current }
        sleepers.removeAll { $0.deadline <= current }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Number of tasks currently sleeping on this clock.
    public var sleeperCount: Int { sleepers.count }

    private func cancelSleeper(_ id: UInt64) {
        guard let index = sleepers.firstIndex(where: { $0.id == id }) else { return }
        sleepers.remove(at: index).continuation.resume(throwing: CancellationError())
    }
}

extension Duration {
    /// The duration in whole nanoseconds, for clocks and deadlines kept in an atomic.
    var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
