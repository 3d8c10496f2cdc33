import CardFlow

/// The readers a ``ReaderSource`` opened, and how to let them go: the simulator saves its card's
/// state (`state=PATH`) when closed, so callers close what they opened.
///
/// ```swift
/// let opened = try await source.open("sim:iso7816", options: ReaderSourceOptions(logger: logger))
/// let reader = opened.readers[0]
/// …
/// try await opened.close()
/// ```
public struct OpenedReaders: Sendable {
    /// One CardFlow reader per slot, in the source's order.
    public let readers: [Reader]
    /// The clock the readers' time runs on when it is not real time (a simulator on virtual
    /// time, `clock=virtual`): whoever measures them must use it.
    public let clock: (any ElapsedClock)?
    private let release: @Sendable () async throws -> Void

    /// - Parameters:
    ///   - readers: the readers opened.
    ///   - clock: the clock of their time, when it is not real time.
    ///   - close: what ``close()`` does.
    public init(
        readers: [Reader], clock: (any ElapsedClock)? = nil, close: @escaping @Sendable () async throws -> Void = {}
    ) {
        self.readers = readers
        self.clock = clock
        self.release = close
    }

    /// Releases what the readers hold (and saves what the source keeps).
    public func close() async throws {
        try await release()
    }
}
