/// First-come, first-served admission for an actor's exclusive sections, embedded as a value in
/// the actor that owns it (so admission costs no extra actor hop). With a capacity above one it
/// admits that many holders at once (a CCID device's bMaxCCIDBusySlots), still in arrival order.
///
/// ```swift
/// actor Resource {
///     private var admission = FIFOAdmission()
///     func exclusive() async throws {
///         if let ticket = admission.tryEnter() {        // waits its turn; throws on cancellation
///             try await FIFOAdmission.wait(
///                 enqueue: { admission.enqueue(ticket, $0) }, cancel: { await self.withdraw(ticket) })
///         }
///         defer { admission.leave() }
///         ...
///     }
/// }
/// ```
public struct FIFOAdmission: Sendable {
    /// How many may hold the section at once.
    public let capacity: Int
    private var holders = 0
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextID: UInt64 = 0

    /// One holder at a time.
    public init() {
        capacity = 1
    }

    /// Up to `capacity` holders at once (at least one).
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Number of callers waiting for their turn.
    public var waitingCount: Int { waiters.count }

    /// Whether someone holds the section.
    public var isBusy: Bool { holders > 0 }

    /// Number of callers holding the section now.
    public var holderCount: Int { holders }

    /// Takes the section now if it has room; otherwise returns a ticket to wait with.
    public mutating func tryEnter() -> UInt64? {
        if holders < capacity {
            holders += 1
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
            holders = max(0, holders - 1)
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
