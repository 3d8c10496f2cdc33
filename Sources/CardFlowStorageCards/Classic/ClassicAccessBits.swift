import CardFlow

/// The access bits of a MIFARE Classic sector: bytes 6–8 of its trailer (NXP MF1S50 datasheet
/// §8.7), four conditions each stored plain and inverted.
///
/// Layout, bit 7 first: byte 6 = `¬C2₃ ¬C2₂ ¬C2₁ ¬C2₀ ¬C1₃ ¬C1₂ ¬C1₁ ¬C1₀`, byte 7 =
/// `C1₃ C1₂ C1₁ C1₀ ¬C3₃ ¬C3₂ ¬C3₁ ¬C3₀`, byte 8 = `C3₃ C3₂ C3₁ C3₀ C2₃ C2₂ C2₁ C2₀`, where index
/// 0–2 are the data-block groups and 3 the trailer.
///
/// ```swift
/// let transport = try ClassicAccessBits(bytes: [0xFF, 0x07, 0x80])
/// transport.trailer            // C1C2C3 001
/// ```
public struct ClassicAccessBits: Sendable, Hashable, CustomStringConvertible {
    /// The conditions of the data-block groups 0, 1, 2 (in 4-block sectors, blocks 0, 1, 2).
    public var dataBlocks: [ClassicAccessCondition]
    /// The condition of the sector trailer.
    public var trailer: ClassicAccessCondition

    /// Access bits from three data-block conditions and the trailer's.
    ///
    /// - Throws: ``StorageCardError/invalidArgument(_:)`` unless `dataBlocks` has 3 conditions.
    public init(dataBlocks: [ClassicAccessCondition], trailer: ClassicAccessCondition) throws(StorageCardError) {
        guard dataBlocks.count == 3 else {
            throw .invalidArgument("access bits hold 3 data-block conditions, not \(dataBlocks.count)")
        }
        self.dataBlocks = dataBlocks
        self.trailer = trailer
    }

    /// Decodes trailer bytes 6–8.
    ///
    /// - Throws: ``StorageCardError/malformedAccessBits(_:)`` when `bytes` is not 3 bytes or an
    ///   inverted copy does not match its bits (a card blocks such a sector for good).
    public init(bytes: [UInt8]) throws(StorageCardError) {
        guard bytes.count == 3 else { throw .malformedAccessBits(bytes) }
        let notC1 = bytes[0] & 0x0F
        let notC2 = bytes[0] >> 4
        let notC3 = bytes[1] & 0x0F
        let c1 = bytes[1] >> 4
        let c2 = bytes[2] & 0x0F
        let c3 = bytes[2] >> 4
        guard c1 ^ notC1 == 0x0F, c2 ^ notC2 == 0x0F, c3 ^ notC3 == 0x0F else { throw .malformedAccessBits(bytes) }
        var conditions: [ClassicAccessCondition] = []
        for index in 0..<4 {
            let bit = UInt8(1) << UInt8(index)
            conditions.append(ClassicAccessCondition(c1: c1 & bit != 0, c2: c2 & bit != 0, c3: c3 & bit != 0))
        }
        dataBlocks = Array(conditions[0..<3])
        trailer = conditions[3]
    }

    /// The transport configuration of new cards, `FF 07 80`: data blocks `000`, trailer `001`.
    public static let transport = ClassicAccessBits(
        validatedDataBlocks: [.init(c1: false, c2: false, c3: false)], trailer: .init(c1: false, c2: false, c3: true))
    /// NFC Forum NDEF sectors, read and write with the public key A, `7F 07 88` (AN1304):
    /// data blocks `000`, trailer `011`.
    public static let ndefReadWrite = ClassicAccessBits(
        validatedDataBlocks: [.init(c1: false, c2: false, c3: false)], trailer: .init(c1: false, c2: true, c3: true))
    /// The MAD sector, `78 77 88` (AN10787): data blocks `100` (read with either key, write with
    /// key B), trailer `011`.
    public static let madSector = ClassicAccessBits(
        validatedDataBlocks: [.init(c1: true, c2: false, c3: false)], trailer: .init(c1: false, c2: true, c3: true))

    private init(validatedDataBlocks condition: [ClassicAccessCondition], trailer: ClassicAccessCondition) {
        dataBlocks = Array(repeating: condition[0], count: 3)
        self.trailer = trailer
    }

    /// The condition for access-condition index `index` (0–2 data groups, 3 the trailer).
    public func condition(at index: Int) -> ClassicAccessCondition {
        index >= 3 ? trailer : dataBlocks[max(0, index)]
    }

    /// Trailer bytes 6–8.
    public var bytes: [UInt8] {
        var c1: UInt8 = 0
        var c2: UInt8 = 0
        var c3: UInt8 = 0
        for index in 0..<4 {
            let condition = self.condition(at: index)
            let bit = UInt8(1) << UInt8(index)
            if condition.c1 { c1 |= bit }
            if condition.c2 { c2 |= bit }
            if condition.c3 { c3 |= bit }
        }
        return [(~c2 & 0x0F) << 4 | (~c1 & 0x0F), c1 << 4 | (~c3 & 0x0F), c3 << 4 | c2]
    }

    public var description: String {
        "access bits \(bytes.spacedHexString) "
            + "(data \(dataBlocks.map(\.description).joined(separator: ", ")), trailer \(trailer))"
    }
}
