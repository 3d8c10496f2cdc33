/// Tasks an actor keeps suspended until something wakes them with an outcome, their deadline on
/// an ``ElapsedClock`` passes, or their task is cancelled — whichever comes first.
///
/// ``Reader`` waits this way for presence changes, the simulator's virtual CCID reader for data
/// on a channel, the daemon simulation for a reader's activity; all need the same care (a waiter
/// resumed exactly once, its timer task cancelled when something else wakes it, cancellation
/// that never leaves a continuation behind), so it lives here once.
package struct DeadlineWaiters<Tag: Sendable, Outcome: Sendable> {
    private struct Waiter {
        let tag: Tag
        let continuation: CheckedContinuation<Outcome, Never>
        let timer: Task<Void, Never>
    }

    /// How many wait (`waiters.count`), first and not generic: unspecialised code (any caller in
    /// another module) reads it without looking up the dictionary type's generic metadata.
    private var waiting = 0
    private var waiters: [UInt64: Waiter] = [:]
    private var nextID: UInt64 = 0

    package init() {}

    /// Whether no task is waiting.
    package var isEmpty: Bool { waiting == 0 }

    /// A fresh identity for the next waiter.
    mutating func reserveID() -> UInt64 {
        defer { nextID &+= 1 }
        return nextID
    }

    mutating func add(
        _ id: UInt64, tag: Tag, continuation: CheckedContinuation<Outcome, Never>, timer: Task<Void, Never>
    ) {
        waiters[id] = Waiter(tag: tag, continuation: continuation, timer: timer)
        waiting = waiters.count
    }

    /// Resumes waiter `id` with `outcome` if it still waits (a second wake does nothing).
    package mutating func wake(_ id: UInt64, with outcome: Outcome) {
        guard waiting > 0, let waiter = waiters.removeValue(forKey: id) else { return }
        waiting = waiters.count
        waiter.timer.cancel()
        waiter.continuation.resume(returning: outcome)
    }

    /// Resumes every waiter whose tag matches with `outcome`.
    package mutating func wake(where matches: (Tag) -> Bool, with outcome: Outcome) {
        // Callers in other modules run this unspecialised: even asking an empty dictionary
        // whether it is empty looks up its generic metadata, and a simulated reader wakes on
        // every message it queues.
        guard waiting > 0 else { return }
        for (id, waiter) in waiters where matches(waiter.tag) {
            waiters[id] = nil
            waiter.timer.cancel()
            waiter.continuation.resume(returning: outcome)
        }
        waiting = waiters.count
    }

    /// Resumes every waiter with `outcome`.
    package mutating func wakeAll(with outcome: Outcome) {
        guard waiting > 0 else { return }
        let woken = waiters
        waiters.removeAll()
        waiting = 0
        for waiter in woken.values {
            waiter.timer.cancel()
            waiter.continuation.resume(returning: outcome)
        }
    }
}

extension DeadlineWaiters where Outcome == Void {
    /// Resumes every waiter whose tag matches.
    package mutating func wake(where matches: (Tag) -> Bool) { wake(where: matches, with: ()) }

    /// Resumes every waiter.
    package mutating func wakeAll() { wakeAll(with: ()) }
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
                let timer = Task {
                    try? await clock.suspend(until: deadline)
                    self.wakeDeadlineWaiter(id, with: expired)
                }
                deadlineWaiters.add(id, tag: tag, continuation: continuation, timer: timer)
                registered()
            }
        } onCancel: {
            Task { await self.wakeDeadlineWaiter(id, with: expired) }
        }
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
