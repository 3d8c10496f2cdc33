import CardFlowDaemonControl

/// What the daemon has told about each simulated reader on its event bus, so that a schedule
/// paced by the daemon (the soak) moves the next card only when the last one was dealt with.
actor ReaderActivity {
    struct Snapshot: Sendable {
        var present = false
        var arrivals = 0
        var jobsStarted = 0
        var handled = 0
    }

    private var readers: [String: Snapshot] = [:]
    private var waiters:
        [UInt64: (
            reader: String, condition: @Sendable (Snapshot) -> Bool,
            continuation: CheckedContinuation<Bool, Never>, timer: Task<Void, Never>
        )] = [:]
    private var nextID: UInt64 = 0

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
        let id = nextID
        nextID += 1
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let timer = Task {
                    try? await Task.sleep(for: timeout)
                    self.expire(id)
                }
                waiters[id] = (reader, condition, continuation, timer)
                if Task.isCancelled { expire(id) }
            }
        } onCancel: {
            Task { await self.expire(id) }
        }
    }

    private func expire(_ id: UInt64) {
        guard let waiter = waiters.removeValue(forKey: id) else { return }
        waiter.timer.cancel()
        waiter.continuation.resume(returning: false)
    }

    private func update(_ reader: String, _ change: (inout Snapshot) -> Void) {
        var snapshot = readers[reader] ?? Snapshot()
        change(&snapshot)
        readers[reader] = snapshot
        for (id, waiter) in waiters where waiter.reader == reader && waiter.condition(snapshot) {
            waiters[id] = nil
            waiter.timer.cancel()
            waiter.continuation.resume(returning: true)
        }
    }
}
