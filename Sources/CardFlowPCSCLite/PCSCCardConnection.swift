import CCardFlowPCSCLite
import Logging

/// A connection to the card in one reader (`SCARDHANDLE`), from ``PCSCContext/connect(reader:share:protocols:)``.
///
/// It runs on its context's thread (same executor), so its libpcsclite calls never block the
/// cooperative pool and the context is only ever used from one thread. Calls are serialised in
/// the order they are made.
///
/// ```swift
/// let card = try await context.connect(reader: name, share: .exclusive)
/// let answer = try await card.transmit([0x00, 0xB0, 0x00, 0x00, 0x00])   // data + SW1 SW2
/// try await card.disconnect(.leave)
/// ```
public actor PCSCCardConnection {
    /// The largest answer libpcsclite can return, `MAX_BUFFER_SIZE_EXTENDED` (a macro Swift
    /// cannot import): 4 + 3 + 65,536 + 3 + 2 bytes.
    public static let maximumResponseLength = 65_548
    /// The largest command APDU sent (the same extended-length bound).
    public static let maximumCommandLength = 65_548

    /// The reader's PC/SC name.
    public nonisolated let reader: String
    // Holding the context keeps its SCARDCONTEXT and its thread alive while the card is connected.
    private nonisolated let context: PCSCContext
    private var handle: SCARDHANDLE?
    /// The protocol pcscd negotiated (changes only by ``reconnect(share:protocols:initialization:)``).
    public private(set) var activeProtocol: PCSCProtocol
    // One receive buffer per connection, allocated once: 64 KiB per APDU would dominate small exchanges.
    private var receiveBuffer = [UInt8](repeating: 0, count: PCSCCardConnection.maximumResponseLength)

    public nonisolated var unownedExecutor: UnownedSerialExecutor { context.executor.asUnownedSerialExecutor() }

    init(context: PCSCContext, reader: String, handle: SCARDHANDLE, activeProtocol: PCSCProtocol) {
        self.context = context
        self.reader = reader
        self.handle = handle
        self.activeProtocol = activeProtocol
    }

    deinit {
        // On the PC/SC thread, ahead of the context's release (the queue is FIFO). Not an
        // isolated deinit: those break -O builds of importing modules (swiftc 6.3 "circular reference").
        if let handle { context.executor.submit { _ = SCardDisconnect(handle, UInt(SCARD_LEAVE_CARD)) } }
    }

    private var logger: Logger { context.logger }

    private func open(_ call: PCSCCall) throws(PCSCError) -> SCARDHANDLE {
        guard let handle else { throw .closed(call) }
        return handle
    }

    /// Sends a command APDU and returns the response APDU (data, then SW1 SW2), with
    /// `SCardTransmit` and the protocol control information of ``activeProtocol``.
    ///
    /// Throws ``PCSCError`` (`SCARD_W_REMOVED_CARD` when the card left, `SCARD_W_RESET_CARD` when
    /// another client reset it, …), or `CancellationError`.
    ///
    /// Cancellation: PC/SC cannot interrupt an `SCardTransmit`. A cancelled caller gets
    /// `CancellationError` at once; if the APDU had not left yet it is not sent, otherwise the
    /// exchange completes on the PC/SC thread and its answer is dropped. Either way the
    /// connection stays usable and in step with the card.
    public nonisolated func transmit(_ apdu: [UInt8]) async throws -> [UInt8] {
        try Task.checkCancellation()
        let reply = PCSCReply<[UInt8]>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                reply.wait(continuation)
                // Straight onto the PC/SC thread, not through an actor hop: the caller must be
                // able to leave before the exchange ends.
                context.executor.submit { [self] in
                    guard !reply.isCancelled else { return }
                    reply.deliver(Result { try self.assumeIsolated { try $0.exchange(apdu) } })
                }
            }
        } onCancel: {
            reply.cancel()
        }
    }

    /// One `SCardTransmit`, on the PC/SC thread.
    private func exchange(_ apdu: [UInt8]) throws(PCSCError) -> [UInt8] {
        let handle = try open(.transmit)
        guard apdu.count >= 4, apdu.count <= Self.maximumCommandLength else {
            throw .invalidArgument(
                .transmit, reason: "a command APDU of \(apdu.count) bytes (4…\(Self.maximumCommandLength))")
        }
        logger.trace(">>> \(pcscHex(apdu))", metadata: ["reader": "\(reader)"])
        var sendPCI = activeProtocol.sendPCI
        let capacity = receiveBuffer.count
        var length = DWORD(capacity)
        let returnValue = apdu.withUnsafeBufferPointer { command in
            receiveBuffer.withUnsafeMutableBufferPointer { answer in
                SCardTransmit(
                    handle, &sendPCI, command.baseAddress, DWORD(command.count), nil, answer.baseAddress, &length)
            }
        }
        try PCSCError.check(returnValue, .transmit)
        guard length <= capacity else { throw .responseTooLong(.transmit, length: Int(length), capacity: capacity) }
        let answer = Array(receiveBuffer[..<Int(length)])
        logger.trace("<<< \(pcscHex(answer))", metadata: ["reader": "\(reader)"])
        return answer
    }

    /// The card's ATR, protocol and state (`SCardStatus`).
    public func status() throws(PCSCError) -> PCSCCardStatus {
        let handle = try open(.status)
        var readerLength: DWORD = 0
        var state: DWORD = 0
        var activeProtocol: DWORD = 0
        var atr = [UInt8](repeating: 0, count: Int(MAX_ATR_SIZE))
        var atrLength = DWORD(atr.count)
        // No reader-name buffer: the name is known, and pcsc-lite only reports its length then.
        try PCSCError.check(SCardStatus(handle, nil, &readerLength, &state, &activeProtocol, &atr, &atrLength), .status)
        guard atrLength <= atr.count else {
            throw .responseTooLong(.status, length: Int(atrLength), capacity: atr.count)
        }
        guard let active = PCSCProtocol(rawValue: activeProtocol) else {
            throw .malformedReply(.status, reason: "active protocol \(activeProtocol) is neither T=0 nor T=1")
        }
        return PCSCCardStatus(atr: Array(atr.prefix(Int(atrLength))), activeProtocol: active, state: state)
    }

    /// Re-establishes the connection (`SCardReconnect`): `.reset` for a warm reset, `.unpower`
    /// for a cold one, `.leave` to only change the share mode or protocol. Returns the protocol
    /// now in use. After a removal, reconnect fails; connect again once the card is back.
    @discardableResult
    public func reconnect(
        share: PCSCShareMode = .shared, protocols: PCSCProtocols = .any,
        initialization: PCSCDisposition = .reset
    ) throws(PCSCError) -> PCSCProtocol {
        let handle = try open(.reconnect)
        var active: DWORD = 0
        try PCSCError.check(
            SCardReconnect(handle, share.rawValue, protocols.rawValue, initialization.rawValue, &active),
            .reconnect)
        guard let protocolInUse = PCSCProtocol(rawValue: active) else {
            throw .malformedReply(.reconnect, reason: "active protocol \(active) is neither T=0 nor T=1")
        }
        activeProtocol = protocolInUse
        logger.debug("PC/SC reconnected", metadata: ["reader": "\(reader)", "initialization": "\(initialization)"])
        return protocolInUse
    }

    /// Ends the connection (`SCardDisconnect`), leaving, resetting or powering down the card.
    /// Later calls throw ``PCSCError/closed(_:)``; disconnecting twice does nothing.
    public func disconnect(_ disposition: PCSCDisposition = .leave) throws(PCSCError) {
        guard let handle else { return }
        self.handle = nil
        try PCSCError.check(SCardDisconnect(handle, disposition.rawValue), .disconnect)
        logger.debug("PC/SC disconnected", metadata: ["reader": "\(reader)", "disposition": "\(disposition)"])
    }
}
