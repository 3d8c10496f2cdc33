import HTTPTypes
import Logging
import NIOCore
import NIOSSL
import WSClient

/// The WebSocket connection to the relay service: an outbound queue of client messages and an
/// inbound queue of validated service messages. The connection runs in its own task so that the
/// card side (which may wait for a lifted card) and the network side stay independent.
actor RelayLink {
    private let limits: RelayLimits
    private let outbound: AsyncStream<String>.Continuation
    private var inbound: [RelayServiceMessage] = []
    /// Set once the connection ended or the service broke the protocol; thrown after the queue.
    private var terminal: RelayError?
    private var connected = false
    private var waiter:
        (id: UInt64, continuation: CheckedContinuation<RelayServiceMessage, any Error>, timer: Task<Void, Never>)?
    private var nextWaiterID: UInt64 = 0
    private var connection: Task<Void, Never>?

    private init(limits: RelayLimits, outbound: AsyncStream<String>.Continuation) {
        self.limits = limits
        self.outbound = outbound
    }

    /// Checks the configuration and starts connecting; messages sent meanwhile are queued.
    static func open(_ configuration: RelayConfiguration, logger: Logger) async throws(RelayError) -> RelayLink {
        try configuration.validateURL()
        var tls: TLSConfiguration?
        if configuration.usesTLS {
            var client = TLSConfiguration.makeClientConfiguration()
            client.certificateVerification = .fullVerification
            if let path = configuration.caFile {
                do {
                    let certificates = try NIOSSLCertificate.fromPEMFile(path)
                    guard !certificates.isEmpty else {
                        throw RelayError.invalidCAFile(path: path, reason: "no certificate in it")
                    }
                    client.additionalTrustRoots = [.certificates(certificates)]
                } catch let error as RelayError {
                    throw error
                } catch {
                    throw .invalidCAFile(path: path, reason: String(describing: error))
                }
            }
            tls = client
        }
        var headers = HTTPFields()
        if let token = configuration.bearerToken { headers[.authorization] = "Bearer \(token)" }
        let limits = configuration.limits
        let wsConfiguration = WebSocketClientConfiguration(
            maxFrameSize: max(1 << 14, limits.maxMessageSize),
            additionalHeaders: headers, closeTimeout: .seconds(2))
        let (stream, continuation) = AsyncStream<String>.makeStream()
        let link = RelayLink(limits: limits, outbound: continuation)
        let url = configuration.url
        let task = Task {
            do {
                try await WebSocketClient.connect(
                    url: url, configuration: wsConfiguration, tlsConfiguration: tls,
                    logger: logger
                ) { inbound, outbound, _ in
                    await link.markConnected()
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await text in stream { try await outbound.write(.text(text)) }
                        }
                        group.addTask {
                            for try await message in inbound.messages(maxSize: limits.maxMessageSize) {
                                await link.receive(message)
                            }
                            await link.ended(nil)
                        }
                        // Whichever side ends first ends the conversation.
                        try await group.next()
                        group.cancelAll()
                    }
                }
                await link.ended(nil)
            } catch {
                await link.ended(error)
            }
        }
        await link.setConnection(task)
        return link
    }

    private func setConnection(_ task: Task<Void, Never>) {
        connection = task
    }

    private func markConnected() {
        connected = true
    }

    /// Queues a message for the service (dropped once the connection ended).
    func send(_ message: RelayClientMessage) {
        outbound.yield(message.encoded())
    }

    /// The next service message, in order; throws the connection's end or a protocol violation
    /// once the queue is empty, ``RelayError/idleTimeout(_:)`` when the service stays silent.
    /// A flood beyond ``RelayLimits/maxQueuedMessages`` is thrown at once, queue or not.
    func next() async throws -> RelayServiceMessage {
        if case .protocolViolation(.tooManyQueuedMessages)? = terminal {
            inbound.removeAll()
            throw terminal!
        }
        if !inbound.isEmpty { return inbound.removeFirst() }
        if let terminal { throw terminal }
        let id = nextWaiterID
        nextWaiterID += 1
        let idle = limits.idleTimeout
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<RelayServiceMessage, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                let timer = Task {
                    try? await Task.sleep(for: idle)
                    guard !Task.isCancelled else { return }
                    self.failWaiter(id, with: RelayError.idleTimeout(idle))
                }
                waiter = (id, continuation, timer)
            }
        } onCancel: {
            Task { await self.failWaiter(id, with: CancellationError()) }
        }
    }

    private func failWaiter(_ id: UInt64, with error: any Error) {
        guard let waiter, waiter.id == id else { return }
        self.waiter = nil
        waiter.timer.cancel()
        waiter.continuation.resume(throwing: error)
    }

    private func receive(_ message: WebSocketMessage) {
        guard terminal == nil else { return }
        switch message {
        case .binary:
            fail(.protocolViolation(.binaryFrame))
        case .text(let text):
            do {
                let parsed = try RelayServiceMessage(parsing: text, limits: limits)
                if let waiter {
                    self.waiter = nil
                    waiter.timer.cancel()
                    waiter.continuation.resume(returning: parsed)
                } else if inbound.count >= limits.maxQueuedMessages {
                    fail(.protocolViolation(.tooManyQueuedMessages(limit: limits.maxQueuedMessages)))
                } else {
                    inbound.append(parsed)
                }
            } catch {
                fail(.protocolViolation(error))
            }
        }
    }

    private func ended(_ error: (any Error)?) {
        guard terminal == nil else { return }
        if let error, !(error is CancellationError) {
            if !connected {
                fail(.connectionFailed(String(describing: error)))
            } else if "\(error)".contains("too large") || "\(error)".contains("TooLarge") {
                fail(.protocolViolation(.messageTooLarge))
            } else {
                fail(.connectionFailed("connection lost: \(error)"))
            }
        } else {
            fail(connected ? .connectionClosed : .connectionFailed("the service closed the connection"))
        }
    }

    private func fail(_ error: RelayError) {
        guard terminal == nil else { return }
        terminal = error
        if let waiter {
            self.waiter = nil
            waiter.timer.cancel()
            waiter.continuation.resume(throwing: error)
        }
    }

    /// Sends `final` (when given), closes the connection with the close handshake and waits for
    /// it, bounded so that a hung service cannot hold the reader.
    func close(final: RelayClientMessage?) async {
        if let final { outbound.yield(final.encoded()) }
        outbound.finish()
        guard let connection else { return }
        let timer = Task {
            try? await Task.sleep(for: .seconds(3))
            guard !Task.isCancelled else { return }
            connection.cancel()
        }
        await connection.value
        timer.cancel()
        if terminal == nil { terminal = .connectionClosed }
    }
}
