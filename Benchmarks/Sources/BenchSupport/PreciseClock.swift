import CardFlow
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Real time, like `RealClock`, but a sleeper wakes at its deadline rather than at the deadline
/// plus the timer's overshoot: it sleeps with zero tolerance until `spin` before the deadline,
/// then busy-waits on its thread until the deadline has passed (at most `spin` of one core's
/// time per sleep; a benchmark-only trade).
///
/// The latency-model benchmark gives it to the simulated reader, so that the reader answers at
/// the instant its timing model says (as a real reader's USB transfer completes when the
/// hardware is done), and achieved ÷ model bound measures the stack, not the kernel timer.
/// A plain `Task.sleep` of a few milliseconds wakes 50–150 µs late here (Linux timer slack,
/// dispatch timer and thread wake-up latency), which alone costs 3–6 % at 424 kbit/s.
///
/// ```swift
/// let reader = VirtualCCIDReader(configuration: configuration, clock: PreciseClock())
/// ```
public struct PreciseClock: ElapsedClock {
    private let clock = ContinuousClock()
    private let origin: ContinuousClock.Instant
    /// How long before a deadline the sleeper stops sleeping and starts busy-waiting.
    public let spin: Duration

    public init(spin: Duration = .microseconds(250)) {
        origin = clock.now
        self.spin = spin
    }

    public func now() -> Duration { origin.duration(to: clock.now) }

    public func suspend(until deadline: Duration) async throws {
        let target = origin.advanced(by: deadline)
        let wake = target.advanced(by: .zero - spin)
        if clock.now < wake { try await clock.sleep(until: wake, tolerance: .zero) }
        // Busy-wait on this thread: a Task.yield per turn would hand the job through the
        // executor's queue (and maybe another thread) each time, which is what overshoots.
        try Task.checkCancellation()
        while clock.now < target {}
    }
}

/// Sets the main thread's timer slack to `nanoseconds` through `/proc/self/timerslack_ns`
/// (proc(5); the same as `prctl(PR_SET_TIMERSLACK)` on that thread, which Swift cannot call
/// because it is variadic). Threads inherit the slack of the thread that creates them, so call
/// it first thing in `main`, before the concurrency runtime and Dispatch start their threads.
/// Linux rounds every timer of a thread with the default slack (50 µs) up by as much as that.
///
/// - Returns: whether the kernel took the value (false on other systems).
@discardableResult
public func reduceTimerSlack(nanoseconds: Int = 1) -> Bool {
    guard let handle = FileHandle(forWritingAtPath: "/proc/self/timerslack_ns") else { return false }
    defer { try? handle.close() }
    do {
        try handle.write(contentsOf: Data("\(nanoseconds)".utf8))
        return true
    } catch {
        return false
    }
}

/// Raises the calling thread's scheduling priority to nice `value` (negative: higher), so that
/// a shared machine's other work (compilers, other benchmarks) delays the real-time
/// measurements less. On Linux the nice value is per thread and inherited by threads created
/// later, so call it first thing in `main`, as ``reduceTimerSlack(nanoseconds:)``. Needs
/// CAP_SYS_NICE (root) for negative values.
///
/// - Returns: whether the kernel took the value.
@discardableResult
public func raiseSchedulingPriority(nice value: Int32 = -10) -> Bool {
    #if canImport(Glibc)
    return setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, value) == 0
    #else
    return false
    #endif
}
