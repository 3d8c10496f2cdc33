import NIOCore
import Synchronization

/// The listener's accepted connections that are still open, whether or not its accept loop has
/// seen them: NIO may accept a connection and run its initializer after the loop has stopped
/// reading, and such a connection would otherwise stay open with nobody serving it (a card
/// side such as ``VPCDCardExporter`` would wait on it instead of connecting again).
///
/// A lock, not an actor: the channel initializer registers synchronously on an event loop.
final class VPCDOpenConnections: Sendable {
    private struct State {
        var closing = false
        var channels: [ObjectIdentifier: any Channel] = [:]
    }

    private let state = Mutex(State())

    /// Keeps `channel` until it closes; closes it at once when ``closeAll()`` has been called.
    func track(_ channel: any Channel) {
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
    func closeAll() {
        let channels = state.withLock { state in
            state.closing = true
            defer { state.channels = [:] }
            return Array(state.channels.values)
        }
        for channel in channels { channel.close(promise: nil) }
    }
}
