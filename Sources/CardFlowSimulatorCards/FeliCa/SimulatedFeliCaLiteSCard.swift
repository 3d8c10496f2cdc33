/// A FeliCa Lite-S (RC-S966) card, written from Sony's FeliCa Lite-S user's manual and the FeliCa
/// Card User's Manual (Excerpted Edition) — not from CardFlow's client — reached through a PC/SC
/// reader's raw-frame pass-through (``StorageRawFrameDialect``, chosen from the reader's VID:PID
/// when the card is placed). PC/SC part 3 GET DATA answers the IDm.
///
/// - Frames: `LEN CODE …`, LEN counting itself. A frame whose LEN does not match, a command for
///   another IDm, and a command code the model does not implement get no answer (as a real card
///   discards them): Polling `00`, Read Without Encryption `06` and Write Without Encryption
///   `08` are implemented; Request Service, Request Response, Search Service Code and Request
///   System Code are not.
/// - Polling answers system code `88B4`, `12FC` while NDEF is on (MC_SYS_OP bit 0), and `FF` in
///   either byte as a wildcard; request code 01 adds the system code (`12FC` for a wildcard
///   while NDEF is on, else `88B4`), 02 the communication performance `00 83` (212 and
///   424 kbit/s, automatic).
/// - Memory: S_PAD0–13 (`00`–`0D`) and REG (`0E`, kept as a plain block: its subtraction rule
///   is not modelled), ID (`82`), D_ID (`83`: IDm and PMm), SER_C (`84`), SYS_C (`85`), CKV
///   (`86`), CK (`87`, reads as zeros), MC (`88`), WCNT (`90`: writes to S_PAD/REG so far, 24
///   bits, little endian). The blocks of MAC authentication (RC `80`, MAC `81`, MAC_A `91`,
///   STATE `92`, CRC_CHECK `A0`) are not modelled and answer as missing blocks.
/// - Access: reads through `000B` or `0009`, up to four blocks per command; writes through
///   `0009` only, one block per command. MC bytes 0–1 say which of S_PAD0–13/REG are writable;
///   bytes 6–7 which need authentication to be read (`B1`, as nothing authenticates here); bytes
///   8–11 which need authentication or a MAC to be written (refused as read-only); MC byte 2
///   `FF` keeps ID, CKV, CK and MC writable, `00` freezes them. A writable-bit once cleared in MC
///   stays cleared (a write cannot make a read-only block writable again).
/// - Status flags (flag 1, flag 2): `FF A1` a service count other than one or an unknown service;
///   `FF A2` a block count outside the limits; element bit and `A3` a block of a service not in
///   the list; element bit and `A7` an access mode other than 000; element bit and `A8` a
///   missing block or one not writable; element bit and `B1` a read needing authentication;
///   `FF A6` a write through the read-only service (the manual's code for that case was not
///   checked: the generic "illegal service code list").
public struct SimulatedFeliCaLiteSCard: PersistentVirtualCard, ReaderAwareVirtualCard, Hashable {
    public static let persistentKind = "felica-lite-s"
    public var kind: String { Self.persistentKind }

    /// PMm: ROM type 00, IC type F1 (Lite-S), then the response-time parameters.
    public static let pmm: [UInt8] = [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00]
    /// The memory configuration as shipped: every user block writable, system blocks writable,
    /// NDEF off, RF parameter 07.
    public static let factoryMemoryConfiguration: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ]

    /// The manufacture ID (Sony's manufacturer code `01 2E`, then six bytes from the seed).
    public let idm: [UInt8]
    /// S_PAD0–13 and REG, 16 bytes each.
    public internal(set) var userBlocks: [UInt8]
    /// ID (`82`), CKV (`86`), CK (`87`), MC (`88`).
    public internal(set) var identification: [UInt8]
    public internal(set) var cardKeyVersion: [UInt8]
    public internal(set) var cardKey: [UInt8]
    public internal(set) var memoryConfiguration: [UInt8]
    /// WCNT: writes to S_PAD/REG (24 bits).
    public internal(set) var writeCount: UInt32 = 0
    /// The reader's raw-frame route (a part 3 transparent exchange until placed on a reader).
    public internal(set) var rawDialect = StorageRawFrameDialect(route: .part3TransparentExchange)

    public var uid: [UInt8] { idm }
    public var technology: ContactlessTechnology { .felica }
    public var readerPassThroughInstructions: Set<UInt8> { rawDialect.instructions }

    /// A card as it leaves the factory, or NDEF-formatted (NDEF on, an attribute block for the
    /// 13 blocks S_PAD1–13, an empty message).
    public init(seed: UInt64 = 0, ndefFormatted: Bool = false) {
        var random = SeededRandom(seed: seed ^ 0xFE11_CA00)
        let z = random.next()
        idm = [0x01, 0x2E] + (0..<6).map { UInt8(truncatingIfNeeded: z >> (8 * UInt64($0))) }
        userBlocks = [UInt8](repeating: 0, count: 15 * 16)
        identification = idm + [UInt8](repeating: 0, count: 8)
        cardKeyVersion = [UInt8](repeating: 0, count: 16)
        cardKey = [UInt8](repeating: 0, count: 16)
        memoryConfiguration = Self.factoryMemoryConfiguration
        if ndefFormatted {
            memoryConfiguration[3] |= 0x01
            // Attribute block: Ver 10, Nbr 4, Nbw 1, NmaxB 13, WriteF 00, RWFlag 01, Ln 0.
            var attributes: [UInt8] = [0x10, 0x04, 0x01, 0x00, 0x0D, 0, 0, 0, 0, 0x00, 0x01, 0, 0, 0]
            let sum = attributes.reduce(0) { $0 + Int($1) }
            attributes += [UInt8(truncatingIfNeeded: sum >> 8), UInt8(truncatingIfNeeded: sum)]
            userBlocks.replaceSubrange(0..<16, with: attributes)
        }
    }

    public mutating func placed(onReaderWithVendorID vendorID: UInt16, productID: UInt16) {
        rawDialect = StorageRawFrameDialect(vendorID: vendorID, productID: productID)
    }

    public mutating func powerOn() {
        rawDialect.reset()
    }

    /// The reader's pass-through carries FeliCa frames; other pseudo-APDUs are not for this card.
    public mutating func process(_ command: [UInt8]) -> [UInt8] {
        switch rawDialect.request(from: command) {
        case .frame(let frame): return rawDialect.response(to: answer(frame))
        case .answered(let bytes): return bytes
        case .notRaw: return command.first == 0xFF ? [0x6D, 0x00] : [0x6E, 0x00]
        }
    }

    var ndefEnabled: Bool { memoryConfiguration[3] & 0x01 != 0 }
    var systemBlocksWritable: Bool { memoryConfiguration[2] == 0xFF }

    // MARK: - Persistence

    private enum CodingKeys: String, CodingKey {
        case idm, userBlocks, identification, cardKeyVersion, cardKey, memoryConfiguration, writeCount
    }

    /// Decodes a saved card, refusing blocks of the wrong size, so that an edited state file
    /// cannot make the model trap.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func bytes(_ key: CodingKeys, count: Int) throws -> [UInt8] {
            let value = try container.decode([UInt8].self, forKey: key)
            guard value.count == count else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container, debugDescription: "\(count) bytes expected, not \(value.count)")
            }
            return value
        }
        idm = try bytes(.idm, count: 8)
        userBlocks = try bytes(.userBlocks, count: 15 * 16)
        identification = try bytes(.identification, count: 16)
        cardKeyVersion = try bytes(.cardKeyVersion, count: 16)
        cardKey = try bytes(.cardKey, count: 16)
        memoryConfiguration = try bytes(.memoryConfiguration, count: 16)
        let count = try container.decode(UInt32.self, forKey: .writeCount)
        guard count <= 0xFF_FFFF else {
            throw DecodingError.dataCorruptedError(
                forKey: .writeCount, in: container, debugDescription: "WCNT has 24 bits")
        }
        writeCount = count
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(idm, forKey: .idm)
        try container.encode(userBlocks, forKey: .userBlocks)
        try container.encode(identification, forKey: .identification)
        try container.encode(cardKeyVersion, forKey: .cardKeyVersion)
        try container.encode(cardKey, forKey: .cardKey)
        try container.encode(memoryConfiguration, forKey: .memoryConfiguration)
        try container.encode(writeCount, forKey: .writeCount)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.idm == rhs.idm && lhs.userBlocks == rhs.userBlocks && lhs.identification == rhs.identification
            && lhs.cardKeyVersion == rhs.cardKeyVersion && lhs.cardKey == rhs.cardKey
            && lhs.memoryConfiguration == rhs.memoryConfiguration && lhs.writeCount == rhs.writeCount
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(idm)
        hasher.combine(userBlocks)
        hasher.combine(memoryConfiguration)
    }
}
