import NIOCore
import Synchronization

/// The connections a server accepted and wrapped in `NIOAsyncChannel`s that its accept loop has
/// not taken yet. NIO accepts, runs the child initializer (which creates the wrapper) and only
/// then hands the connection to the server's inbound stream; a connection accepted as the
/// server closes may never be handed over. NIO stops the process when such a wrapper is
/// deinitialised without its writer finished ("Deinited NIOAsyncWriter without calling
/// finish()"), so the wrappers are kept here until the loop takes them, and the server closes
/// the rest through `executeThenClose` when it stops (``closeUntaken()``).
///
/// ```swift
/// let accepted = NIOAcceptedConnections<ByteBuffer, ByteBuffer>()
/// let server = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0) { channel in
///     channel.eventLoop.makeCompletedFuture {
///         try accepted.admit(channel) { try NIOAsyncChannel(wrappingChannelSynchronously: channel) }
///     }
/// }
/// try await NIOAcceptLoop.run(server, accepted: accepted) { connection in … }
/// ```
///
/// A lock, not an actor: the child initializer runs synchronously on an event loop.
public final class NIOAcceptedConnections<Inbound: Sendable, Outbound: Sendable>: Sendable {
    /// The server stopped: no connection is admitted any more.
    public struct Stopped: Error {}

    private struct State: ~Copyable {
        var stopped = false
        var untaken: [ObjectIdentifier: NIOAsyncChannel<Inbound, Outbound>] = [:]
    }

    private let state = Mutex(State())

    /// No connection yet.
    public init() {}

    /// Wraps an accepted channel (call from the child initializer) and keeps the wrapper until
    /// the loop takes it.
    ///
    /// - Throws: ``Stopped`` once the server stopped (NIO then closes the channel), or what
    ///   `wrap` throws.
    public func admit(
        _ channel: any Channel, wrap: () throws -> NIOAsyncChannel<Inbound, Outbound>
    ) throws -> NIOAsyncChannel<Inbound, Outbound> {
        try state.withLock { state in
            guard !state.stopped else { throw Stopped() }
            let wrapped = try wrap()
            state.untaken[ObjectIdentifier(channel)] = wrapped
            return wrapped
        }
    }

    /// The accept loop took `connection`: it is the loop's to close now.
    public func take(_ connection: NIOAsyncChannel<Inbound, Outbound>) {
        _ = state.withLock { $0.untaken.removeValue(forKey: ObjectIdentifier(connection.channel)) }
    }

    /// Admits no more connections and closes every one the loop never took.
    public func closeUntaken() async {
        let untaken = state.withLock { state in
            state.stopped = true
            defer { state.untaken = [:] }
            return Array(state.untaken.values)
        }
        for connection in untaken {
            try? await connection.executeThenClose { _, _ in }
        }
    }
}
