import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How long cardctl waits after SIGINT, SIGTERM or SIGHUP before exiting anyway. Commands
/// cancel on these signals and normally end within the default 400 ms; `bench` still prints and
/// writes what it measured, and `export` saves the simulated card's `state=` file, which may
/// take longer (closing readers, writing a file), so they ask for more. A second signal exits
/// at once.
enum InterruptGrace {
    private static let extended = Atomic<Bool>(false)
    private static let interrupts = Atomic<Int>(0)
    private static let signal = Atomic<Int32>(0)

    /// Records the stopping signal (the first one counts).
    static func received(_ number: Int32) {
        _ = signal.compareExchange(expected: 0, desired: number, ordering: .relaxed)
    }

    /// The process's exit status: a cancelled run (130, as for Ctrl-C) stopped by SIGTERM or
    /// SIGHUP exits 128 + that signal, as shells and service managers expect.
    static func exitStatus(_ status: Int32) -> Int32 {
        let number = signal.load(ordering: .relaxed)
        guard status == ExitStatus.cancelled.rawValue, number != 0, number != SIGINT else { return status }
        return 128 + number
    }

    /// Asks for the longer grace (5 s) for the rest of the process.
    static func extend() { extended.store(true, ordering: .relaxed) }

    /// The grace after this signal (counted): nil to exit now.
    static func nextGraceMilliseconds() -> Int? {
        let count = interrupts.wrappingAdd(1, ordering: .relaxed).newValue
        if count > 1 { return nil }
        return extended.load(ordering: .relaxed) ? 5_000 : 400
    }
}
