/// A MIFARE Classic 1K or 4K card, written from the NXP MF1S50yyX / MF1S70yyX datasheets, with
/// the reader-side half of PC/SC part 3 storage access (key slots, the authentication state).
///
/// - Memory: 64 or 256 blocks of 16 bytes; 4K sectors 32–39 have 16 blocks. Block 0 (UID, BCC,
///   SAK, ATQA, manufacturer data) is read-only. New cards are in transport configuration: every
///   trailer `FF…FF FF 07 80 69 FF…FF`.
/// - Access bits are enforced for reads, writes, increments, decrements, restores and transfers,
///   trailer parts included; key B cannot authenticate where the trailer lets it be read (the
///   authentication succeeds, every later access is refused). Trailer bytes with disagreeing
///   inverted copies block the sector for good.
/// - Authentication holds one sector at a time: a new authentication replaces it; a failed one,
///   or any refused command, halts the card until it is powered again (re-activated).
/// - The reader's key slots belong to the reader: they survive the card's power cycles.
///
/// The pseudo-APDUs follow the dialect of the reader the card lies on
/// (``MIFAREClassicReaderDialect``), which `VirtualCCIDReader` tells it.
public struct SimulatedMIFAREClassicCard: PersistentVirtualCard, ReaderAwareVirtualCard, Hashable {
    public static let persistentKind = "mifare-classic"
    public var kind: String { Self.persistentKind }

    /// 1K (16 sectors) or 4K (40 sectors).
    public enum Size: String, Sendable, Hashable, Codable {
        case oneK = "1k"
        case fourK = "4k"

        var blockCount: Int { self == .oneK ? 64 : 256 }
    }

    public let size: Size
    /// The 4-byte NUID.
    public let uid: [UInt8]
    public internal(set) var blocks: [[UInt8]]
    /// The dialect of the reader the card lies on (ACS until placed on another).
    public internal(set) var readerDialect: MIFAREClassicReaderDialect = .acs

    /// Reader memory: keys by slot (ACS, OMNIKEY, generic) or by key type `60`/`61` (Identiv).
    var volatileKeys: [UInt8: [UInt8]] = [:]
    var nonVolatileKeys: [UInt8: [UInt8]] = [:]
    /// The authenticated sector and key; nil when none.
    var authentication: Authentication?
    /// After a failed authentication or a refused command the card answers nothing until
    /// re-activated.
    var halted = false
    /// The card's value register (MF1S50 §9.5): the 4-byte value (least significant byte first)
    /// and the address byte an INCREMENT, DECREMENT or RESTORE left for TRANSFER; nil when none.
    var valueRegister: [UInt8]?
    /// Sectors whose trailer got access bits with disagreeing copies.
    public internal(set) var blockedSectors: Set<Int> = []

    struct Authentication: Hashable {
        var sector: Int
        var key: MIFAREClassicAccessRules.Key
    }

    public var technology: ContactlessTechnology { size == .oneK ? .mifareClassic1K : .mifareClassic4K }
    public var readerPassThroughInstructions: Set<UInt8> { [0x82, 0x86, 0x88, 0xB0, 0xB1, 0xC2, 0xD6, 0xD7] }

    /// A card in transport configuration.
    ///
    /// - Parameters:
    ///   - seed: where the UID comes from.
    ///   - size: 1K or 4K.
    ///   - readerDialect: the reader's dialect until the card is placed on a reader.
    public init(seed: UInt64 = 0, size: Size = .oneK, readerDialect: MIFAREClassicReaderDialect = .acs) {
        let uid = Array(ISO7816Card.uid(fromSeed: seed).dropFirst().prefix(4))
        self.uid = uid
        self.size = size
        self.readerDialect = readerDialect
        let manufacturer: [UInt8] =
            uid + [uid.reduce(0, ^)] + (size == .oneK ? [0x08, 0x04, 0x00] : [0x18, 0x02, 0x00])
            + [0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69]
        var blocks = [[UInt8]](repeating: [UInt8](repeating: 0, count: 16), count: size.blockCount)
        blocks[0] = manufacturer
        for sector in 0..<Self.sectorCount(size) {
            blocks[Self.trailerBlock(ofSector: sector)] = Self.transportTrailer
        }
        self.blocks = blocks
    }

    /// `FF FF FF FF FF FF  FF 07 80  69  FF FF FF FF FF FF` (MF1S50 datasheet, §8.6.3).
    public static let transportTrailer: [UInt8] =
        [UInt8](repeating: 0xFF, count: 6) + [0xFF, 0x07, 0x80, 0x69] + [UInt8](repeating: 0xFF, count: 6)

    public mutating func placed(onReaderWithVendorID vendorID: UInt16, productID: UInt16) {
        readerDialect = MIFAREClassicReaderDialect(vendorID: vendorID, productID: productID)
    }

    public mutating func powerOn() {
        authentication = nil
        halted = false
        valueRegister = nil
    }

    // MARK: - Geometry

    static func sectorCount(_ size: Size) -> Int { size == .oneK ? 16 : 40 }

    static func sector(ofBlock block: Int) -> Int { block < 128 ? block / 4 : 32 + (block - 128) / 16 }

    static func firstBlock(ofSector sector: Int) -> Int { sector < 32 ? sector * 4 : 128 + (sector - 32) * 16 }

    static func trailerBlock(ofSector sector: Int) -> Int {
        firstBlock(ofSector: sector) + (sector < 32 ? 3 : 15)
    }

    /// Which of the four access conditions governs `block` (datasheet: in 16-block sectors one
    /// condition covers blocks 0–4, 5–9, 10–14).
    static func conditionIndex(ofBlock block: Int) -> Int {
        let sector = sector(ofBlock: block)
        let offset = block - firstBlock(ofSector: sector)
        if sector < 32 { return offset }
        return offset == 15 ? 3 : offset / 5
    }

    // MARK: - Persistence

    private enum CodingKeys: String, CodingKey {
        case size, uid, blocks, blockedSectors
    }

    /// Decodes a saved card, refusing memory that does not fit its size, so that an edited state
    /// file cannot make the model trap.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let size = try container.decode(Size.self, forKey: .size)
        let uid = try container.decode([UInt8].self, forKey: .uid)
        let blocks = try container.decode([[UInt8]].self, forKey: .blocks)
        guard uid.count == 4 else {
            throw DecodingError.dataCorruptedError(
                forKey: .uid, in: container, debugDescription: "UID must have 4 bytes")
        }
        guard blocks.count == size.blockCount, blocks.allSatisfy({ $0.count == 16 }) else {
            throw DecodingError.dataCorruptedError(
                forKey: .blocks, in: container, debugDescription: "\(size.blockCount) blocks of 16 bytes expected")
        }
        let blocked = try container.decodeIfPresent(Set<Int>.self, forKey: .blockedSectors) ?? []
        guard blocked.allSatisfy({ (0..<Self.sectorCount(size)).contains($0) }) else {
            throw DecodingError.dataCorruptedError(
                forKey: .blockedSectors, in: container, debugDescription: "blocked sector outside the card")
        }
        self.size = size
        self.uid = uid
        self.blocks = blocks
        blockedSectors = blocked
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(size, forKey: .size)
        try container.encode(uid, forKey: .uid)
        try container.encode(blocks, forKey: .blocks)
        try container.encode(blockedSectors, forKey: .blockedSectors)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.size == rhs.size && lhs.uid == rhs.uid && lhs.blocks == rhs.blocks
            && lhs.blockedSectors == rhs.blockedSectors
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(size)
        hasher.combine(uid)
        hasher.combine(blocks)
    }
}
