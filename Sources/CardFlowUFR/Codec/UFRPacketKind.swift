import CardFlow

/// The four 7-byte packets of the uFR COM protocol, told apart by their header (byte 0) and
/// trailer (byte 2).
public enum UFRPacketKind: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Host to reader: `55 code AA len par0 par1 checksum`.
    case command
    /// Reader to host, before an extended command's CMD_EXT: `AC code CA … checksum`.
    case acknowledgement
    /// Reader to host, the command's result: `DE code ED len val0 val1 checksum`.
    case response
    /// Reader to host, the command failed: `EC error CE len val0 val1 checksum`.
    case error

    /// Byte 0.
    public var header: UInt8 {
        switch self {
        case .command: 0x55
        case .acknowledgement: 0xAC
        case .response: 0xDE
        case .error: 0xEC
        }
    }

    /// Byte 2.
    public var trailer: UInt8 {
        switch self {
        case .command: 0xAA
        case .acknowledgement: 0xCA
        case .response: 0xED
        case .error: 0xCE
        }
    }

    /// The kind a header byte starts, nil for any other byte.
    public init?(header: UInt8) {
        guard let kind = Self.allCases.first(where: { $0.header == header }) else { return nil }
        self = kind
    }

    public var description: String {
        switch self {
        case .command: "CMD"
        case .acknowledgement: "ACK"
        case .response: "RSP"
        case .error: "ERR"
        }
    }
}
