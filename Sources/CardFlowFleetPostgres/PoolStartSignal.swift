import Synchronization

/// Opens once, when ``FleetStore/run()`` starts the connection pool; operations wait for it.
///
/// A mutex rather than an actor: `open()` must take effect synchronously, right before the pool's
/// own `run()` begins, with no suspension point in between.
final class PoolStartSignal: Sendable {
    private struct State {
        var open = false
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
    }
    private let state = Mutex(State())

    /// Lets every waiter, present and future, go on.
    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the signal is open; throws `CancellationError` when the task is cancelled first.
    func wait() async throws {
        if state.withLock({ $0.open }) { return }
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let answer: Result<Void, any Error>? = state.withLock { state in
                    if state.open { return .success(()) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let answer { continuation.resume(with: answer) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }
}
