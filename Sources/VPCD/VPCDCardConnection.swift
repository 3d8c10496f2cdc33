import Logging
import NIOCore

/// One card connected to a ``VPCDListener`` (a vicc, a phone app, a ``VPCDCardExporter``).
///
/// The protocol is strictly request/response, so exchanges run one at a time, in call order.
/// Every exchange that expects an answer has a time limit (``VPCDTimeouts``) and honours task
/// cancellation: a cancelled or timed-out call returns at once (`CancellationError`,
/// ``VPCDError/timedOut(_:after:)``), and the answer it was owed is remembered and discarded
/// when it comes, before the next exchange's command is sent (waiting at most
/// ``VPCDTimeouts/lateAnswer``, else the connection is closed).
///
/// When the card side disconnects or breaks the protocol, the pending call and every later one
/// fail with ``VPCDError/cardLost(_:reason:)``.
///
/// ```swift
/// let card = try await listener.waitForCard()
/// let atr = try await card.powerOn()
/// let answer = try await card.transmit([0x00, 0xA4, 0x04, 0x00, 0x07,
///                                       0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01])
/// try await card.powerOff()
/// ```
public actor VPCDCardConnection {
    /// Counts the listener's connections from 1, for log lines and tests.
    public nonisolated let number: Int
    /// The card side's address, as NIO prints it.
    public nonisolated let remoteAddress: String
    /// The time limits in force.
    public nonisolated let timeouts: VPCDTimeouts

    private let channel: any Channel
    private let outbound: NIOAsyncChannelOutboundWriter<[UInt8]>
    private let logger: Logger

    /// The error that ended the connection; nil while it is open.
    private var ended: VPCDCardLossReason?
    private var pending: Pending?
    /// Answers owed to exchanges that were cancelled or timed out, oldest first.
    private var owedAnswers = 0
    /// Set from just before a command that expects an answer is written until its waiter is in
    /// place: the actor is free while the write completes, and on loopback the answer can
    /// arrive before the waiter does. It is kept in ``earlyAnswer`` then.
    private var answerExpected = false
    private var earlyAnswer: [UInt8]?
    private var nextToken = 0
    /// Whether an exchange holds the connection; later ones queue here, in call order.
    private var busy = false
    private var queue: [(token: Int, continuation: CheckedContinuation<Void, any Error>)] = []

    private struct Pending {
        let token: Int
        let operation: VPCDOperation
        let continuation: CheckedContinuation<[UInt8], any Error>
        let timer: Task<Void, Never>
    }

    init(number: Int, channel: any Channel, outbound: NIOAsyncChannelOutboundWriter<[UInt8]>,
         timeouts: VPCDTimeouts, logger: Logger) {
        self.number = number
        self.remoteAddress = channel.remoteAddress?.description ?? "unknown"
        self.channel = channel
        self.outbound = outbound
        self.timeouts = timeouts
        var logger = logger
        logger[metadataKey: "vpcd.card"] = "\(number)"
        self.logger = logger
    }

    /// Whether the card side is still connected.
    public var isConnected: Bool { ended == nil }

    /// Why the connection ended; nil while it is open.
    public var lossReason: VPCDCardLossReason? { ended }

    /// Powers the card (`01`) and reads its ATR (`04`).
    ///
    /// - Parameter timeout: the limit for the ATR; ``VPCDTimeouts/answer`` when nil.
    /// - Returns: the ATR.
    public func powerOn(timeout: Duration? = nil) async throws -> [UInt8] {
        try await exchange(.powerOn, timeout: timeout) {
            try await send(.powerOn, for: .powerOn)
            try await send(.getATR, for: .powerOn)
            return try await awaitAnswer(for: .powerOn, timeout: timeout ?? timeouts.answer)
        }
    }

    /// Cuts the card's power (`00`; the card side does not answer).
    public func powerOff() async throws {
        try await exchange(.powerOff, timeout: nil) {
            try await send(.powerOff, for: .powerOff)
        }
    }

    /// Resets the card (`02`) and reads its ATR again (`04`).
    ///
    /// - Returns: the ATR.
    public func reset(timeout: Duration? = nil) async throws -> [UInt8] {
        try await exchange(.reset, timeout: timeout) {
            try await send(.reset, for: .reset)
            try await send(.getATR, for: .reset)
            return try await awaitAnswer(for: .reset, timeout: timeout ?? timeouts.answer)
        }
    }

    /// Reads the ATR (`04`) without changing the card's power.
    public func atr(timeout: Duration? = nil) async throws -> [UInt8] {
        try await exchange(.getATR, timeout: timeout) {
            try await send(.getATR, for: .getATR)
            return try await awaitAnswer(for: .getATR, timeout: timeout ?? timeouts.answer)
        }
    }

    /// Sends a command APDU and returns the response APDU (data and SW1 SW2).
    ///
    /// - Parameters:
    ///   - apdu: the command, 2…65,535 bytes (a 1-byte payload would be read as a control message).
    ///   - timeout: the limit for the answer; ``VPCDTimeouts/answer`` when nil.
    /// - Throws: ``VPCDError/notFramable(length:)``, ``VPCDError/timedOut(_:after:)``,
    ///   ``VPCDError/cardLost(_:reason:)``, `CancellationError`.
    public func transmit(_ apdu: [UInt8], timeout: Duration? = nil) async throws -> [UInt8] {
        guard apdu.count >= 2, apdu.count <= VPCDFraming.maximumFramablePayload else {
            throw VPCDError.notFramable(length: apdu.count)
        }
        return try await exchange(.transmit, timeout: timeout) {
            try await send(.command(apdu), for: .transmit)
            return try await awaitAnswer(for: .transmit, timeout: timeout ?? timeouts.answer)
        }
    }

    /// Disconnects the card side. Pending and later calls fail with ``VPCDError/cardLost(_:reason:)``.
    public func close() {
        end(.closedLocally)
    }

    // MARK: - Called by the listener's connection task

    /// One message from the card side.
    func received(_ payload: [UInt8]) {
        if let pending {
            self.pending = nil
            pending.timer.cancel()
            logger.trace("<<< vpcd \(pending.operation) answer \(VPCDHex.string(payload))")
            pending.continuation.resume(returning: payload)
        } else if answerExpected, earlyAnswer == nil {
            earlyAnswer = payload
        } else if owedAnswers > 0 {
            // The answer of a cancelled or timed-out exchange, arriving between exchanges.
            owedAnswers -= 1
            logger.debug("vpcd: discarded a late answer", metadata: ["length": "\(payload.count)"])
        } else {
            logger.warning("vpcd: card side sent a message no command asked for; disconnecting",
                           metadata: ["length": "\(payload.count)"])
            end(.protocolViolation(.unsolicitedMessage(length: payload.count)))
        }
    }

    /// The connection ended (the card side closed it, or its bytes broke the protocol).
    func connectionEnded(_ reason: VPCDCardLossReason) {
        end(reason)
    }

    // MARK: - Exchanges

    /// Runs `body` holding the connection: waits for earlier exchanges, then for any answer
    /// still owed to an abandoned one.
    private func exchange<Result: Sendable>(_ operation: VPCDOperation, timeout: Duration?,
                                            _ body: () async throws -> Result) async throws -> Result {
        try await acquireTurn()
        defer { releaseTurn() }
        try Task.checkCancellation()
        try checkOpen(operation)
        try await settleOwedAnswers(for: operation)
        return try await body()
    }

    private func checkOpen(_ operation: VPCDOperation) throws {
        if let ended { throw VPCDError.cardLost(operation, reason: ended) }
    }

    private func send(_ message: VPCDMessage, for operation: VPCDOperation) async throws {
        try checkOpen(operation)
        if case .command(let apdu) = message {
            logger.trace(">>> vpcd transmit \(VPCDHex.string(apdu))")
        } else {
            logger.trace(">>> vpcd control \(VPCDHex.string(message.payload)) (\(operation))")
        }
        if message.expectsAnswer { answerExpected = true }
        do {
            try await outbound.write(message.payload)
        } catch is CancellationError {
            // It may have gone out: count its answer as owed unless it is here already (if none
            // comes, the next exchange closes the connection after lateAnswer: bounded either way).
            if message.expectsAnswer {
                if earlyAnswer == nil { owedAnswers += 1 }
                answerExpected = false
                earlyAnswer = nil
            }
            throw CancellationError()
        } catch {
            if let ended { throw VPCDError.cardLost(operation, reason: ended) }
            let reason = VPCDCardLossReason.writeFailed("\(error)")
            end(reason)
            throw VPCDError.cardLost(operation, reason: reason)
        }
    }

    /// Waits for the next message from the card side, or gives up at the time limit or on
    /// cancellation, leaving the answer owed.
    private func awaitAnswer(for operation: VPCDOperation, timeout: Duration) async throws -> [UInt8] {
        nextToken += 1
        let token = nextToken
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                answerExpected = false
                if let ended {
                    continuation.resume(throwing: VPCDError.cardLost(operation, reason: ended))
                } else if let answer = earlyAnswer {
                    earlyAnswer = nil
                    logger.trace("<<< vpcd \(operation) answer \(VPCDHex.string(answer))")
                    continuation.resume(returning: answer)
                } else if Task.isCancelled {
                    owedAnswers += 1
                    continuation.resume(throwing: CancellationError())
                } else {
                    let timer = Task { await self.expire(token, operation: operation, after: timeout) }
                    pending = Pending(token: token, operation: operation, continuation: continuation, timer: timer)
                }
            }
        } onCancel: {
            Task { await self.abandon(token, error: CancellationError()) }
        }
    }

    private func expire(_ token: Int, operation: VPCDOperation, after timeout: Duration) async {
        do {
            try await Task.sleep(for: timeout)
        } catch {
            return  // the answer came
        }
        abandon(token, error: VPCDError.timedOut(operation, after: timeout))
    }

    /// Gives up waiting for `token`'s answer; the card side still owes it.
    private func abandon(_ token: Int, error: any Error) {
        guard let pending, pending.token == token else { return }
        self.pending = nil
        pending.timer.cancel()
        owedAnswers += 1
        logger.debug("vpcd: gave up waiting for an answer", metadata: [
            "operation": "\(pending.operation)", "error": "\(error)",
        ])
        pending.continuation.resume(throwing: error)
    }

    /// Receives and drops the answers owed to abandoned exchanges, so that the next answer is
    /// the next command's. A cancellation here leaves them owed.
    private func settleOwedAnswers(for operation: VPCDOperation) async throws {
        while owedAnswers > 0 {
            owedAnswers -= 1
            answerExpected = true
            do {
                _ = try await awaitAnswer(for: .settleLateAnswer, timeout: timeouts.lateAnswer)
                logger.debug("vpcd: discarded a late answer before \(operation)")
            } catch VPCDError.timedOut {
                logger.warning("vpcd: the answer owed to an abandoned command did not come; disconnecting",
                               metadata: ["waited": "\(timeouts.lateAnswer)"])
                end(.lateAnswerMissing)
                throw VPCDError.cardLost(operation, reason: .lateAnswerMissing)
            } catch VPCDError.cardLost(_, let reason) {
                throw VPCDError.cardLost(operation, reason: reason)
            }
        }
    }

    /// Marks the connection ended (once), fails the pending call and closes the socket.
    private func end(_ reason: VPCDCardLossReason) {
        guard ended == nil else { return }
        ended = reason
        answerExpected = false
        earlyAnswer = nil
        if let pending {
            self.pending = nil
            pending.timer.cancel()
            pending.continuation.resume(throwing: VPCDError.cardLost(pending.operation, reason: reason))
        }
        channel.close(promise: nil)
    }

    // MARK: - One exchange at a time

    private func acquireTurn() async throws {
        guard busy else {
            busy = true
            return
        }
        nextToken += 1
        let token = nextToken
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                queue.append((token, continuation))
            }
        } onCancel: {
            Task { await self.leaveQueue(token) }
        }
        // releaseTurn handed the connection over with busy still set.
    }

    private func leaveQueue(_ token: Int) {
        guard let index = queue.firstIndex(where: { $0.token == token }) else { return }
        queue.remove(at: index).continuation.resume(throwing: CancellationError())
    }

    private func releaseTurn() {
        if queue.isEmpty {
            busy = false
        } else {
            queue.removeFirst().continuation.resume()
        }
    }
}
