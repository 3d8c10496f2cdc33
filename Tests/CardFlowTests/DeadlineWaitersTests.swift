@_spi(CardFlowInternals) import CardFlow
import Testing

/// An actor that waits the way ``Reader`` and the simulated readers do.
private actor Waiting: DeadlineWaiting {
    var deadlineWaiters = DeadlineWaiters<Int, String>()
    let clock: any ElapsedClock

    init(clock: any ElapsedClock) { self.clock = clock }

    func wait(_ tag: Int, for duration: Duration) async -> String {
        await suspendUntilWoken(tag: tag, until: clock.now() + duration, clock: clock, expired: "expired")
    }

    func wake(_ tag: Int) { deadlineWaiters.wake(where: { $0 == tag }, with: "woken") }
    var someoneWaits: Bool { !deadlineWaiters.isEmpty }
    var timersStarted: UInt64 { deadlineWaiters.sharedTimersStarted }

    /// Waits until a waiter is recorded (the gate a test needs before waking it).
    func untilSomeoneWaits() async { #expect(await until(waiting: 1)) }

    /// Whether `count` tasks came to wait within ten seconds. It sleeps between looks rather than
    /// yielding: a test spinning on two cores would starve the tasks it waits for.
    func until(waiting count: Int) async -> Bool {
        for _ in 0..<10_000 {
            if deadlineWaiters.count >= count { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return false
    }
}

@Suite("Deadline waiters")
struct DeadlineWaitersTests {
    @Test("waits on a real-time clock that are woken early share one timer")
    func wokenEarlyShareOneTimer() async {
        let waiting = Waiting(clock: RealClock())
        for tag in 0..<200 {
            let waiter = Task { await waiting.wait(tag, for: .seconds(60)) }
            await waiting.untilSomeoneWaits()
            await waiting.wake(tag)
            #expect(await waiter.value == "woken")
        }
        #expect(await waiting.timersStarted == 1)
        #expect(await !waiting.someoneWaits)
    }

    @Test("a deadline before the timer's replaces it and expires on time; the later waiter keeps waiting")
    func earlierDeadlineReplacesTheTimer() async {
        let clock = RealClock()
        let waiting = Waiting(clock: clock)
        let long = Task { await waiting.wait(1, for: .seconds(600)) }
        await waiting.untilSomeoneWaits()
        let start = clock.now()
        #expect(await waiting.wait(2, for: .milliseconds(20)) == "expired")
        // Far below the long waiter's 600 s: the short deadline had a timer of its own.
        #expect(clock.now() - start < .seconds(60))
        #expect(await waiting.timersStarted == 2)
        #expect(await waiting.someoneWaits)
        await waiting.wake(1)
        #expect(await long.value == "woken")
    }

    @Test("the shared timer expires each waiter whose deadline passed, then goes on for the later ones")
    func timerGoesOnForLaterWaiters() async {
        let waiting = Waiting(clock: RealClock())
        // Two seconds are room enough for the second waiter to be recorded before the first
        // expires; if they were not, the gate gives up and the test fails (it never hangs).
        let first = Task { await waiting.wait(1, for: .seconds(2)) }
        await waiting.untilSomeoneWaits()
        let second = Task { await waiting.wait(2, for: .milliseconds(2050)) }
        #expect(await waiting.until(waiting: 2))
        #expect(await first.value == "expired")
        #expect(await second.value == "expired")
        // The second deadline came after the first: the first timer served both.
        #expect(await waiting.timersStarted == 1)
        #expect(await !waiting.someoneWaits)
    }

    @Test("a cancelled waiter gets the expired outcome; the others keep waiting")
    func cancelledWaiter() async {
        let waiting = Waiting(clock: RealClock())
        let kept = Task { await waiting.wait(1, for: .seconds(600)) }
        await waiting.untilSomeoneWaits()
        let cancelled = Task { await waiting.wait(2, for: .seconds(600)) }
        cancelled.cancel()
        #expect(await cancelled.value == "expired")
        #expect(await waiting.someoneWaits)
        await waiting.wake(1)
        #expect(await kept.value == "woken")
    }

    @Test("on a manual clock each waiter has its own timer, which only that clock fires")
    func manualClockWaiters() async {
        let clock = ManualClock()
        let waiting = Waiting(clock: clock)
        let waiter = Task { await waiting.wait(1, for: .seconds(5)) }
        await waiting.untilSomeoneWaits()
        while await clock.sleeperCount == 0 { await Task.yield() }
        await clock.advance(by: .seconds(5))
        #expect(await waiter.value == "expired")
        #expect(await waiting.timersStarted == 0)
    }
}
