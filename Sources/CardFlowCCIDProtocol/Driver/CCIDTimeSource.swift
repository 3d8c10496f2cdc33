/// Where a ``CCIDDriver`` reads the time to hold each operation to
/// ``CCIDDriverConfiguration/exchangeTimeLimit``.
///
/// The driver only reads the time; the waiting itself is the transport's (its transfer
/// timeouts are shortened so that none outlives the limit). Tests pass the simulator's manual
/// clock, which CardFlow makes a time source, so a reader that stalls an exchange with endless
/// time extensions is tested without waiting.
public protocol CCIDTimeSource: Sendable {
    /// Time elapsed since an origin of the source's choosing; never goes backwards.
    func now() -> Duration

    /// Suspends until `deadline` (on this source's time line); throws on task cancellation.
    /// The driver uses it for the read timeout of a slot's exchange that waits while another
    /// slot's read is already on the bulk-IN pipe. The default waits with `Task.sleep` on the continuous clock.
    func suspend(until deadline: Duration) async throws

    /// Whether the source reads real (monotonic) time, so that a limit measured on another
    /// real-time clock holds the same on it. False unless a source says otherwise.
    var measuresRealTime: Bool { get }
}

extension CCIDTimeSource {
    /// Waits (`Task.sleep`, not a blocking sleep) for what is left until `deadline`.
    public func suspend(until deadline: Duration) async throws {
        let left = deadline - now()
        if left > .zero { try await Task.sleep(for: left) }
    }

    public var measuresRealTime: Bool { false }
}

/// The monotonic system clock, measured from when the value was made.
public struct CCIDMonotonicTime: CCIDTimeSource {
    private let origin = ContinuousClock.now

    public init() {}

    public func now() -> Duration { origin.duration(to: .now) }

    public var measuresRealTime: Bool { true }
}
