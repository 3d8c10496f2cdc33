import CardFlow

/// One 7-byte packet of the uFR COM protocol: `header code trailer length p0 p1 checksum`.
///
/// For a command `code` is the command code and `p0`/`p1` its parameters Par0/Par1; for a
/// response the command code and Val0/Val1; for an error the error code (``UFRStatus``).
/// `length` counts the EXT block that follows (its data plus its checksum; 0 for none).
///
/// ```swift
/// let packet = UFRPacket(kind: .command, code: 0x10)
/// packet.bytes                                    // 55 10 AA 00 00 00 F6
/// try UFRPacket(decoding: [0xDE, 0x10, 0xED, 0x05, 0x00, 0x00, 0x2D]).extensionLength   // 5
/// ```
public struct UFRPacket: Sendable, Hashable, CustomStringConvertible {
    /// The packet size on the wire.
    public static let size = 7

    /// Which packet it is.
    public var kind: UFRPacketKind
    /// Byte 1: the command code, or the error code of an ERR packet.
    public var code: UInt8
    /// Byte 3: the EXT block's length (data + checksum), 0 when none follows.
    public var extensionLength: UInt8
    /// Byte 4: Par0 of a command, Val0 of a reply.
    public var parameter0: UInt8
    /// Byte 5: Par1 of a command, Val1 of a reply.
    public var parameter1: UInt8

    /// - Parameters:
    ///   - kind: the packet.
    ///   - code: byte 1.
    ///   - extensionLength: byte 3.
    ///   - parameter0: byte 4.
    ///   - parameter1: byte 5.
    public init(
        kind: UFRPacketKind, code: UInt8, extensionLength: UInt8 = 0, parameter0: UInt8 = 0, parameter1: UInt8 = 0
    ) {
        self.kind = kind
        self.code = code
        self.extensionLength = extensionLength
        self.parameter0 = parameter0
        self.parameter1 = parameter1
    }

    /// Reads a packet from its 7 bytes, checking header, trailer and checksum.
    ///
    /// - Throws: ``UFRFrameError`` when the bytes are not a packet.
    public init(decoding bytes: some Collection<UInt8>) throws(UFRFrameError) {
        let wire = Array(bytes)
        guard wire.count == Self.size else { throw .tooShort(wire.count) }
        guard let kind = UFRPacketKind(header: wire[0]) else { throw .notAHeader(wire[0]) }
        guard wire[2] == kind.trailer else { throw .wrongTrailer(kind, wire[2]) }
        let expected = UFRChecksum.of(wire[0..<6])
        guard wire[6] == expected else { throw .badChecksum(kind, expected: expected, found: wire[6]) }
        self.init(kind: kind, code: wire[1], extensionLength: wire[3], parameter0: wire[4], parameter1: wire[5])
    }

    /// The 7 bytes on the wire, checksum included.
    public var bytes: [UInt8] {
        let head = [kind.header, code, kind.trailer, extensionLength, parameter0, parameter1]
        return head + [UFRChecksum.of(head)]
    }

    /// The number of EXT data bytes (without the EXT checksum) that follow.
    public var extensionDataCount: Int { max(0, Int(extensionLength) - 1) }

    public var description: String { bytes.spacedHexString }
}
