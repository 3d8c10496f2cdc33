import CardFlowDaemonControl

/// Fans daemon events out to any number of subscribers.
///
/// Each subscriber has its own bounded buffer that keeps the newest events, so a slow control
/// client loses old events instead of slowing the readers down.
public actor EventBus {
    private var subscribers: [UInt64: AsyncStream<DaemonEvent>.Continuation] = [:]
    private var nextID: UInt64 = 0
    private let bufferSize: Int

    public init(bufferSize: Int = 1024) {
        self.bufferSize = bufferSize
    }

    /// Events from now on, until the stream is dropped.
    ///
    /// - Parameter bufferSize: events kept for a slow subscriber (the bus's default when nil);
    ///   an in-process consumer that must not lose events under load asks for more.
    public func subscribe(bufferSize: Int? = nil) -> AsyncStream<DaemonEvent> {
        let size = max(1, bufferSize ?? self.bufferSize)
        let (stream, continuation) = AsyncStream<DaemonEvent>.makeStream(bufferingPolicy: .bufferingNewest(size))
        let id = nextID
        nextID += 1
        subscribers[id] = continuation
        continuation.onTermination = { _ in Task { await self.remove(id) } }
        return stream
    }

    public func publish(_ event: DaemonEvent) {
        for continuation in subscribers.values { continuation.yield(event) }
    }

    /// Ends every subscription (at shutdown).
    public func finish() {
        for continuation in subscribers.values { continuation.finish() }
        subscribers.removeAll()
    }

    public var subscriberCount: Int { subscribers.count }

    private func remove(_ id: UInt64) {
        subscribers[id] = nil
    }
}
