/// A 6-byte MIFARE Classic key. Its description never shows the bytes, so that a key cannot reach
/// a log line by accident.
public struct ClassicKey: Sendable, Hashable, CustomStringConvertible {
    /// The key's six bytes.
    public let bytes: [UInt8]

    /// A key from six bytes.
    ///
    /// - Throws: ``StorageCardError/invalidArgument(_:)`` when `bytes` is not 6 bytes long.
    public init(_ bytes: [UInt8]) throws(StorageCardError) {
        guard bytes.count == 6 else {
            throw .invalidArgument("a MIFARE Classic key has 6 bytes, not \(bytes.count)")
        }
        self.bytes = bytes
    }

    private init(validated bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// `FF FF FF FF FF FF`: the transport key of new cards (NXP MF1S50 datasheet).
    public static let transport = ClassicKey(validated: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
    /// `A0 A1 A2 A3 A4 A5`: the public key A of the MAD sector (NXP AN10787).
    public static let madKeyA = ClassicKey(validated: [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5])
    /// `D3 F7 D3 F7 D3 F7`: the public key A of NDEF sectors (NXP AN1304/AN1305).
    public static let ndefKeyA = ClassicKey(validated: [0xD3, 0xF7, 0xD3, 0xF7, 0xD3, 0xF7])

    public var description: String { "MIFARE Classic key (6 bytes, redacted)" }
}

/// Which of a sector's two keys authenticates: the byte PC/SC part 3 GENERAL AUTHENTICATE
/// carries (`60` key A, `61` key B, the MIFARE authentication command codes).
public enum ClassicKeyType: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case a = 0x60
    case b = 0x61

    public var description: String { self == .a ? "key A" : "key B" }
}
