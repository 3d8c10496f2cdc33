/// The readers a ``ReaderSource`` opened, and how to let them go: the simulator saves its card's
/// state (`state=PATH`) when closed, a USB source releases libusb, so callers close what they
/// opened.
///
/// ```swift
/// let opened = try await selector.open(options: ReaderSourceOptions(logger: logger))
/// let reader = opened.readers[0]
/// …
/// try await opened.close()
/// ```
public struct OpenedReaders: Sendable {
    /// One CardFlow reader per slot, in the source's order: the readers there when the source
    /// opened them (none yet from a watching source, whose readers arrive through ``arrivals``).
    public let readers: [Reader]
    /// Readers as they come and go, when the source was asked to watch
    /// (``ReaderSourceOptions/watch``) and its readers can come and go (USB hotplug, pcscd's
    /// plug-and-play); nil when ``readers`` is all there will be.
    public let arrivals: (any ReaderRegistry)?
    /// The clock the readers' time runs on when it is not real time (a simulator on virtual
    /// time, `clock=virtual`): whoever measures them must use it.
    public let clock: (any ElapsedClock)?
    private let release: @Sendable () async throws -> Void

    /// - Parameters:
    ///   - readers: the readers opened.
    ///   - arrivals: where readers that come and go are announced, for a watching source.
    ///   - clock: the clock of their time, when it is not real time.
    ///   - close: what ``close()`` does.
    public init(
        readers: [Reader], arrivals: (any ReaderRegistry)? = nil, clock: (any ElapsedClock)? = nil,
        close: @escaping @Sendable () async throws -> Void = {}
    ) {
        self.readers = readers
        self.arrivals = arrivals
        self.clock = clock
        self.release = close
    }

    /// Releases what the readers hold (and saves what the source keeps).
    public func close() async throws {
        try await release()
    }
}
