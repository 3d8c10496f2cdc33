import Synchronization

/// How long cardctl waits after SIGINT before exiting anyway. Commands cancel on SIGINT and
/// normally end within the default 400 ms; `bench` still prints and writes what it measured
/// after Ctrl-C, which may take longer (closing readers, writing a report), so it asks for
/// more. A second SIGINT exits at once.
enum InterruptGrace {
    private static let extended = Atomic<Bool>(false)
    private static let interrupts = Atomic<Int>(0)

    /// Asks for the longer grace (5 s) for the rest of the process.
    static func extend() { extended.store(true, ordering: .relaxed) }

    /// The grace after this SIGINT (counted): nil to exit now.
    static func nextGraceMilliseconds() -> Int? {
        let count = interrupts.wrappingAdd(1, ordering: .relaxed).newValue
        if count > 1 { return nil }
        return extended.load(ordering: .relaxed) ? 5_000 : 400
    }
}
