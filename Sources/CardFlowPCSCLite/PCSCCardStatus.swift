/// A connected card's state from `SCardStatus`.
public struct PCSCCardStatus: Hashable, Sendable {
    /// The answer to reset.
    public var atr: [UInt8]
    /// The protocol in use.
    public var activeProtocol: PCSCProtocol
    /// `SCARD_PRESENT`, `SCARD_POWERED`, `SCARD_SPECIFIC`… as pcsc-lite reports them.
    public var state: UInt
}
