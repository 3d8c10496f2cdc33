/// What went wrong in a PC/SC operation: the code libpcsclite returned, or a reply this module
/// refused to trust, always with the call it concerns.
///
/// ```swift
/// do {
///     let answer = try await connection.transmit([0x00, 0xA4, 0x04, 0x00, 0x00])
/// } catch let error as PCSCError where error.code == .removedCard {
///     // the card left: wait for it (PCSCReaderMonitor) and connect again
/// }
/// ```
public enum PCSCError: Error, Hashable, Sendable, CustomStringConvertible {
    /// libpcsclite returned `code` from `call`.
    case failed(PCSCCall, PCSCErrorCode)
    /// `call` answered with more bytes than the buffer holds (`length` is what it claimed).
    case responseTooLong(PCSCCall, length: Int, capacity: Int)
    /// `call` filled its buffer with something that breaks its contract, such as a reader list
    /// that is not double-NUL terminated or a name that is not UTF-8.
    case malformedReply(PCSCCall, reason: String)
    /// The argument cannot be passed to `call` (an empty or oversized APDU, a reader name with
    /// a NUL byte or longer than pcsc-lite accepts).
    case invalidArgument(PCSCCall, reason: String)
    /// The connection was disconnected (or the context released) before `call`.
    case closed(PCSCCall)

    /// The libpcsclite function concerned.
    public var call: PCSCCall {
        switch self {
        case .failed(let call, _), .responseTooLong(let call, _, _), .malformedReply(let call, _),
            .invalidArgument(let call, _), .closed(let call):
            call
        }
    }

    /// The PC/SC code, for errors libpcsclite returned.
    public var code: PCSCErrorCode? {
        if case .failed(_, let code) = self { return code }
        return nil
    }

    public var description: String {
        switch self {
        case .failed(let call, let code):
            "\(call) failed: \(code)"
        case .responseTooLong(let call, let length, let capacity):
            "\(call) answered \(length) bytes, more than the \(capacity)-byte buffer"
        case .malformedReply(let call, let reason):
            "\(call) gave a malformed reply: \(reason)"
        case .invalidArgument(let call, let reason):
            "\(call): invalid argument: \(reason)"
        case .closed(let call):
            "\(call): the PC/SC connection is closed"
        }
    }

    /// Throws ``failed(_:_:)`` unless `returnValue` is `SCARD_S_SUCCESS`.
    static func check(_ returnValue: Int, _ call: PCSCCall) throws(PCSCError) {
        if returnValue != 0 { throw .failed(call, PCSCErrorCode(returnValue: returnValue)) }
    }
}
