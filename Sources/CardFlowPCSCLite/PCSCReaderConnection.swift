import CCardFlowPCSCLite
import Logging

/// A direct connection to a reader (`SCardConnect` with `SCARD_SHARE_DIRECT`), from
/// ``PCSCContext/connectDirect(reader:)``: for talking to the reader itself with `SCardControl`
/// (LEDs, buzzer, vendor escapes), whether or not a card is on it. pcscd neither powers nor
/// resets a card for it, and it shares the reader with other clients' card connections.
///
/// It runs on its context's thread, like ``PCSCCardConnection``.
///
/// ```swift
/// let reader = try await context.connectDirect(reader: name)
/// let answer = try await reader.control(.escape, [0xE0, 0x00, 0x00, 0x18, 0x00])
/// try await reader.disconnect()
/// ```
public actor PCSCReaderConnection {
    /// The largest answer taken from `SCardControl` (pcsc-lite's `MAX_BUFFER_SIZE_EXTENDED`).
    public static let maximumResponseLength = 65_548

    /// The reader's PC/SC name.
    public nonisolated let reader: String
    // Holding the context keeps its SCARDCONTEXT and its thread alive while connected.
    private nonisolated let context: PCSCContext
    private var handle: SCARDHANDLE?

    public nonisolated var unownedExecutor: UnownedSerialExecutor { context.executor.asUnownedSerialExecutor() }

    init(context: PCSCContext, reader: String, handle: SCARDHANDLE) {
        self.context = context
        self.reader = reader
        self.handle = handle
    }

    deinit {
        // On the PC/SC thread, ahead of the context's release (the queue is FIFO).
        if let handle { context.executor.submit { _ = SCardDisconnect(handle, UInt(SCARD_LEAVE_CARD)) } }
    }

    /// Sends `command` to the reader with `SCardControl` and returns the reader's answer.
    ///
    /// - Parameters:
    ///   - code: the control code (``PCSCControlCode/escape`` for a CCID escape command).
    ///   - command: the bytes to send.
    /// - Throws: ``PCSCError``: libccid answers a refused escape (not authorised in its
    ///   Info.plist, or failed by the reader) with `SCARD_E_NOT_TRANSACTED`; ``PCSCError/closed(_:)``
    ///   after ``disconnect()``.
    public func control(_ code: PCSCControlCode, _ command: [UInt8]) throws(PCSCError) -> [UInt8] {
        guard let handle else { throw .closed(.control) }
        context.logger.trace(
            ">>> control \(code) \(pcscHex(command))", metadata: ["reader": "\(reader)"])
        var answer = [UInt8](repeating: 0, count: Self.maximumResponseLength)
        var length: DWORD = 0
        let capacity = answer.count
        let returnValue = command.withUnsafeBufferPointer { sent in
            answer.withUnsafeMutableBufferPointer { received in
                SCardControl(
                    handle, DWORD(code.rawValue), sent.baseAddress, DWORD(sent.count), received.baseAddress,
                    DWORD(received.count), &length)
            }
        }
        try PCSCError.check(returnValue, .control)
        guard length <= capacity else { throw .responseTooLong(.control, length: Int(length), capacity: capacity) }
        let result = Array(answer.prefix(Int(length)))
        context.logger.trace("<<< control \(pcscHex(result))", metadata: ["reader": "\(reader)"])
        return result
    }

    /// Ends the connection (`SCardDisconnect`, leaving the card as it is). Later calls throw
    /// ``PCSCError/closed(_:)``; disconnecting twice does nothing.
    public func disconnect() throws(PCSCError) {
        guard let handle else { return }
        self.handle = nil
        try PCSCError.check(SCardDisconnect(handle, UInt(SCARD_LEAVE_CARD)), .disconnect)
    }
}

extension PCSCContext {
    /// Connects to `reader` itself (`SCardConnect` with `SCARD_SHARE_DIRECT` and no protocol),
    /// for ``PCSCReaderConnection/control(_:_:)``; no card needs to be in it.
    ///
    /// - Parameter reader: the reader's PC/SC name.
    /// - Throws: ``PCSCError``: `SCARD_E_UNKNOWN_READER` for a reader pcscd does not know,
    ///   `SCARD_E_SHARING_VIOLATION` while another client holds the reader exclusively.
    public func connectDirect(reader: String) throws(PCSCError) -> PCSCReaderConnection {
        let context = try open(.connect)
        let name = try PCSCContextHandle.readerName(reader, for: .connect)
        var handle: SCARDHANDLE = 0
        var active: DWORD = 0
        try PCSCError.check(
            SCardConnect(context, name, UInt(SCARD_SHARE_DIRECT), 0, &handle, &active), .connect)
        logger.debug("PC/SC connected directly", metadata: ["reader": "\(reader)"])
        return PCSCReaderConnection(context: self, reader: reader, handle: handle)
    }
}
