import CardFlow
import CardFlowAsyncAdmission
import Logging

/// The uFR COM protocol over a ``UFRLink``: one command at a time, in the order callers ask.
///
/// An exchange is the command packet, the reader's ACK and the CMD_EXT for an extended command,
/// then the RSP or ERR. Answers that do not belong to the command (an RSP for another code, an
/// ACK out of turn) are dropped as stale. On a datagram link a read-only command
/// (``UFRCommandCode/readOnly``) without CMD_EXT is sent again when no answer comes within
/// ``UFRTiming/datagramAttemptTimeout``; any other command is sent once, so a card command is
/// never run twice. Bytes left from an earlier command are dropped before each command.
///
/// A caller cancelled mid-exchange gets `CancellationError` at once, but the exchange itself
/// runs to its end (its answer or its timeout) before the next command goes out: the reader is
/// never left holding half a command, and the late answer is never taken for the next one's.
///
/// ```swift
/// let connection = UFRConnection(link: try await UFRNIOLink.tcp(host: "127.0.0.1", port: 8881), logger: logger)
/// let reply = try await connection.execute(try UFRCommand(.getCardIDEx))
/// ```
public actor UFRConnection {
    /// The link the protocol runs over.
    public nonisolated let link: any UFRLink
    /// The waits.
    public nonisolated let timing: UFRTiming
    private let clock: any ElapsedClock
    private let logger: Logger
    private var decoder = UFRReplyDecoder()
    private var frames: [Result<UFRIncomingFrame, UFRFrameError>] = []
    private var closedReason: String??
    private var arrivalWaiter: (id: UInt64, continuation: CheckedContinuation<Void, Never>)?
    private var callers: [UInt64: CheckedContinuation<Exchanged, any Error>] = [:]
    private var admission = FIFOAdmission()
    private var nextID: UInt64 = 0
    private var pump: Task<Void, Never>?

    /// - Parameters:
    ///   - link: the link to the reader (the connection reads its ``UFRLink/incoming``).
    ///   - timing: the waits.
    ///   - clock: the clock the waits run on (a ``/CardFlow/ManualClock`` in tests).
    ///   - logger: frames are logged at trace.
    public init(
        link: any UFRLink, timing: UFRTiming = UFRTiming(), clock: any ElapsedClock = RealClock(), logger: Logger
    ) {
        self.link = link
        self.timing = timing
        self.clock = clock
        self.logger = logger
    }

    /// Sends a command and returns the reader's answer: an RSP for the command or an ERR.
    ///
    /// - Parameters:
    ///   - command: the command.
    ///   - timeout: the wait for the answer; ``UFRTiming/replyTimeout`` when nil.
    /// - Throws: ``UFRError`` (time-out, corrupt answer, closed link), or `CancellationError`.
    public func execute(_ command: UFRCommand, timeout: Duration? = nil) async throws -> UFRReply {
        try await executeCollectingStreamedData(command, timeout: timeout).reply
    }

    /// Sends a command whose reply streams data before its RSP (DESFIRE_READ_FROM_STD_FILE,
    /// ufr.md §2.3) and returns the RSP or ERR with the streamed data, in order.
    ///
    /// - Parameters:
    ///   - command: the command.
    ///   - timeout: the wait for the whole answer; ``UFRTiming/replyTimeout`` when nil.
    /// - Throws: as ``execute(_:timeout:)``.
    public func executeCollectingStreamedData(_ command: UFRCommand, timeout: Duration? = nil) async throws -> (
        reply: UFRReply, streamedData: [UInt8]
    ) {
        let exchanged = try await run(command, timeout: timeout)
        return (exchanged.reply, exchanged.streamedData)
    }

    /// The most streamed data one reply may bring (a read's 16-bit length).
    static let maximumStreamedDataCount = 0xFFFF

    /// What one exchange brought back.
    private struct Exchanged: Sendable {
        var reply: UFRReply
        var streamedData: [UInt8]
    }

    private func run(_ command: UFRCommand, timeout: Duration?) async throws -> Exchanged {
        startPumpIfNeeded()
        try await enterAdmission()
        let id = takeID()
        Task { await self.runExchange(id: id, command: command, timeout: timeout ?? timing.replyTimeout) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Exchanged, any Error>) in
                callers[id] = continuation
            }
        } onCancel: {
            Task { await self.abandon(id) }
        }
    }

    /// Closes the link; commands after this fail with ``UFRError/linkClosed(endpoint:reason:)``.
    public func close() async {
        await link.close()
        received(.closed(nil))
    }

    // MARK: exchange

    private func runExchange(id: UInt64, command: UFRCommand, timeout: Duration) async {
        let result: Result<Exchanged, any Error>
        decoder.acceptsStreamedData = command.code == .desfireReadStandardFile
        do {
            result = .success(try await exchange(command, timeout: timeout))
        } catch {
            result = .failure(error)
        }
        decoder.acceptsStreamedData = false
        admission.leave()
        if let caller = callers.removeValue(forKey: id) {
            caller.resume(with: result)
        } else {
            logger.debug("uFR exchange finished after its caller left", metadata: ["command": "\(command.code)"])
        }
    }

    private func exchange(_ command: UFRCommand, timeout: Duration) async throws -> Exchanged {
        let retryable = link.isDatagram && !command.isExtended && UFRCommandCode.readOnly.contains(command.code)
        let attempts = retryable ? timing.datagramAttempts : 1
        let attemptTimeout = retryable ? min(timing.datagramAttemptTimeout, timeout) : timeout
        for attempt in 1...attempts {
            if link.isDatagram { dropPending() }
            try throwIfClosed()
            try await send(command.packet.bytes, command)
            let deadline = clock.now() + attemptTimeout
            do {
                if command.isExtended {
                    // On a datagram link the ACK may be lost while the reader waits for the
                    // CMD_EXT: past the datagram wait the CMD_EXT goes anyway (the command
                    // packet itself is never sent twice, so the card command runs at most once).
                    let acknowledgementDeadline =
                        link.isDatagram ? min(deadline, clock.now() + timing.datagramAttemptTimeout) : deadline
                    do {
                        if let refusal = try await awaitAcknowledgement(
                            of: command, until: acknowledgementDeadline, timeout: attemptTimeout)
                        {
                            return Exchanged(reply: refusal, streamedData: [])
                        }
                    } catch UFRError.timedOut where link.isDatagram && clock.now() < deadline {
                        logger.debug("uFR: no ACK on the datagram link; sending the CMD_EXT anyway")
                    }
                    try await send(command.extensionBytes, command)
                }
                return try await awaitReply(to: command, until: deadline, timeout: attemptTimeout)
            } catch let error as UFRError where retryable && attempt < attempts {
                logger.debug(
                    "uFR datagram attempt failed; sending again",
                    metadata: ["command": "\(command.code)", "attempt": "\(attempt)", "error": "\(error)"])
            }
        }
        throw UFRError.timedOut(command.code, after: attemptTimeout * attempts)
    }

    /// Waits for the ACK of an extended command: nil when it came, the ERR when the reader refused.
    private func awaitAcknowledgement(
        of command: UFRCommand, until deadline: Duration, timeout: Duration
    ) async throws -> UFRReply? {
        while true {
            switch try await nextFrame(for: command, until: deadline, timeout: timeout) {
            case .acknowledgement(let code) where code == command.code: return nil
            case .reply(let reply) where reply.status != nil: return reply
            case let stale: logger.debug("uFR: dropped a stale frame", metadata: ["frame": "\(stale)"])
            }
        }
    }

    private func awaitReply(to command: UFRCommand, until deadline: Duration, timeout: Duration) async throws
        -> Exchanged
    {
        var streamed: [UInt8] = []
        while true {
            let frame = try await nextFrame(for: command, until: deadline, timeout: timeout)
            switch frame {
            case .reply(let reply):
                if case .response(let code) = reply.outcome, code != command.code {
                    logger.debug("uFR: dropped a stale frame", metadata: ["frame": "\(frame)"])
                    continue
                }
                return Exchanged(reply: reply, streamedData: streamed)
            case .streamedData(let data):
                // A read asks for at most 65,535 bytes (its length is 16 bits): more is a broken reader.
                guard streamed.count + data.count <= Self.maximumStreamedDataCount else {
                    throw UFRError.unexpectedReply(command.code, "more than 65,535 bytes of streamed data")
                }
                streamed += data
            case .acknowledgement:
                logger.debug("uFR: dropped a stale frame", metadata: ["frame": "\(frame)"])
            }
        }
    }

    private func send(_ bytes: [UInt8], _ command: UFRCommand) async throws {
        logger.trace("uFR >>> \(bytes.spacedHexString)", metadata: ["command": "\(command.code)"])
        do {
            try await link.send(bytes)
        } catch {
            throw UFRError.sendFailed(endpoint: link.endpoint, reason: "\(error)")
        }
    }

    // MARK: frames

    private func nextFrame(
        for command: UFRCommand, until deadline: Duration, timeout: Duration
    ) async throws -> UFRIncomingFrame {
        while frames.isEmpty {
            try throwIfClosed()
            guard clock.now() < deadline else { throw UFRError.timedOut(command.code, after: timeout) }
            await awaitArrival(until: deadline)
        }
        switch frames.removeFirst() {
        case .success(let frame):
            logger.trace("uFR <<< \(frame)")
            return frame
        case .failure(let error):
            throw UFRError.corruptReply(command.code, error)
        }
    }

    private func throwIfClosed() throws {
        if let reason = closedReason { throw UFRError.linkClosed(endpoint: link.endpoint, reason: reason) }
    }

    private func dropPending() {
        if !frames.isEmpty || decoder.bufferedByteCount > 0 {
            logger.debug("uFR: dropped bytes left from an earlier command", metadata: ["frames": "\(frames.count)"])
        }
        frames.removeAll()
        decoder.reset()
    }

    /// Returns when a frame arrives, the link closes or `deadline` passes (no polling: a timer
    /// on the clock wakes it).
    private func awaitArrival(until deadline: Duration) async {
        let id = takeID()
        let clock = self.clock
        let timer = Task {
            guard (try? await clock.suspend(until: deadline)) != nil else { return }
            self.wakeArrival(id)
        }
        defer { timer.cancel() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if !frames.isEmpty || closedReason != nil {
                continuation.resume()
            } else {
                arrivalWaiter = (id, continuation)
            }
        }
    }

    private func wakeArrival(_ id: UInt64) {
        guard let waiter = arrivalWaiter, waiter.id == id else { return }
        arrivalWaiter = nil
        waiter.continuation.resume()
    }

    private func received(_ event: UFRLinkEvent) {
        switch event {
        case .bytes(let bytes):
            decoder.append(bytes)
            while true {
                do {
                    guard let frame = try decoder.next() else { break }
                    frames.append(.success(frame))
                } catch {
                    frames.append(.failure(error))
                }
            }
        case .closed(let reason):
            if closedReason == nil { closedReason = .some(reason) }
        }
        if let waiter = arrivalWaiter {
            arrivalWaiter = nil
            waiter.continuation.resume()
        }
    }

    private func startPumpIfNeeded() {
        guard pump == nil else { return }
        let incoming = link.incoming
        pump = Task {
            for await event in incoming { self.received(event) }
            self.received(.closed("the link ended"))
        }
    }

    // MARK: admission

    private func takeID() -> UInt64 {
        defer { nextID &+= 1 }
        return nextID
    }

    private func enterAdmission() async throws {
        guard let ticket = admission.tryEnter() else { return }
        try await FIFOAdmission.wait(
            enqueue: { admission.enqueue(ticket, $0) }, cancel: { await self.cancelAdmission(ticket) })
    }

    private func cancelAdmission(_ ticket: UInt64) {
        admission.cancel(ticket)
    }

    private func abandon(_ id: UInt64) {
        callers.removeValue(forKey: id)?.resume(throwing: CancellationError())
    }

    deinit {
        pump?.cancel()
    }
}
