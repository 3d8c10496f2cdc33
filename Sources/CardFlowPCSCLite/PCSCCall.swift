/// The libpcsclite function a ``PCSCError`` comes from.
public enum PCSCCall: String, Hashable, Sendable, CustomStringConvertible {
    case establishContext = "SCardEstablishContext"
    case releaseContext = "SCardReleaseContext"
    case listReaders = "SCardListReaders"
    case getStatusChange = "SCardGetStatusChange"
    case cancel = "SCardCancel"
    case connect = "SCardConnect"
    case reconnect = "SCardReconnect"
    case disconnect = "SCardDisconnect"
    case status = "SCardStatus"
    case transmit = "SCardTransmit"
    case control = "SCardControl"

    public var description: String { rawValue }
}
