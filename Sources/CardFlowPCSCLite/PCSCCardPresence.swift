import CCardFlowPCSCLite

/// Whether a card sits in a reader, as ``PCSCReaderMonitor`` reports it.
public enum PCSCCardPresence: Hashable, Sendable, CustomStringConvertible {
    /// No card.
    case absent
    /// A card, with the ATR pcscd read when it powered it (empty for a mute card).
    case present(atr: [UInt8])

    public var description: String {
        switch self {
        case .absent: "absent"
        case .present(let atr): "present, ATR " + pcscHex(atr)
        }
    }

    /// The presence a reader state shows; a reader pcscd does not know (any more) is an error:
    /// `SCARD_E_UNKNOWN_READER` when it never appeared, `SCARD_E_READER_UNAVAILABLE` once it has
    /// gone away or is unusable.
    init(_ status: PCSCReaderStatus, readerWasSeen: Bool) throws(PCSCError) {
        if status.has(SCARD_STATE_UNKNOWN) {
            throw .failed(.getStatusChange, readerWasSeen ? .readerUnavailable : .unknownReader)
        }
        if status.has(SCARD_STATE_UNAVAILABLE) { throw .failed(.getStatusChange, .readerUnavailable) }
        self = status.has(SCARD_STATE_PRESENT) ? .present(atr: status.atr) : .absent
    }
}
