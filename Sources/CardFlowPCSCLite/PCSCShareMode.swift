import CCardFlowPCSCLite

/// How a connection shares the card with other PC/SC clients (browsers, OpenSC, YubiKey tools).
public enum PCSCShareMode: Hashable, Sendable {
    /// Others may connect too (`SCARD_SHARE_SHARED`); use transactions for multi-APDU sequences.
    case shared
    /// No one else may connect while this connection lives (`SCARD_SHARE_EXCLUSIVE`).
    case exclusive

    var rawValue: UInt { self == .shared ? UInt(SCARD_SHARE_SHARED) : UInt(SCARD_SHARE_EXCLUSIVE) }
}
