/// An NTAG213/215/216 or MIFARE Ultralight EV1 tag, written from the NXP datasheets
/// (NTAG213/215/216 rev. 3.2, MF0ULX1 rev. 3.2), reached through a PC/SC reader: the part 3
/// READ/UPDATE BINARY pseudo-APDUs and the reader family's raw-frame pass-through
/// (``StorageRawFrameDialect``, chosen from the reader's VID:PID when the card is placed).
///
/// - Memory: pages 0–1 UID and BCC0, page 2 BCC1, internal byte and the static lock bytes,
///   page 3 the capability container (one-time programmable: bits only set), user pages, the
///   dynamic lock bytes, CFG0 (`MIRROR/MOD RFUI MIRROR_PAGE AUTH0`), CFG1 (`ACCESS …`), PWD and
///   PACK. PWD and PACK read as zeros. Factory configuration: AUTH0 `FF`, ACCESS `00`, PWD
///   `FF FF FF FF`, PACK `00 00`.
/// - Lock bits: static bits lock pages 3–15 (the page-3 bit the CC), dynamic bits lock groups
///   of pages from 16 on; lock bytes and the CC are ORed in. The block-lock bits (which freeze
///   the lock bits themselves) are stored but not enforced.
/// - PWD_AUTH `1B`: the right password answers PACK and authenticates until power-off; a wrong
///   one NAKs `0` and counts a failed attempt (kept in EEPROM). With AUTHLIM ≠ 0, after 2^AUTHLIM
///   failed attempts every PWD_AUTH NAKs `4`. From AUTH0 on, writes (and reads too with PROT)
///   need the authentication; reads that cross AUTH0 unauthenticated roll over to page 0 there.
///   CFGLCK freezes CFG0 and CFG1.
/// - NFC counter (NTAG21x, NFC_CNT_EN): the first READ or FAST_READ after power-up counts;
///   READ_CNT `39 02` answers it (NAK `0` while counting is disabled, or without PWD_AUTH under
///   NFC_CNT_PWD_PROT). Ultralight EV1: counters 0–2 with READ_CNT and INCR_CNT `A5`.
/// - READ_SIG `3C 00`: a 32-byte signature fixed by the seed (not a valid NXP signature).
/// - NAKs (4 bits): `0` invalid argument or refused access, `4` authentication counter
///   overflow. After a NAK the tag goes back to IDLE: it stays silent until powered again.
/// - Through part 3: `FF B0 00 page 10` is a READ, `FF D6 00 page 04 data` a WRITE; a refused
///   one answers `63 00` on ACS readers and `69 82` elsewhere (`6A 82` for a page not on the
///   tag). The ACS trap: after a successful PWD_AUTH through an ACS reader's pass-through, part 3
///   `FF B0`/`FF D6` answer `63 00` (reported for the ACR122U in `reference/storage-cards.md`)
///   while raw READ/WRITE work.
public struct SimulatedNTAG21xCard: PersistentVirtualCard, ReaderAwareVirtualCard, Hashable {
    public static let persistentKind = "ntag21x"
    public var kind: String { Self.persistentKind }

    public let model: SimulatedType2Model
    /// The 7-byte UID (first byte 04, NXP).
    public let uid: [UInt8]
    /// The whole memory, 4 bytes per page (PWD and PACK included).
    public internal(set) var memory: [UInt8]
    /// The NTAG21x NFC counter (24 bits).
    public internal(set) var nfcCounter: UInt32 = 0
    /// The Ultralight EV1 one-way counters 0–2 (24 bits each).
    public internal(set) var counters: [UInt32] = [0, 0, 0]
    /// Failed PWD_AUTH attempts, against AUTHLIM.
    public internal(set) var failedAuthentications = 0
    /// The originality signature READ_SIG answers.
    public let signature: [UInt8]
    /// The reader's raw-frame route (a part 3 transparent exchange until placed on a reader).
    public internal(set) var rawDialect = StorageRawFrameDialect(route: .part3TransparentExchange)
    /// Whether the reader under the card is an ACS one (the part 3 trap after PWD_AUTH).
    public internal(set) var onACSReader = false

    /// Volatile: PWD_AUTH succeeded since power-up.
    public internal(set) var authenticated = false
    /// Volatile: the tag NAKed and waits for a new activation.
    var halted = false
    /// Volatile: the NFC counter has counted this power-up.
    var counted = false
    /// Volatile: the page a COMPATIBILITY_WRITE acknowledged, waiting for its 16 bytes.
    var pendingCompatibilityWrite: Int?

    public var technology: ContactlessTechnology { .storage(standard: 0x03, cardName: model.cardName) }
    public var readerPassThroughInstructions: Set<UInt8> { rawDialect.instructions.union([0xB0, 0xD6]) }

    /// A tag as it leaves the factory.
    ///
    /// - Parameters:
    ///   - seed: where the UID and the signature come from.
    ///   - model: the product.
    public init(seed: UInt64 = 0, model: SimulatedType2Model = .ntag215) {
        self.model = model
        let uid = ISO7816Card.uid(fromSeed: seed)
        self.uid = uid
        var random = SeededRandom(seed: seed ^ 0x5167_5167)
        signature = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
        var memory = [UInt8](repeating: 0, count: model.pageCount * 4)
        // Datasheet §8.5.1: BCC0 = CT (88h) ⊕ UID0 ⊕ UID1 ⊕ UID2, BCC1 = UID3 ⊕ … ⊕ UID6.
        memory.replaceSubrange(0..<3, with: uid[0..<3])
        memory[3] = 0x88 ^ uid[0] ^ uid[1] ^ uid[2]
        memory.replaceSubrange(4..<8, with: uid[3..<7])
        memory[8] = uid[3] ^ uid[4] ^ uid[5] ^ uid[6]
        memory[9] = 0x48
        memory.replaceSubrange(12..<16, with: model.factoryCapabilityContainer)
        if model.isNTAG { memory.replaceSubrange(16..<19, with: [0x03, 0x00, 0xFE]) }
        let cfg = model.configurationPage * 4
        // CFG0: MIRROR 04 on NTAG (MOD 00 on EV1), AUTH0 FF; CFG1 ACCESS 00, then 05 (datasheet
        // defaults); PWD FF FF FF FF; PACK 00 00.
        memory.replaceSubrange(
            cfg..<cfg + 16,
            with: [
                model.isNTAG ? 0x04 : 0x00, 0x00, 0x00, 0xFF, 0x00, 0x05, 0x00, 0x00,
                0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00,
            ])
        self.memory = memory
    }

    public mutating func placed(onReaderWithVendorID vendorID: UInt16, productID: UInt16) {
        rawDialect = StorageRawFrameDialect(vendorID: vendorID, productID: productID)
        onACSReader = vendorID == 0x072F
    }

    public mutating func powerOn() {
        authenticated = false
        halted = false
        counted = false
        pendingCompatibilityWrite = nil
        rawDialect.reset()
    }

    // MARK: - Configuration

    var auth0: Int { Int(memory[model.configurationPage * 4 + 3]) }
    var access: UInt8 { memory[(model.configurationPage + 1) * 4] }
    var protectsReads: Bool { access & 0x80 != 0 }
    var configurationLocked: Bool { access & 0x40 != 0 }
    var counterEnabled: Bool { model.isNTAG && access & 0x10 != 0 }
    var counterPasswordProtected: Bool { model.isNTAG && access & 0x08 != 0 }
    var authenticationLimit: Int { Int(access & 0x07) }
    var passwordPage: Int { model.configurationPage + 2 }
    var packPage: Int { model.configurationPage + 3 }

    func page(_ number: Int) -> [UInt8] { Array(memory[number * 4..<number * 4 + 4]) }

    // MARK: - Persistence

    private enum CodingKeys: String, CodingKey {
        case model, uid, memory, nfcCounter, counters, failedAuthentications, signature
    }

    /// Decodes a saved tag, refusing memory that does not fit its model, so that an edited
    /// state file cannot make the model trap.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let model = try container.decode(SimulatedType2Model.self, forKey: .model)
        let uid = try container.decode([UInt8].self, forKey: .uid)
        let memory = try container.decode([UInt8].self, forKey: .memory)
        let signature = try container.decode([UInt8].self, forKey: .signature)
        let counters = try container.decode([UInt32].self, forKey: .counters)
        let nfcCounter = try container.decode(UInt32.self, forKey: .nfcCounter)
        let failed = try container.decode(Int.self, forKey: .failedAuthentications)
        guard uid.count == 7 else {
            throw DecodingError.dataCorruptedError(
                forKey: .uid, in: container, debugDescription: "UID must have 7 bytes")
        }
        guard memory.count == model.pageCount * 4 else {
            throw DecodingError.dataCorruptedError(
                forKey: .memory, in: container, debugDescription: "\(model.pageCount) pages of 4 bytes expected")
        }
        guard signature.count == 32 else {
            throw DecodingError.dataCorruptedError(
                forKey: .signature, in: container, debugDescription: "the signature has 32 bytes")
        }
        guard counters.count == 3, (counters + [nfcCounter]).allSatisfy({ $0 <= 0xFF_FFFF }) else {
            throw DecodingError.dataCorruptedError(
                forKey: .counters, in: container, debugDescription: "three 24-bit counters expected")
        }
        guard (0...128).contains(failed) else {
            throw DecodingError.dataCorruptedError(
                forKey: .failedAuthentications, in: container, debugDescription: "0…128 failed attempts expected")
        }
        self.model = model
        self.uid = uid
        self.memory = memory
        self.signature = signature
        self.counters = counters
        self.nfcCounter = nfcCounter
        failedAuthentications = failed
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(model, forKey: .model)
        try container.encode(uid, forKey: .uid)
        try container.encode(memory, forKey: .memory)
        try container.encode(nfcCounter, forKey: .nfcCounter)
        try container.encode(counters, forKey: .counters)
        try container.encode(failedAuthentications, forKey: .failedAuthentications)
        try container.encode(signature, forKey: .signature)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.model == rhs.model && lhs.uid == rhs.uid && lhs.memory == rhs.memory && lhs.nfcCounter == rhs.nfcCounter
            && lhs.counters == rhs.counters && lhs.failedAuthentications == rhs.failedAuthentications
            && lhs.signature == rhs.signature
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(model)
        hasher.combine(uid)
        hasher.combine(memory)
    }
}
