import NIOCore
import Synchronization

/// Serves a server channel's connections until the calling task is cancelled, then stops
/// without dropping any.
///
/// Why not `for try await connection in inbound` in the cancelled task: cancellation ends that
/// iteration at once and drops the connections NIO accepted but the loop had not taken yet.
/// Each of them is a `NIOAsyncChannel` whose writer was never finished, and NIO stops the
/// process when such a channel is deinitialised ("Deinited NIOAsyncWriter without calling
/// finish()"): a client connecting while a server stops could crash it. Here the loop runs in a
/// task of its own; cancelling the caller closes the server channel instead, the inbound stream
/// then ends after the connections already handed over, each of those is closed through
/// `executeThenClose`, as are the ones NIO accepted but never handed over
/// (``NIOAcceptedConnections``); connections being served are cancelled, and the call returns
/// once all have ended.
///
/// ```swift
/// try await NIOAcceptLoop.run(server, accepted: accepted) { connection in
///     try? await connection.executeThenClose { inbound, outbound in … }
/// }
/// ```
public enum NIOAcceptLoop {
    /// Accepts until cancelled; `serve` runs for each connection in its own task and must end
    /// with the connection handed to `executeThenClose`.
    public static func run<Inbound: Sendable, Outbound: Sendable>(
        _ server: NIOAsyncChannel<NIOAsyncChannel<Inbound, Outbound>, Never>,
        accepted: NIOAcceptedConnections<Inbound, Outbound>,
        serve: @escaping @Sendable (NIOAsyncChannel<Inbound, Outbound>) async -> Void
    ) async throws {
        let stopping = Stopping()
        // Not a child task: the caller's cancellation must not reach the inbound iteration.
        let loop = Task {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { inbound in
                    for try await connection in inbound {
                        accepted.take(connection)
                        if stopping.isRaised {
                            try? await connection.executeThenClose { _, _ in }
                        } else {
                            group.addTask { await serve(connection) }
                        }
                    }
                }
                group.cancelAll()
            }
            await accepted.closeUntaken()
        }
        try await withTaskCancellationHandler {
            try await loop.value
        } onCancel: {
            stopping.raise()
            // The inbound stream ends after the connections already handed over; the loop then
            // cancels the ones it serves.
            server.channel.close(promise: nil)
        }
    }

    /// Set once the caller is cancelled.
    private final class Stopping: Sendable {
        private let raised = Atomic(false)

        var isRaised: Bool { raised.load(ordering: .acquiring) }

        func raise() { raised.store(true, ordering: .releasing) }
    }
}
