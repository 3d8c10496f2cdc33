import CardFlow

/// Why a relay sync did not complete. Every failure the service or the connection can cause is
/// one of these; the card's own errors (``/CardFlow/SessionError``, driver errors) arrive as ``card(_:)``.
public enum RelayError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The card answered none of the configured AIDs: not a card of this service. Nothing was
    /// sent to the service.
    case unsupportedCard(triedAIDs: [[UInt8]])
    /// The relay URL is not a ws:// or wss:// URL.
    case invalidURL(String)
    /// A bearer token would travel in clear text: ws:// to a host that is not loopback.
    case tokenOverPlainWebSocket(host: String)
    /// The extra CA file could not be read as PEM certificates.
    case invalidCAFile(path: String, reason: String)
    /// The connection to the service could not be made (refused, TLS verification, upgrade).
    case connectionFailed(String)
    /// The service closed the connection before it said done or failed.
    case connectionClosed
    /// The service sent nothing for the idle timeout.
    case idleTimeout(Duration)
    /// The service sent a message that breaks the protocol (see docs/relay-protocol.md).
    case protocolViolation(RelayProtocolViolation)
    /// The service asked for more APDUs than ``RelayLimits/maxAPDUs``.
    case tooManyAPDUs(limit: Int)
    /// The service ended the sync with a failure.
    case serviceFailed(reason: String)
    /// The card or reader failed (card did not return, reader error), described.
    case card(String)

    public var description: String {
        switch self {
        case .unsupportedCard(let aids):
            "unsupported card: it has none of the applications \(aids.map(\.hexString).joined(separator: ", "))"
        case .invalidURL(let url): "invalid relay URL '\(url)': expected ws://host[:port]/path or wss://…"
        case .tokenOverPlainWebSocket(let host):
            "refusing to send the bearer token over plain ws:// to \(host): use wss:// (ws:// is allowed only to loopback: 127.0.0.0/8, ::1, localhost)"
        case .invalidCAFile(let path, let reason): "cannot use CA file \(path): \(reason)"
        case .connectionFailed(let reason): "cannot connect to the relay service: \(reason)"
        case .connectionClosed: "the relay service closed the connection before the sync ended"
        case .idleTimeout(let after): "the relay service sent nothing for \(after)"
        case .protocolViolation(let violation): "relay protocol violation: \(violation)"
        case .tooManyAPDUs(let limit): "the relay service sent more than \(limit) APDUs"
        case .serviceFailed(let reason): "the relay service reported a failure: \(reason)"
        case .card(let reason): "card: \(reason)"
        }
    }
}

/// A message from the service that the relay refuses (the sync fails, nothing reaches the card).
public enum RelayProtocolViolation: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not a JSON object, or a field of the wrong type.
    case malformedMessage(String)
    /// A binary frame: the protocol is JSON text.
    case binaryFrame
    /// A message of a version this client does not speak.
    case unsupportedVersion(Int)
    /// A message type the service may not send.
    case unknownType(String)
    /// A required field is missing.
    case missingField(type: String, field: String)
    /// An APDU id that is not the previous one plus one.
    case unexpectedID(expected: Int, received: Int)
    /// The APDU is not valid hex or not a valid command APDU.
    case invalidAPDU(id: Int, reason: String)
    /// The APDU is longer than ``RelayLimits/maxAPDUSize``.
    case apduTooLarge(id: Int, size: Int, limit: Int)
    /// A progress fraction outside 0...1.
    case invalidProgress(Double)
    /// A message larger than the limit the client accepts.
    case messageTooLarge
    /// More messages sent ahead than ``RelayLimits/maxQueuedMessages`` while the card was busy.
    case tooManyQueuedMessages(limit: Int)

    public var description: String {
        switch self {
        case .malformedMessage(let reason): "malformed message (\(reason))"
        case .binaryFrame: "binary frame (messages are JSON text)"
        case .unsupportedVersion(let version):
            "unsupported protocol version \(version) (this client speaks \(RelayProtocol.version))"
        case .unknownType(let type): "message type '\(type)' is not one the service may send"
        case .missingField(let type, let field): "'\(type)' message without '\(field)'"
        case .unexpectedID(let expected, let received): "APDU id \(received), expected \(expected)"
        case .invalidAPDU(let id, let reason): "APDU \(id) is invalid: \(reason)"
        case .apduTooLarge(let id, let size, let limit): "APDU \(id) has \(size) bytes, more than the limit \(limit)"
        case .invalidProgress(let value): "progress \(value) is outside 0...1"
        case .messageTooLarge: "message larger than the client accepts"
        case .tooManyQueuedMessages(let limit): "more than \(limit) messages sent ahead of the card's answers"
        }
    }
}
