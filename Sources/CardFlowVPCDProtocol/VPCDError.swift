/// What a vpcd exchange was doing when it failed.
public enum VPCDOperation: String, Sendable, Hashable, CustomStringConvertible {
    case powerOn, powerOff, reset, getATR, transmit
    /// Waiting for the answer owed to an earlier, abandoned exchange.
    case settleLateAnswer

    public var description: String { rawValue }
}

/// Why a card connection ended.
public enum VPCDCardLossReason: Sendable, Hashable, CustomStringConvertible {
    /// The card side closed (or reset) the TCP connection (the card was removed, the app stopped).
    case peerClosed
    /// The answer owed to a cancelled or timed-out exchange did not come in time, so the stream
    /// could no longer be trusted to pair answers with commands.
    case lateAnswerMissing
    /// This side closed the connection (``VPCDCardConnection/close()`` or the listener stopped).
    case closedLocally
    /// The connection failed otherwise (reading from or writing to the socket), with the
    /// system's reason.
    case writeFailed(String)
    /// The card side broke the protocol (garbage, an oversized or empty message, an answer no
    /// command asked for, a message cut short), so it was disconnected.
    indirect case protocolViolation(VPCDError)

    public var description: String {
        switch self {
        case .peerClosed: "the card side closed the connection"
        case .lateAnswerMissing: "the answer owed to an abandoned command never came"
        case .closedLocally: "the connection was closed on this side"
        case .writeFailed(let reason): "the connection to the other side failed: \(reason)"
        case .protocolViolation(let error): "protocol violation: \(error)"
        }
    }
}

/// Errors of the vpcd protocol, both roles. Each names what failed.
///
/// Errors marked *fatal* below end the connection they happened on (``isConnectionFatal``): the
/// stream can no longer be parsed or trusted, so the peer is disconnected.
public enum VPCDError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A non-loopback address was given to bind without `allowRemote: true`. The protocol has
    /// neither authentication nor encryption.
    case remoteBindNotAllowed(host: String)
    /// Binding the listening socket failed.
    case bindFailed(host: String, port: Int, reason: String)
    /// Connecting to a listener failed (card side).
    case connectFailed(host: String, port: Int, reason: String)
    /// Fatal: a message with length 0, which the protocol has no meaning for.
    case emptyMessage
    /// Fatal: a message longer than the configured maximum.
    case messageTooLarge(length: Int, maximum: Int)
    /// Fatal: the connection ended inside a message.
    case truncatedMessage(expected: Int, received: Int)
    /// Fatal: the card side sent a message no command asked for.
    case unsolicitedMessage(length: Int)
    /// A payload that cannot be framed: empty, longer than 65,535 bytes, or a 1-byte command APDU
    /// (which would read as a control message).
    case notFramable(length: Int)
    /// No answer within the time allowed. The answer, should it come later, is discarded.
    case timedOut(VPCDOperation, after: Duration)
    /// Fatal: the card connection is gone.
    case cardLost(VPCDOperation?, reason: VPCDCardLossReason)
    /// The listener has no card connected.
    case noCard(VPCDOperation)
    /// The listener was closed.
    case listenerClosed

    /// Whether this error ends the connection it happened on.
    public var isConnectionFatal: Bool {
        switch self {
        case .emptyMessage, .messageTooLarge, .truncatedMessage, .unsolicitedMessage, .cardLost: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .remoteBindNotAllowed(let host):
            "refusing to listen on \(host): vpcd has no authentication or encryption; pass allowRemote: true (and use a tunnel)"
        case .bindFailed(let host, let port, let reason): "cannot listen on \(host):\(port): \(reason)"
        case .connectFailed(let host, let port, let reason): "cannot connect to \(host):\(port): \(reason)"
        case .emptyMessage: "peer sent a zero-length message"
        case .messageTooLarge(let length, let maximum):
            "peer announced a \(length)-byte message; the maximum is \(maximum)"
        case .truncatedMessage(let expected, let received):
            "connection ended inside a message (\(received) of \(expected) bytes)"
        case .unsolicitedMessage(let length): "card side sent a \(length)-byte message no command asked for"
        case .notFramable(let length): "a \(length)-byte payload cannot be sent as a vpcd message"
        case .timedOut(.powerOn, let after), .timedOut(.getATR, let after):
            "the vpcd card side sent no ATR within \(after) (a silent or cut-off answer to power on)"
        case .timedOut(let operation, let after): "\(operation) timed out after \(after)"
        case .cardLost(let operation, let reason):
            operation.map { "card lost during \($0): \(reason)" } ?? "card lost: \(reason)"
        case .noCard(let operation): "\(operation): no card is connected"
        case .listenerClosed: "the vpcd listener is closed"
        }
    }
}
