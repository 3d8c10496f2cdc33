import Synchronization

/// Holds one flow run to its deadline and each step to the step timeout, with one timer for the
/// whole run instead of a timer task racing every step.
///
/// The run's work arms the watchdog when a step begins (``stepBegan(_:)``) and disarms it when
/// the step ends; the watchdog sleeps until the earliest bound that can apply. Between steps it
/// sleeps until "now plus the step timeout": a step that begins later has a later deadline, so
/// the watchdog never needs waking earlier than it planned, and a run whose steps each finish
/// within the step timeout costs it one sleep, however many steps it has.
final class FlowWatchdog: Sendable {
    /// What ran out.
    enum Expiry: Sendable, Equatable {
        case flow
        case step(index: Int)
    }

    private let clock: any ElapsedClock
    private let flowDeadline: Duration?
    private let stepTimeout: Duration?
    /// The step in progress: its deadline on `clock` in nanoseconds and its index + 1 (0: none),
    /// stored together so the watchdog never pairs one step's deadline with another's index.
    private let step = Atomic<WordPair>(WordPair(first: 0, second: 0))

    /// A watchdog for a run that began now on `clock`; nil when neither bound is set.
    init?(clock: any ElapsedClock, flowTimeout: Duration?, stepTimeout: Duration?) {
        guard flowTimeout != nil || stepTimeout != nil else { return nil }
        self.clock = clock
        self.flowDeadline = flowTimeout.map { clock.now() + $0 }
        self.stepTimeout = stepTimeout
    }

    /// Step `index` begins now.
    func stepBegan(_ index: Int) {
        guard let stepTimeout else { return }
        let deadline = (clock.now() + stepTimeout).wholeNanoseconds
        step.store(WordPair(first: UInt(bitPattern: Int(deadline)), second: UInt(index + 1)), ordering: .releasing)
    }

    /// The step in progress ended.
    func stepEnded() {
        guard stepTimeout != nil else { return }
        step.store(WordPair(first: 0, second: 0), ordering: .releasing)
    }

    /// Returns when a bound runs out (throws when cancelled: the run ended first).
    func expiry() async throws -> Expiry {
        while true {
            let now = clock.now()
            if let flowDeadline, now >= flowDeadline { return .flow }
            var target = flowDeadline
            if let stepTimeout {
                let current = step.load(ordering: .acquiring)
                let stepDeadline: Duration
                if current.second == 0 {
                    stepDeadline = now + stepTimeout
                } else {
                    stepDeadline = .nanoseconds(Int(bitPattern: current.first))
                    if now >= stepDeadline { return .step(index: Int(current.second) - 1) }
                }
                target = min(target ?? stepDeadline, stepDeadline)
            }
            // Unreachable: init needs a bound.
            guard let target else { throw CancellationError() }
            try await clock.suspend(until: target)
        }
    }
}
