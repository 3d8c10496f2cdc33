import CardFlow

/// A MIFARE Classic sector trailer: key A (bytes 0–5), access bits (6–8), the general purpose
/// byte GPB (9) and key B (10–15), as the NXP MF1S50 datasheet lays it out.
///
/// ```swift
/// let trailer = ClassicSectorTrailer(keyA: .ndefKeyA, accessBits: .ndefReadWrite, generalPurposeByte: 0x40, keyB: secret)
/// try trailer.checkWritable()          // throws when no key could ever write the trailer again
/// ```
public struct ClassicSectorTrailer: Sendable, Hashable, CustomStringConvertible {
    public var keyA: ClassicKey
    public var accessBits: ClassicAccessBits
    /// Byte 9: free for the application (MAD: the MAD version and flags; NDEF: `40`, version 1.0, read/write).
    public var generalPurposeByte: UInt8
    public var keyB: ClassicKey

    public init(keyA: ClassicKey, accessBits: ClassicAccessBits, generalPurposeByte: UInt8, keyB: ClassicKey) {
        self.keyA = keyA
        self.accessBits = accessBits
        self.generalPurposeByte = generalPurposeByte
        self.keyB = keyB
    }

    /// Decodes a 16-byte trailer block. A trailer read from a card shows key A as zeros (never
    /// readable) and key B as zeros unless readable.
    ///
    /// - Throws: ``StorageCardError/wrongBlockLength(block:length:)`` (block -1) for a block
    ///   that is not 16 bytes, ``StorageCardError/malformedAccessBits(_:)``.
    public init(block: [UInt8]) throws(StorageCardError) {
        guard block.count == 16 else { throw .wrongBlockLength(block: -1, length: block.count) }
        keyA = try ClassicKey(Array(block[0..<6]))
        accessBits = try ClassicAccessBits(bytes: Array(block[6..<9]))
        generalPurposeByte = block[9]
        keyB = try ClassicKey(Array(block[10..<16]))
    }

    /// The transport trailer of new cards: keys `FF…FF`, access bits `FF 07 80`, GPB `69`.
    public static let transport = ClassicSectorTrailer(
        keyA: .transport, accessBits: .transport, generalPurposeByte: 0x69, keyB: .transport)

    /// The 16 bytes to write.
    public var block: [UInt8] {
        keyA.bytes + accessBits.bytes + [generalPurposeByte] + keyB.bytes
    }

    /// Refuses a trailer after which no key could ever write the trailer again (its condition
    /// `010`, `110` or `111`): keys and access conditions would be frozen for good.
    ///
    /// - Throws: ``StorageCardError/trailerWouldLockSector(sector:)`` with sector -1 (the caller
    ///   that knows the sector rethrows with it).
    public func checkWritable() throws(StorageCardError) {
        guard accessBits.trailer.trailerPermissions.trailerStaysWritable else {
            throw .trailerWouldLockSector(sector: -1)
        }
    }

    public var description: String {
        "sector trailer (\(accessBits), GPB \([generalPurposeByte].hexString); keys redacted)"
    }
}
