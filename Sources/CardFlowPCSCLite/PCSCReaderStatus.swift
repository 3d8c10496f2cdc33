import CCardFlowPCSCLite

/// One reader's state as `SCardGetStatusChange` reports it (`SCARD_READERSTATE`, in Swift terms).
struct PCSCReaderStatus: Sendable, Equatable {
    var reader: String
    /// `dwEventState`: `SCARD_STATE_*` flags, with pcsc-lite's event counter in the upper 16
    /// bits. Pass it back as the known state to wait for the next change.
    var eventState: UInt
    var atr: [UInt8]

    func has(_ flag: Int32) -> Bool { eventState & UInt(flag) != 0 }
}
