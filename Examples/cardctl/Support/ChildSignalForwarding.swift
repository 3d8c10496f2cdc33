import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Passes SIGINT and SIGTERM on to the child `simulate` runs.
///
/// A plain signal handler rather than a `DispatchSource`: libdispatch installs its handler
/// only when the manager thread gets round to registering the source, and until then a
/// SIGTERM reaching the main thread (the one thread that leaves signals unblocked, asleep in
/// `sigsuspend` after `dispatchMain()`) was lost — under load the child never heard of it.
/// `sigaction` takes effect before the child is spawned, and a signal that arrives before
/// the child's pid is known is kept and sent on as soon as it is.
enum ChildSignalForwarding {
    static let forwarded: [Int32] = [SIGINT, SIGTERM]
    static let child = Atomic<Int32>(0)
    static let earlySignal = Atomic<Int32>(0)
    /// True from ``install()`` to ``restore(_:)``: the forwarded signals belong to the child,
    /// even while it is being spawned (its pid not known yet).
    static let installed = Atomic<Bool>(false)

    /// The dispositions that were in force before ``install()``.
    struct SavedActions {
        fileprivate var actions: [(Int32, sigaction)]
    }

    /// Installs the forwarding handlers; undo with ``restore(_:)``.
    static func install() -> SavedActions {
        // Initialise the atomics here: a lazy global's first touch is not async-signal-safe.
        child.store(0, ordering: .sequentiallyConsistent)
        earlySignal.store(0, ordering: .sequentiallyConsistent)
        installed.store(true, ordering: .sequentiallyConsistent)
        var saved: [(Int32, sigaction)] = []
        for number in forwarded {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in ChildSignalForwarding.deliver(number) }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            var previous = sigaction()
            sigaction(number, &action, &previous)
            saved.append((number, previous))
        }
        return SavedActions(actions: saved)
    }

    /// Records the child; sends it a signal that arrived while it was being spawned.
    static func started(_ pid: pid_t) {
        child.store(pid, ordering: .sequentiallyConsistent)
        let early = earlySignal.exchange(0, ordering: .sequentiallyConsistent)
        if early != 0 { kill(pid, early) }
    }

    /// Forgets the child and puts the previous dispositions back.
    static func restore(_ saved: SavedActions) {
        installed.store(false, ordering: .sequentiallyConsistent)
        child.store(0, ordering: .sequentiallyConsistent)
        for (number, previous) in saved.actions {
            var action = previous
            sigaction(number, &action, nil)
        }
    }

    /// Sends `number` to the running child; false when there is none. Async-signal-safe:
    /// lock-free atomics and `kill` only.
    @discardableResult
    static func deliver(_ number: Int32) -> Bool {
        let pid = child.load(ordering: .sequentiallyConsistent)
        if pid > 0 {
            kill(pid, number)
            return true
        }
        earlySignal.store(number, ordering: .sequentiallyConsistent)
        return false
    }

    /// Whether `number` is the child's to handle: forwarding is installed (a child is running or
    /// being spawned) and the signal is one it forwards. A signal that arrives before the child's
    /// pid is known is kept by ``deliver(_:)`` and sent on from ``started(_:)``, so cardctl must
    /// not act on it itself (it cancelled and exited 130 while the child went on).
    static func owns(_ number: Int32) -> Bool {
        installed.load(ordering: .sequentiallyConsistent) && forwarded.contains(number)
    }
}
