import CardFlow

/// Bytes that are not a well-formed uFR COM frame.
public enum UFRFrameError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Fewer than the 7 bytes a packet has.
    case tooShort(Int)
    /// Byte 0 is no packet header.
    case notAHeader(UInt8)
    /// Byte 2 is not the trailer that goes with byte 0.
    case wrongTrailer(UFRPacketKind, UInt8)
    /// The packet's checksum (byte 6) is not the one its bytes 0…5 give.
    case badChecksum(UFRPacketKind, expected: UInt8, found: UInt8)
    /// The EXT block's checksum (its last byte) is not the one its data gives.
    case badExtensionChecksum(expected: UInt8, found: UInt8)
    /// More EXT data than one length byte counts (254 bytes).
    case extensionTooLong(Int)

    public var description: String {
        switch self {
        case .tooShort(let count): "a uFR packet has 7 bytes, got \(count)"
        case .notAHeader(let byte): "\([byte].spacedHexString) is no uFR packet header"
        case .wrongTrailer(let kind, let byte): "\(kind) packet with trailer \([byte].spacedHexString)"
        case .badChecksum(let kind, let expected, let found):
            "\(kind) packet checksum \([found].spacedHexString), expected \([expected].spacedHexString)"
        case .badExtensionChecksum(let expected, let found):
            "EXT checksum \([found].spacedHexString), expected \([expected].spacedHexString)"
        case .extensionTooLong(let count): "EXT of \(count) bytes (at most 254)"
        }
    }
}
