import Synchronization

/// Virtual time that never waits: whoever sleeps moves the clock to their deadline at once.
/// A simulated reader on it (`sim:…,clock=virtual`) answers at CPU speed while its clock moves
/// by exactly the time its timing model gives, so a measurement taken with the same clock sees
/// the model's time and nothing of the host's.
///
/// With one driver and one simulated reader on it, this is a discrete-event simulation: the
/// reader queues every answer before the driver reads, so a read that finds nothing has nothing
/// to wait for, and its timeout passes in no real time. Campaigns of hostile sessions then run
/// at CPU speed while timeouts, time-extension storms and exchange time limits still count.
public final class SkippingClock: ElapsedClock {
    private let nanoseconds = Atomic<Int64>(0)

    public init() {}

    public func now() -> Duration { .nanoseconds(nanoseconds.load(ordering: .acquiring)) }

    public func suspend(until deadline: Duration) async throws {
        try Task.checkCancellation()
        let target = Self.nanoseconds(deadline)
        var current = nanoseconds.load(ordering: .acquiring)
        while current < target {
            let (exchanged, original) = nanoseconds.compareExchange(
                expected: current, desired: target,
                ordering: .acquiringAndReleasing)
            if exchanged { break }
            current = original
        }
        await Task.yield()
        try Task.checkCancellation()
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let whole = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !whole.overflow else { return seconds < 0 ? .min : .max }
        let sum = whole.partialValue.addingReportingOverflow(attoseconds / 1_000_000_000)
        return sum.overflow ? .max : sum.partialValue
    }
}
