import CCardFlowPCSCLite

/// The transmission protocol of a connection (`SCARD_PROTOCOL_T0`, `SCARD_PROTOCOL_T1`).
public enum PCSCProtocol: Hashable, Sendable, CustomStringConvertible {
    case t0
    case t1

    init?(rawValue: UInt) {
        switch rawValue {
        case UInt(SCARD_PROTOCOL_T0): self = .t0
        case UInt(SCARD_PROTOCOL_T1): self = .t1
        default: return nil
        }
    }

    var rawValue: UInt { self == .t0 ? UInt(SCARD_PROTOCOL_T0) : UInt(SCARD_PROTOCOL_T1) }

    /// The protocol control information `SCardTransmit` wants for this protocol (what
    /// `SCARD_PCI_T0` / `SCARD_PCI_T1` point at; macros Swift cannot import).
    var sendPCI: SCARD_IO_REQUEST {
        SCARD_IO_REQUEST(dwProtocol: rawValue, cbPciLength: UInt(MemoryLayout<SCARD_IO_REQUEST>.size))
    }

    public var description: String { self == .t0 ? "T=0" : "T=1" }
}

/// The protocols a connect accepts; pcscd and the reader pick one (`[.t0, .t1]` lets them choose).
public struct PCSCProtocols: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let t0 = Self(rawValue: UInt(SCARD_PROTOCOL_T0))
    public static let t1 = Self(rawValue: UInt(SCARD_PROTOCOL_T1))
    /// T=0 or T=1 (`SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1`).
    public static let any: Self = [.t0, .t1]
}
