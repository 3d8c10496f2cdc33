import CCardFlowPCSCLite
import Dispatch
import Foundation
import Synchronization

/// Ends one blocking `SCardGetStatusChange` with `SCardCancel` when its task is cancelled.
///
/// The waiting thread is blocked inside libpcsclite and cannot await, so the handshake with the
/// cancelling thread is a small mutex-guarded phase rather than an actor. pcsc-lite ignores an
/// `SCardCancel` that lands before the wait has registered as cancellable, so the canceller
/// repeats it (every 20 ms, on a thread of its own: it is IPC) until the wait has returned.
final class PCSCWaitCancellation: Sendable {
    private enum Phase { case idle, waiting, cancelled, finished }

    private let context: SCARDCONTEXT
    private let phase = Mutex(Phase.idle)
    private let ended = DispatchSemaphore(value: 0)

    init(context: SCARDCONTEXT) { self.context = context }

    /// Runs the blocking `wait` unless the task was cancelled first; throws `CancellationError`
    /// when it was cancelled before or during the wait (whatever the wait returned).
    func run<Result>(_ wait: () -> Result) throws(CancellationError) -> Result {
        let start = phase.withLock { phase in
            guard phase == .idle else { return false }
            phase = .waiting
            return true
        }
        guard start else { throw CancellationError() }
        let result = wait()
        let cancelled = phase.withLock { phase in
            defer { phase = .finished }
            return phase == .cancelled
        }
        if cancelled {
            ended.signal()
            throw CancellationError()
        }
        return result
    }

    /// Called from the task's cancellation handler, on whatever thread cancels.
    func cancel() {
        let waiting = phase.withLock { phase in
            defer { if phase == .idle || phase == .waiting { phase = .cancelled } }
            return phase == .waiting
        }
        guard waiting else { return }
        let context = context
        let ended = ended
        Thread.detachNewThread {
            repeat {
                _ = SCardCancel(context)
            } while ended.wait(timeout: .now() + .milliseconds(20)) == .timedOut
        }
    }
}
