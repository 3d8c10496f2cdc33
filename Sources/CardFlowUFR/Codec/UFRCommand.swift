import CardFlow

/// A command to a uFR reader: its code, Par0 and Par1, and the CMD_EXT data of an extended
/// command. On the wire it is the 7-byte packet, then (after the reader's ACK) the EXT block:
/// the data and their checksum.
///
/// ```swift
/// let select = try UFRCommand(.apduTransceive, parameter1: 200, extensionData: [0x90, 0x60, 0x00, 0x00, 0x00])
/// select.packet.bytes       // 55 94 AA 06 00 C8 AC
/// select.extensionBytes     // 90 60 00 00 00 F7
/// ```
public struct UFRCommand: Sendable, Hashable, CustomStringConvertible {
    /// The most CMD_EXT data one length byte counts (255 less the checksum).
    public static let maximumExtensionDataCount = 254

    /// The command code.
    public let code: UFRCommandCode
    /// Par0.
    public let parameter0: UInt8
    /// Par1.
    public let parameter1: UInt8
    /// The CMD_EXT data (without its checksum); empty for a simple command.
    public let extensionData: [UInt8]
    /// The packet's length byte: the EXT data and their checksum, 0 for a simple command.
    private let extensionLength: UInt8

    /// - Parameters:
    ///   - code: the command.
    ///   - parameter0: Par0.
    ///   - parameter1: Par1.
    ///   - extensionData: the CMD_EXT data, at most 254 bytes.
    /// - Throws: ``UFRFrameError/extensionTooLong(_:)``.
    public init(
        _ code: UFRCommandCode, parameter0: UInt8 = 0, parameter1: UInt8 = 0, extensionData: [UInt8] = []
    ) throws(UFRFrameError) {
        guard extensionData.count <= Self.maximumExtensionDataCount,
            let extensionLength = extensionData.isEmpty ? 0 : UInt8(exactly: extensionData.count + 1)
        else {
            throw .extensionTooLong(extensionData.count)
        }
        self.extensionLength = extensionLength
        self.code = code
        self.parameter0 = parameter0
        self.parameter1 = parameter1
        self.extensionData = extensionData
    }

    /// Whether the command has a CMD_EXT (the reader acknowledges the packet before it).
    public var isExtended: Bool { !extensionData.isEmpty }

    /// The 7-byte command packet; its length byte counts the EXT data and checksum.
    public var packet: UFRPacket {
        UFRPacket(
            kind: .command, code: code.rawValue,
            extensionLength: extensionLength,
            parameter0: parameter0, parameter1: parameter1)
    }

    /// The CMD_EXT block on the wire: the data and their checksum; empty for a simple command.
    public var extensionBytes: [UInt8] {
        isExtended ? extensionData + [UFRChecksum.of(extensionData)] : []
    }

    public var description: String {
        isExtended ? "\(code) \(packet) + EXT \(extensionData.count) bytes" : "\(code) \(packet)"
    }
}
