import Dispatch
import Foundation
import Synchronization

/// A serial executor that runs every job on one thread it owns.
///
/// libpcsclite calls block (IPC with pcscd, and `SCardGetStatusChange` for as long as nothing
/// changes), and pcsc-lite wants one `SCARDCONTEXT` per thread. So each context lives on an
/// executor of this kind and the actors that use the context take it as their
/// `unownedExecutor`: their isolated code, and with it every libpcsclite call, runs on that
/// thread and never on Swift's cooperative pool.
///
/// The thread runs until ``shutdown()``; jobs enqueued after that are never run, so only the
/// owner of the last reference (the context's deinit, after queueing its release) calls it.
public final class PCSCThreadExecutor: SerialExecutor, Sendable {
    private enum Work: Sendable {
        case job(UnownedJob)
        case closure(@Sendable () -> Void)
        case stop
    }

    private struct Queue: ~Copyable {
        var items: [Work] = []
        var head = 0

        mutating func push(_ work: Work) { items.append(work) }

        mutating func pop() -> Work? {
            guard head < items.count else { return nil }
            let work = items[head]
            head += 1
            // Compact now and then rather than shifting on every pop.
            if head > 64, head * 2 > items.count {
                items.removeFirst(head)
                head = 0
            }
            return work
        }
    }

    /// A name for diagnostics (isolation failures name the thread).
    public let name: String
    // The queue is the one piece of state two threads touch: enqueuers and the owned thread.
    private let queue = Mutex(Queue())
    private let ready = DispatchSemaphore(value: 0)
    private let threadID = Mutex<pthread_t?>(nil)

    /// Starts the thread.
    public init(name: String) {
        self.name = name
        Thread { [self] in run() }.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        queue.withLock { $0.push(.job(unowned)) }
        ready.signal()
    }

    /// Runs `body` on the owned thread after the work already queued. For callers that must not
    /// wait for the thread (a transmit whose caller may leave early); `body` reaches actors on
    /// this executor with `assumeIsolated`.
    public func submit(_ body: @escaping @Sendable () -> Void) {
        queue.withLock { $0.push(.closure(body)) }
        ready.signal()
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets `assumeIsolated` succeed on the owned thread.
    public func checkIsolated() {
        let owned = threadID.withLock { $0 }
        precondition(
            owned.map { pthread_equal($0, pthread_self()) != 0 } ?? false,
            "not on the PC/SC thread \(name)")
    }

    /// Whether the caller runs on the owned thread.
    public var isCurrentThread: Bool {
        threadID.withLock { $0 }.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    /// Ends the thread once the jobs already queued have run.
    public func shutdown() {
        queue.withLock { $0.push(.stop) }
        ready.signal()
    }

    private func run() {
        threadID.withLock { $0 = pthread_self() }
        while true {
            ready.wait()
            guard let work = queue.withLock({ $0.pop() }) else { continue }
            switch work {
            case .job(let job): job.runSynchronously(on: asUnownedSerialExecutor())
            case .closure(let body): body()
            case .stop: return
            }
        }
    }
}
