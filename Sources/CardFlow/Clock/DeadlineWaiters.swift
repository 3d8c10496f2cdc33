/// Tasks an actor keeps suspended until something wakes them with an outcome, their deadline on
/// an ``ElapsedClock`` passes, or their task is cancelled — whichever comes first.
///
/// ``Reader`` waits this way for presence changes, the simulator's virtual CCID reader for data
/// on a channel, the daemon simulation for a reader's activity; all need the same care (a waiter
/// resumed exactly once, cancellation that never leaves a continuation behind), so it lives here
/// once.
///
/// Waiters on a clock that measures real time share one timer per actor: it sleeps until the
/// earliest deadline and, when a waiter is woken early, keeps sleeping for the next waiter
/// instead of being cancelled, so a wait that ends early (the usual case: data or a presence
/// change comes) costs neither a task nor a timer. It is replaced only when a waiter's deadline
/// comes before the one it sleeps towards. Waiters on another clock (a ``ManualClock`` in tests)
/// each get a timer of their own on that clock, which fires only when the test moves it.
///
/// The wakes, the counts and adding a waiter are `@inlinable`: the simulator's readers wake on
/// every message they queue, and unspecialised (from another module) each call looked up this
/// type's and its dictionary's generic metadata (about 7 % of an APDU through the simulated
/// reader). Hence the stored state is `@usableFromInline`; only this file changes it. The type is
/// SPI (`@_spi(CardFlowInternals) import CardFlow`), not `package`: this compiler serialises an
/// `@inlinable package` body but does not specialise it in another module without package-wide
/// cross-module optimisation, which only unsafe flags turn on.
@_spi(CardFlowInternals) public struct DeadlineWaiters<Tag: Sendable, Outcome: Sendable> {
    @usableFromInline
    struct Waiter {
        @usableFromInline let tag: Tag
        @usableFromInline let continuation: CheckedContinuation<Outcome, Never>
        @usableFromInline let expired: Outcome
        /// When the shared timer expires the waiter (real-time clocks), else nil.
        @usableFromInline let instant: ContinuousClock.Instant?
        /// The waiter's own timer (other clocks), else nil.
        @usableFromInline let timer: Task<Void, Never>?

        @inlinable
        init(
            tag: Tag, continuation: CheckedContinuation<Outcome, Never>, expired: Outcome,
            instant: ContinuousClock.Instant?, timer: Task<Void, Never>?
        ) {
            self.tag = tag
            self.continuation = continuation
            self.expired = expired
            self.instant = instant
            self.timer = timer
        }
    }

    /// How many wait (`waiters.count`), kept apart so the empty check reads one integer.
    @usableFromInline var waiting = 0
    @usableFromInline var waiters: [UInt64: Waiter] = [:]
    @usableFromInline var nextID: UInt64 = 0
    /// The shared timer of real-time waiters, the instant it sleeps until, and its generation:
    /// a replaced timer that wakes anyway finds its generation outdated and stops.
    @usableFromInline var sharedTimer: Task<Void, Never>?
    @usableFromInline var sharedTimerTarget: ContinuousClock.Instant?
    @usableFromInline var sharedTimerGeneration: UInt64 = 0

    public init() {}

    /// How many shared timers were started (tests hold the reuse to it).
    public var sharedTimersStarted: UInt64 { sharedTimerGeneration }

    /// Whether no task is waiting.
    @inlinable public var isEmpty: Bool { waiting == 0 }

    /// How many tasks wait.
    @inlinable public var count: Int { waiting }

    /// A fresh identity for the next waiter.
    @inlinable
    mutating func reserveID() -> UInt64 {
        defer { nextID &+= 1 }
        return nextID
    }

    /// Records a waiter with a timer of its own.
    @inlinable
    mutating func add(
        _ id: UInt64, tag: Tag, continuation: CheckedContinuation<Outcome, Never>, expired: Outcome,
        timer: Task<Void, Never>
    ) {
        waiters[id] = Waiter(tag: tag, continuation: continuation, expired: expired, instant: nil, timer: timer)
        waiting = waiters.count
    }

    /// Records a waiter the shared timer expires at `instant`, and starts a new shared timer with
    /// `startTimer` (given its target and generation) when none sleeps until `instant` or earlier.
    @inlinable
    mutating func add(
        _ id: UInt64, tag: Tag, continuation: CheckedContinuation<Outcome, Never>, expired: Outcome,
        at instant: ContinuousClock.Instant,
        startTimer: (ContinuousClock.Instant, UInt64) -> Task<Void, Never>
    ) {
        waiters[id] = Waiter(tag: tag, continuation: continuation, expired: expired, instant: instant, timer: nil)
        waiting = waiters.count
        if sharedTimer != nil, let target = sharedTimerTarget, target <= instant { return }
        sharedTimer?.cancel()
        sharedTimerTarget = instant
        sharedTimerGeneration &+= 1
        sharedTimer = startTimer(instant, sharedTimerGeneration)
    }

    /// Called by the shared timer of `generation` when it wakes at `now`: expires the waiters
    /// whose instant has come and returns the instant to sleep until next, or nil when the
    /// timer should stop (no waiter left for it, or it was replaced).
    mutating func sharedTimerFired(generation: UInt64, now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        guard generation == sharedTimerGeneration else { return nil }
        var next: ContinuousClock.Instant?
        if waiting > 0 {
            for (id, waiter) in waiters {
                guard let instant = waiter.instant else { continue }
                if instant <= now {
                    waiters[id] = nil
                    waiter.continuation.resume(returning: waiter.expired)
                } else if next.map({ instant < $0 }) ?? true {
                    next = instant
                }
            }
            waiting = waiters.count
        }
        sharedTimerTarget = next
        if next == nil { sharedTimer = nil }
        return next
    }

    /// Resumes waiter `id` with `outcome` if it still waits (a second wake does nothing).
    @inlinable
    public mutating func wake(_ id: UInt64, with outcome: Outcome) {
        guard waiting > 0, let waiter = waiters.removeValue(forKey: id) else { return }
        waiting = waiters.count
        waiter.timer?.cancel()
        waiter.continuation.resume(returning: outcome)
    }

    /// Resumes every waiter whose tag matches with `outcome`.
    @inlinable
    public mutating func wake(where matches: (Tag) -> Bool, with outcome: Outcome) {
        guard waiting > 0 else { return }
        for (id, waiter) in waiters where matches(waiter.tag) {
            waiters[id] = nil
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: outcome)
        }
        waiting = waiters.count
    }

    /// Resumes every waiter with `outcome`.
    @inlinable
    public mutating func wakeAll(with outcome: Outcome) {
        guard waiting > 0 else { return }
        let woken = waiters
        waiters.removeAll()
        waiting = 0
        for waiter in woken.values {
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: outcome)
        }
    }
}

extension DeadlineWaiters where Outcome == Void {
    /// Resumes every waiter whose tag matches.
    @inlinable
    public mutating func wake(where matches: (Tag) -> Bool) { wake(where: matches, with: ()) }

    /// Resumes every waiter.
    @inlinable
    public mutating func wakeAll() { wakeAll(with: ()) }
}

/// An actor that suspends tasks in its ``deadlineWaiters``.
package protocol DeadlineWaiting: Actor {
    associatedtype WaiterTag: Sendable
    associatedtype WaiterOutcome: Sendable
    var deadlineWaiters: DeadlineWaiters<WaiterTag, WaiterOutcome> { get set }
}

extension DeadlineWaiting {
    /// Suspends until a `wake` on ``deadlineWaiters`` picks this waiter (returning the outcome it
    /// gives), or `deadline` on `clock` passes or the task is cancelled (returning `expired`).
    /// `registered` runs on the actor as soon as the waiter is recorded (before any suspension),
    /// so a wake that follows it cannot be missed.
    package func suspendUntilWoken(
        tag: WaiterTag, until deadline: Duration, clock: any ElapsedClock, expired: WaiterOutcome,
        registered: () -> Void = {}
    ) async -> WaiterOutcome {
        let id = deadlineWaiters.reserveID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<WaiterOutcome, Never>) in
                if Task.isCancelled {
                    continuation.resume(returning: expired)
                    return
                }
                if clock.measuresRealTime {
                    // Any real-time clock's durations are ContinuousClock's: one timer serves all.
                    let instant = ContinuousClock.now.advanced(by: deadline - clock.now())
                    deadlineWaiters.add(
                        id, tag: tag, continuation: continuation, expired: expired, at: instant,
                        startTimer: startSharedTimer(until:generation:))
                } else {
                    let timer = Task {
                        try? await clock.suspend(until: deadline)
                        self.wakeDeadlineWaiter(id, with: expired)
                    }
                    deadlineWaiters.add(id, tag: tag, continuation: continuation, expired: expired, timer: timer)
                }
                registered()
            }
        } onCancel: {
            Task { await self.wakeDeadlineWaiter(id, with: expired) }
        }
    }

    /// The shared timer: sleeps until `instant`, expires what is due, and goes on while waiters
    /// remain. It holds the actor weakly, so an actor released meanwhile is not kept alive.
    private func startSharedTimer(until instant: ContinuousClock.Instant, generation: UInt64) -> Task<Void, Never> {
        Task { [weak self] in
            var target = instant
            while true {
                do {
                    try await Task.sleep(until: target, tolerance: nil, clock: .continuous)
                } catch {
                    return // replaced by a timer with an earlier target
                }
                guard let self, let next = await self.sharedDeadlineTimerFired(generation: generation) else { return }
                target = next
            }
        }
    }

    private func sharedDeadlineTimerFired(generation: UInt64) -> ContinuousClock.Instant? {
        deadlineWaiters.sharedTimerFired(generation: generation, now: .now)
    }

    private func wakeDeadlineWaiter(_ id: UInt64, with outcome: WaiterOutcome) {
        deadlineWaiters.wake(id, with: outcome)
    }
}

extension DeadlineWaiting where WaiterOutcome == Void {
    /// ``suspendUntilWoken(tag:until:clock:expired:registered:)`` for waiters woken with no outcome.
    package func suspendUntilWoken(
        tag: WaiterTag, until deadline: Duration, clock: any ElapsedClock, registered: () -> Void = {}
    ) async {
        await suspendUntilWoken(tag: tag, until: deadline, clock: clock, expired: (), registered: registered)
    }
}
