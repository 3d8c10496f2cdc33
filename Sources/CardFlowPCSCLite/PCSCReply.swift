import Synchronization

/// The answer of one exchange, delivered once: by the PC/SC thread when the call returns, or
/// as `CancellationError` by the caller's cancellation handler, whichever comes first.
///
/// PC/SC cannot interrupt an `SCardTransmit`, so cancellation does not wait for it: the caller
/// resumes at once and the late answer is dropped. The two sides race from different threads
/// with no await possible on the PC/SC side, hence a mutex around the continuation.
final class PCSCReply<Value: Sendable>: Sendable {
    private enum State {
        case pending
        case waiting(CheckedContinuation<Value, any Error>)
        case cancelled
        case delivered
    }

    private let state = Mutex(State.pending)

    /// Whether the caller has given up (the exchange need not start).
    var isCancelled: Bool {
        state.withLock { if case .cancelled = $0 { true } else { false } }
    }

    /// Parks the caller's continuation; resumes it at once when cancellation came first.
    func wait(_ continuation: CheckedContinuation<Value, any Error>) {
        let cancelledAlready = state.withLock { state in
            guard case .pending = state else { return true }
            state = .waiting(continuation)
            return false
        }
        if cancelledAlready { continuation.resume(throwing: CancellationError()) }
    }

    /// Delivers the answer, unless the caller already left.
    func deliver(_ result: Result<Value, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            guard case .waiting(let continuation) = state else { return nil }
            state = .delivered
            return continuation
        }
        continuation?.resume(with: result)
    }

    /// Resumes the caller with `CancellationError` (from its task's cancellation handler).
    func cancel() {
        let continuation = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            switch state {
            case .pending:
                state = .cancelled
                return nil
            case .waiting(let continuation):
                state = .cancelled
                return continuation
            case .cancelled, .delivered:
                return nil
            }
        }
        continuation?.resume(throwing: CancellationError())
    }
}
