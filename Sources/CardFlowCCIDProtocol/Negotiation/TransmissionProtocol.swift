/// The ISO/IEC 7816-3 transmission protocols a CCID host can run with a contact card.
public enum TransmissionProtocol: UInt8, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Half-duplex character protocol: a 5-byte header, procedure bytes, data, SW1 SW2.
    case t0 = 0
    /// Half-duplex block protocol (I-, R- and S-blocks).
    case t1 = 1

    /// "T=0" or "T=1".
    public var description: String { "T=\(rawValue)" }
}

/// Which transmission protocol the driver asks for at power-on.
public enum ProtocolPreference: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// T=1 when both the card and the reader offer it, T=0 otherwise (what pcsc-lite does for
    /// an application that accepts either).
    case automatic
    /// T=0 only; power-on fails when the card or the reader does not offer it.
    case t0
    /// T=1 only; power-on fails when the card or the reader does not offer it.
    case t1

    /// The protocol this preference insists on, nil for ``automatic``.
    public var required: TransmissionProtocol? {
        switch self {
        case .automatic: nil
        case .t0: .t0
        case .t1: .t1
        }
    }

    public var description: String {
        switch self {
        case .automatic: "automatic"
        case .t0: "T=0"
        case .t1: "T=1"
        }
    }
}
