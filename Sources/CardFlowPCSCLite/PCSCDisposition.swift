import CCardFlowPCSCLite

/// What happens to the card when a connection ends or reconnects.
public enum PCSCDisposition: Hashable, Sendable {
    /// Leave it as it is (`SCARD_LEAVE_CARD`): other clients keep their state.
    case leave
    /// Warm reset (`SCARD_RESET_CARD`).
    case reset
    /// Power it down (`SCARD_UNPOWER_CARD`); the next connect powers it up again (cold reset).
    case unpower

    var rawValue: UInt {
        switch self {
        case .leave: UInt(SCARD_LEAVE_CARD)
        case .reset: UInt(SCARD_RESET_CARD)
        case .unpower: UInt(SCARD_UNPOWER_CARD)
        }
    }
}
