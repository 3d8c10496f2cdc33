import CardFlow

/// A frame from a uFR reader, as ``UFRReplyDecoder`` reads them.
public enum UFRIncomingFrame: Sendable, Hashable, CustomStringConvertible {
    /// ACK of an extended command with this code: send its CMD_EXT now.
    case acknowledgement(UFRCommandCode)
    /// RSP or ERR, with its EXT data.
    case reply(UFRReply)

    public var description: String {
        switch self {
        case .acknowledgement(let code): "ACK \(code)"
        case .reply(let reply): "\(reply)"
        }
    }
}
