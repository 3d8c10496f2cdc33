/// The sectors and blocks of a MIFARE Classic card (NXP MF1S20/MF1S50/MF1S70 datasheets).
///
/// Mini: 5 sectors of 4 blocks. 1K: 16 sectors of 4 blocks. 4K: 32 sectors of 4 blocks, then 8
/// sectors of 16 blocks (blocks 128…255). The last block of each sector is its trailer (keys and
/// access bits); block 0 is the manufacturer block.
public enum ClassicCardLayout: Sendable, Hashable, CaseIterable {
    case mini
    case oneK
    case fourK

    /// Number of sectors: 5, 16 or 40.
    public var sectorCount: Int {
        switch self {
        case .mini: 5
        case .oneK: 16
        case .fourK: 40
        }
    }

    /// Number of 16-byte blocks: 20, 64 or 256.
    public var blockCount: Int {
        switch self {
        case .mini: 20
        case .oneK: 64
        case .fourK: 256
        }
    }

    /// Blocks in `sector`: 4 below sector 32, 16 from there (4K only).
    public func blockCount(inSector sector: Int) -> Int {
        sector < 32 ? 4 : 16
    }

    /// The first block of `sector`.
    public func firstBlock(ofSector sector: Int) -> Int {
        sector < 32 ? sector * 4 : 128 + (sector - 32) * 16
    }

    /// The trailer block of `sector` (its last block).
    public func trailerBlock(ofSector sector: Int) -> Int {
        firstBlock(ofSector: sector) + blockCount(inSector: sector) - 1
    }

    /// The sector holding `block`, or nil when the card has no such block.
    public func sector(ofBlock block: Int) -> Int? {
        guard (0..<blockCount).contains(block) else { return nil }
        return block < 128 ? block / 4 : 32 + (block - 128) / 16
    }

    /// Whether `block` is a sector trailer.
    public func isTrailer(_ block: Int) -> Bool {
        guard let sector = sector(ofBlock: block) else { return false }
        return block == trailerBlock(ofSector: sector)
    }

    /// The blocks of `sector` that hold data: all but the trailer, and for sector 0 all but the
    /// manufacturer block.
    public func dataBlocks(ofSector sector: Int) -> [Int] {
        guard (0..<sectorCount).contains(sector) else { return [] }
        let first = firstBlock(ofSector: sector)
        return Array((sector == 0 ? first + 1 : first)..<trailerBlock(ofSector: sector))
    }

    /// The index (0, 1, 2, or 3 for the trailer) of `block`'s access condition within its
    /// sector's access bits. In 16-block sectors one condition covers five blocks (0–4, 5–9, 10–14).
    public func accessConditionIndex(ofBlock block: Int) -> Int? {
        guard let sector = sector(ofBlock: block) else { return nil }
        let offset = block - firstBlock(ofSector: sector)
        if sector < 32 { return offset }
        return offset == 15 ? 3 : offset / 5
    }
}
