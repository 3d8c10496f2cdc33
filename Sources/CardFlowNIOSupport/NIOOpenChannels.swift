import NIOCore
import Synchronization

/// A server's accepted connections that are still open, whether or not its accept loop has seen
/// them. NIO may accept a connection and run its child initializer after the loop has stopped
/// reading (the loop was cancelled, or the server channel is closing); such a connection would
/// otherwise stay open with nobody serving it, and its client would wait on it forever (a vpcd
/// card side instead of connecting again, a control-socket client instead of seeing the end).
///
/// Register each accepted channel from the child initializer with ``track(_:)`` and call
/// ``closeAll()`` once the server stops.
///
/// ```swift
/// let open = NIOOpenChannels()
/// let server = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0) { channel in
///     open.track(channel)
///     return channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel(wrappingChannelSynchronously: channel) }
/// }
/// defer { open.closeAll() }
/// ```
///
/// A lock, not an actor: the child initializer registers synchronously on an event loop.
public final class NIOOpenChannels: Sendable {
    private struct State {
        var closing = false
        var channels: [ObjectIdentifier: any Channel] = [:]
    }

    private let state = Mutex(State())

    /// An empty registry.
    public init() {}

    /// Keeps `channel` until it closes; closes it at once when ``closeAll()`` has been called.
    public func track(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let kept = state.withLock { state in
            guard !state.closing else { return false }
            state.channels[id] = channel
            return true
        }
        guard kept else {
            channel.close(promise: nil)
            return
        }
        channel.closeFuture.whenComplete { _ in
            _ = self.state.withLock { $0.channels.removeValue(forKey: id) }
        }
    }

    /// Closes every open connection, and every one accepted from now on.
    public func closeAll() {
        let channels = state.withLock { state in
            state.closing = true
            defer { state.channels = [:] }
            return Array(state.channels.values)
        }
        for channel in channels { channel.close(promise: nil) }
    }
}
