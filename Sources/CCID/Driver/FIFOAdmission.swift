/// First-come, first-served admission for an actor's exclusive sections, embedded as a value in
/// the actor that owns it (so admission costs no extra actor hop).
///
/// ```swift
/// actor Resource {
///     private var admission = FIFOAdmission()
///     func exclusive() async throws {
///         try await admission.enter(isolation: self)   // waits its turn; throws on cancellation
///         defer { admission.leave() }
///         ...
///     }
/// }
/// ```
public struct FIFOAdmission: Sendable {
    private var busy = false
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextID: UInt64 = 0

    public init() {}

    /// Number of callers waiting for their turn.
    public var waitingCount: Int { waiters.count }

    /// Whether someone holds the section.
    public var isBusy: Bool { busy }

    /// Takes the section now if it is free; otherwise returns a ticket to wait with.
    public mutating func tryEnter() -> UInt64? {
        if !busy {
            busy = true
            return nil
        }
        defer { nextID &+= 1 }
        return nextID
    }

    /// Queues a waiter for `ticket` (called inside the continuation closure).
    public mutating func enqueue(_ ticket: UInt64, _ continuation: CheckedContinuation<Void, any Error>) {
        waiters.append((ticket, continuation))
    }

    /// Leaves the section; ownership passes straight to the next waiter, so nobody overtakes it.
    public mutating func leave() {
        if waiters.isEmpty {
            busy = false
        } else {
            waiters.removeFirst().continuation.resume()
        }
    }

    /// Withdraws a waiter whose task was cancelled.
    public mutating func cancel(_ ticket: UInt64) {
        guard let index = waiters.firstIndex(where: { $0.id == ticket }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
    }
}
