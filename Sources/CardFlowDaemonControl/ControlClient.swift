import Foundation
import NIOCore
import NIOPosix

/// A client of the control socket, as `cardctl --socket` uses it: sends one request and reads the
/// answer lines that carry its id.
///
/// ```swift
/// let client = try await ControlClient.connect(path: "/run/cardd/cardd.sock")
/// let jobs = try await client.request(["op": "jobs", "limit": 10])
/// ```
public struct ControlClient: Sendable {
    private let channel: NIOAsyncChannel<ControlLine, ByteBuffer>
    private let inbox = LineInbox()

    private init(channel: NIOAsyncChannel<ControlLine, ByteBuffer>) {
        self.channel = channel
        // An inbound stream may be iterated once only: one reader task feeds every request.
        Task { [inbox] in
            do {
                for try await line in channel.inbound { await inbox.deliver(line) }
            } catch {}
            await inbox.close()
        }
    }

    /// Connects to the daemon. Fails with ``ControlClientError/unreachable(path:reason:)`` when
    /// no daemon listens there.
    ///
    /// - Parameters:
    ///   - path: the control socket.
    ///   - maximumLineLength: the longest answer line accepted (a job's events can be long).
    public static func connect(path: String, maximumLineLength: Int = 16 << 20) async throws -> ControlClient {
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(unixDomainSocketPath: path) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            ByteToMessageHandler(ControlLineDecoder(maximumLength: maximumLineLength)))
                        return try NIOAsyncChannel<ControlLine, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
            return ControlClient(channel: channel)
        } catch {
            throw ControlClientError.unreachable(path: path, reason: String(describing: error))
        }
    }

    /// Sends `request` (an `id` is added when missing) and returns every answer line until the one
    /// with `ok` (the final answer). `onLine` sees each line as it arrives (stream events).
    public func request(
        _ request: JSONValue,
        onLine: @Sendable (JSONValue) async -> Void = { _ in }
    ) async throws -> JSONValue {
        guard case .object(var fields) = request else {
            throw ControlClientError.badAnswer("request must be an object")
        }
        if fields["id"] == nil { fields["id"] = .number(1) }
        return try await send(line: JSONValue.object(fields).jsonLine(), onLine: onLine)
    }

    /// Sends raw text as one line (tests send garbage this way) and waits for the final answer.
    public func send(line: String, onLine: @Sendable (JSONValue) async -> Void = { _ in }) async throws -> JSONValue {
        var buffer = ByteBuffer(string: line)
        buffer.writeInteger(UInt8(ascii: "\n"))
        // A daemon that refuses the connection (too many at once) answers without waiting for a
        // request and closes: the write may then fail, but its answer says why, so read it.
        var writeError: (any Error)?
        do { try await channel.channel.writeAndFlush(buffer) } catch { writeError = error }
        while let line = await inbox.next() {
            guard case .line(let text) = line,
                let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            else {
                throw ControlClientError.badAnswer("the daemon sent a line that is not JSON")
            }
            await onLine(value)
            if value["ok"] != nil { return value }
        }
        if let writeError { throw writeError }
        throw ControlClientError.closed
    }

    /// Subscribes to the daemon's events (`events` op) and hands each to `onEvent` until the
    /// daemon closes the connection (``ControlClientError/closed``) or the task is cancelled.
    public func streamEvents(_ onEvent: @Sendable (JSONValue) async -> Void) async throws {
        let subscribed = try await request(["op": "events"])
        guard subscribed["ok"] == .bool(true) else {
            throw ControlClientError.badAnswer(subscribed["error"]?["message"]?.stringValue ?? subscribed.jsonLine())
        }
        while let line = await inbox.next() {
            try Task.checkCancellation()
            guard case .line(let text) = line,
                let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            else {
                throw ControlClientError.badAnswer("the daemon sent a line that is not JSON")
            }
            if let event = value["event"] { await onEvent(event) }
        }
        throw ControlClientError.closed
    }

    /// Closes the connection; a request still waiting ends with ``ControlClientError/closed``.
    public func close() async {
        try? await channel.channel.close()
    }
}

/// Talking to the daemon failed.
public enum ControlClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing listens at `path` (or the socket cannot be opened): `reason` says why.
    case unreachable(path: String, reason: String)
    /// The daemon closed the connection before the final answer.
    case closed
    /// The daemon sent something that is not a control-socket answer.
    case badAnswer(String)

    public var description: String {
        switch self {
        case .unreachable(let path, let reason):
            "cannot reach cardd at \(path): \(reason) (is cardd running? --socket PATH)"
        case .closed: "cardd closed the connection"
        case .badAnswer(let reason): "unexpected answer from cardd: \(reason)"
        }
    }
}

/// Lines read from the daemon, handed to whichever request waits for the next one.
private actor LineInbox {
    private var lines: [ControlLine] = []
    private var waiter: CheckedContinuation<ControlLine?, Never>?
    private var closed = false

    func deliver(_ line: ControlLine) {
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: line)
        } else {
            lines.append(line)
        }
    }

    func close() {
        closed = true
        waiter?.resume(returning: nil)
        waiter = nil
    }

    func next() async -> ControlLine? {
        if !lines.isEmpty { return lines.removeFirst() }
        if closed { return nil }
        return await withCheckedContinuation { waiter = $0 }
    }
}
