@_spi(CardFlowInternals) import CardFlow
import CardFlowDaemonControl

/// What the daemon has told about each simulated reader on its event bus, so that a schedule
/// paced by the daemon (the soak) moves the next card only when the last one was dealt with.
actor ReaderActivity: DeadlineWaiting {
    struct Snapshot: Sendable {
        var present = false
        var arrivals = 0
        var jobsStarted = 0
        var handled = 0
    }

    /// What a waiter waits for: a condition on one reader's snapshot.
    struct Awaited: Sendable {
        let reader: String
        let condition: @Sendable (Snapshot) -> Bool
    }

    private var readers: [String: Snapshot] = [:]
    var deadlineWaiters = DeadlineWaiters<Awaited, Bool>()
    private let clock = RealClock()

    /// Follows the bus until the stream ends.
    func follow(_ events: AsyncStream<DaemonEvent>) async {
        for await event in events {
            switch event {
            case .cardArrived(let reader):
                update(reader) {
                    $0.present = true; $0.arrivals += 1
                }
            case .cardLeft(let reader): update(reader) { $0.present = false }
            case .jobStarted(_, let reader, _, _): update(reader) { $0.jobsStarted += 1 }
            case .cardHandled(let reader, _): update(reader) { $0.handled += 1 }
            // A reader plugged in again starts with no card.
            case .readerAdded(let reader, _), .readerRemoved(let reader): update(reader) { $0.present = false }
            default: continue
            }
        }
    }

    func snapshot(_ reader: String) -> Snapshot { readers[reader] ?? Snapshot() }

    /// Waits until `condition` holds for `reader`, at most `timeout`; false when it did not or
    /// the waiting task was cancelled (the daemon is stopping: a card a fleet host keeps waiting
    /// for a record must not hold the shutdown for the whole bound).
    func wait(for reader: String, timeout: Duration, until condition: @escaping @Sendable (Snapshot) -> Bool) async
        -> Bool
    {
        if condition(snapshot(reader)) { return true }
        return await suspendUntilWoken(
            tag: Awaited(reader: reader, condition: condition), until: clock.now() + timeout, clock: clock,
            expired: false)
    }

    private func update(_ reader: String, _ change: (inout Snapshot) -> Void) {
        var snapshot = readers[reader] ?? Snapshot()
        change(&snapshot)
        readers[reader] = snapshot
        deadlineWaiters.wake(where: { $0.reader == reader && $0.condition(snapshot) }, with: true)
    }
}
