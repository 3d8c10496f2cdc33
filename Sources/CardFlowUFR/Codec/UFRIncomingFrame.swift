import CardFlow

/// A frame from a uFR reader, as ``UFRReplyDecoder`` reads them.
public enum UFRIncomingFrame: Sendable, Hashable, CustomStringConvertible {
    /// ACK of an extended command with this code: send its CMD_EXT now.
    case acknowledgement(UFRCommandCode)
    /// RSP or ERR, with its EXT data.
    case reply(UFRReply)
    /// One chunk of data streamed before the RSP (`00 n <n bytes>`, DESFIRE_READ_FROM_STD_FILE;
    /// ufr.md §2.3); only read while ``UFRReplyDecoder/acceptsStreamedData`` is set.
    case streamedData([UInt8])

    public var description: String {
        switch self {
        case .acknowledgement(let code): "ACK \(code)"
        case .reply(let reply): "\(reply)"
        case .streamedData(let data): "streamed data, \(data.count) bytes"
        }
    }
}
