/// A source of readers that come and go: USB readers with hotplug, or a fixed set (the
/// simulator). ``events()`` starts with an `added` event for every reader present now.
///
/// ```swift
/// for await event in registry.events() {
///     if case .added(let reader) = event { Task { try await provision(reader) } }
/// }
/// ```
public protocol ReaderRegistry: Sendable {
    /// The readers present now.
    func readers() async -> [Reader]
    /// Reader arrivals and departures, starting with the readers present now.
    func events() async -> AsyncStream<ReaderRegistryEvent>
}

/// A reader arrived or left.
public enum ReaderRegistryEvent: Sendable {
    case added(Reader)
    case removed(ReaderInfo)
}

extension ReaderRegistry {
    /// The first reader present, waiting for one to arrive when there is none yet.
    public func waitForReader() async throws -> Reader {
        if let first = await readers().first { return first }
        for await event in await events() {
            if case .added(let reader) = event { return reader }
        }
        try Task.checkCancellation()
        throw CancellationError()
    }
}

/// A registry whose readers are added and removed by its owner: the simulator, tests, or a
/// transport's hotplug handler.
public actor ManagedReaderRegistry: ReaderRegistry {
    private var current: [Reader] = []
    private var subscribers: [UInt64: AsyncStream<ReaderRegistryEvent>.Continuation] = [:]
    private var nextSubscriber: UInt64 = 0

    public init(readers: [Reader] = []) {
        current = readers
    }

    public func readers() -> [Reader] { current }

    public func events() -> AsyncStream<ReaderRegistryEvent> {
        let (stream, continuation) = AsyncStream<ReaderRegistryEvent>.makeStream()
        let id = nextSubscriber
        nextSubscriber += 1
        for reader in current { continuation.yield(.added(reader)) }
        subscribers[id] = continuation
        continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
        return stream
    }

    /// Adds a reader and tells every subscriber.
    public func add(_ reader: Reader) {
        current.append(reader)
        for continuation in subscribers.values { continuation.yield(.added(reader)) }
    }

    /// Removes the reader with this id and tells every subscriber.
    public func remove(id: String) {
        guard let index = current.firstIndex(where: { $0.info.id == id }) else { return }
        let reader = current.remove(at: index)
        for continuation in subscribers.values { continuation.yield(.removed(reader.info)) }
    }

    private func unsubscribe(_ id: UInt64) {
        subscribers[id] = nil
    }
}
