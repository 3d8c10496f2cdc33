import CardFlowCrypto

/// A MIFARE DESFire EV1 (8K) card, written from the DESFire EV1 host protocol specification
/// (ISO-wrapped native commands `90 INS 00 00 [Lc data] 00`, answers `data 91 SW2`).
///
/// It implements the EV1 command set: PICC and application management, the three
/// authentications (0x0A legacy, 0x1A ISO, 0xAA AES) with session keys, EV1 secure messaging
/// (CMAC / IV chaining, CRC32, enciphered data) and legacy D40 messaging (CRC16, 4-byte MAC),
/// ChangeKey / ChangeKeySettings, standard, backup, value and record files with transactions,
/// additional-frame chaining in both directions and 32-byte memory accounting.
///
/// ```swift
/// var card = DESFireCard(seed: 7)
/// card.powerOn()
/// card.process([0x90, 0x5A, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00])  // select PICC → 91 00
/// card.process([0x90, 0x60, 0x00, 0x00, 0x00])                          // GetVersion → HW … 91 AF
/// ```
///
/// Factory state: PICC master key DES 16×00 (version 0), PICC key settings 0x0F, no
/// applications, ``memoryCapacity`` bytes free. Random numbers (RndB, random UIDs) come
/// from a generator seeded by `seed`; tests can fix the next RndB with ``nextChallengeOverride``.
public struct DESFireCard: PersistentVirtualCard {
    /// The state-file kind, `"desfire"`.
    public static let persistentKind = "desfire"
    /// User memory of the emulated EV1 8K card after FormatPICC, in bytes (GetFreeMemory on a
    /// factory card). Only files are charged, in 32-byte blocks (backup files twice); application
    /// and key overheads of real cards are not public.
    public static let memoryCapacity = 7936
    /// Largest response data per frame (EV1 frame size 64 minus protocol overhead).
    public static let maxResponseFrame = 59

    /// `"desfire"`.
    public var kind: String { Self.persistentKind }
    /// ISO-DEP type A with the DESFire EV1 ATS, or the ATS set with SetConfiguration option 02.
    public var technology: ContactlessTechnology { userATS.map { .isoDepTypeA(ats: $0) } ?? .desfireTypeA }

    /// The card's real 7-byte UID (NXP, first byte 0x04), as GetVersion and GetCardUID report it.
    public internal(set) var realUID: [UInt8]
    /// Whether the card hides its UID behind a fresh random 4-byte ID (first byte 0x08) at every
    /// power-on: chosen at creation, or switched on (for good) by SetConfiguration option 00.
    public internal(set) var randomUID: Bool

    /// The anti-collision UID: ``realUID``, or the random ID of the current power cycle.
    public var uid: [UInt8] { randomUID ? currentRandomID : realUID }

    /// Test hook: the RndB the next authentication uses (8 bytes for DES/2K3DES keys, 16 for
    /// 3K3DES/AES), consumed by it. Ignored if its length does not match the key. Not persisted.
    public var nextChallengeOverride: [UInt8]?

    // Persistent part.
    var picc: DESFireApplication
    var applications: [DESFireApplication]
    /// Bytes allocated since the last FormatPICC (deleted files stay allocated).
    var allocatedMemory: Int
    var randomState: UInt64
    var productionBatch: [UInt8]
    /// SetConfiguration option 00 bit 0: FormatPICC is refused.
    var formatDisabled = false
    /// SetConfiguration option 01: the key new applications get (24 bytes, zero-padded) and its version.
    var defaultKeyData = [UInt8](repeating: 0, count: DESFireCard.defaultKeyFieldLength)
    var defaultKeyVersion: UInt8 = 0
    /// SetConfiguration option 02: the user-defined ATS, `nil` for the factory one.
    var userATS: [UInt8]?

    // Volatile part, cleared by powerOn.
    var currentRandomID: [UInt8] = []
    var selectedAID: UInt32 = 0
    /// The elementary file ISO SELECT chose in the selected application (its ISO file ID).
    var selectedISOFileID: UInt16?
    var session: DESFireSession?
    var pendingAuthentication: DESFirePendingAuthentication?
    var pendingCommand: (ins: UInt8, data: [UInt8])?
    var pendingFrames: [[UInt8]] = []
    var transaction = DESFireTransaction()

    /// A factory-fresh card whose UID and batch number derive from `seed`.
    ///
    /// - Parameters:
    ///   - seed: where the UID and batch number come from.
    ///   - randomUID: answer anti-collision with a random 4-byte ID instead of the UID
    ///     (the real UID is then only available through GetCardUID after authentication).
    public init(seed: UInt64, randomUID: Bool = false) {
        var generator = SeededRandom(seed: seed)
        let z = generator.next()
        realUID = [0x04] + (0..<6).map { UInt8(truncatingIfNeeded: z >> (8 * UInt64($0))) }
        let batch = generator.next()
        productionBatch = (0..<5).map { UInt8(truncatingIfNeeded: batch >> (8 * UInt64($0))) }
        randomState = generator.next()
        self.randomUID = randomUID
        picc = .factoryPICC
        applications = []
        allocatedMemory = 0
        if randomUID { currentRandomID = drawRandomID() }
    }

    /// Free user memory, as GetFreeMemory reports it.
    public var freeMemory: Int { max(0, DESFireMemory.capacity - allocatedMemory) }

    /// The AIDs of the applications present, in creation order.
    public var applicationIDs: [UInt32] { applications.map(\.aid) }

    /// Field on: the PICC level is selected, the session, pending frames and uncommitted changes
    /// are gone, and a random-ID card draws a new ID.
    public mutating func powerOn() {
        selectedAID = 0
        selectedISOFileID = nil
        session = nil
        pendingAuthentication = nil
        pendingCommand = nil
        pendingFrames = []
        transaction = DESFireTransaction()
        if randomUID { currentRandomID = drawRandomID() }
    }

    // MARK: Randomness

    /// Deterministic bytes from the persisted generator state.
    mutating func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SeededRandom(seed: randomState)
        var out: [UInt8] = []
        while out.count < count {
            let word = generator.next()
            out += (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * UInt64($0))) }
        }
        randomState = generator.next()
        return Array(out.prefix(count))
    }

    private mutating func drawRandomID() -> [UInt8] {
        [0x08] + randomBytes(3)
    }

    // MARK: Persistence

    private enum CodingKeys: String, CodingKey {
        case realUID, randomUID, picc, applications, allocatedMemory, randomState, productionBatch
        case formatDisabled, defaultKeyData, defaultKeyVersion, userATS
    }

    /// Restores the persistent part (applications, files, keys, memory, UID, random state).
    ///
    /// - Throws: `DecodingError.dataCorrupted` for a state the card could never reach (wrong
    ///   key lengths, too many applications or files, inconsistent records or values, memory
    ///   beyond the card's), which ``CardStateStore`` reports as ``CardStateError/corrupt(path:reason:)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        realUID = try container.decode([UInt8].self, forKey: .realUID)
        randomUID = try container.decode(Bool.self, forKey: .randomUID)
        picc = try container.decode(DESFireApplication.self, forKey: .picc)
        applications = try container.decode([DESFireApplication].self, forKey: .applications)
        allocatedMemory = try container.decode(Int.self, forKey: .allocatedMemory)
        randomState = try container.decode(UInt64.self, forKey: .randomState)
        productionBatch = try container.decode([UInt8].self, forKey: .productionBatch)
        // SetConfiguration's settings: absent from state files written before it existed.
        formatDisabled = try container.decodeIfPresent(Bool.self, forKey: .formatDisabled) ?? false
        defaultKeyData =
            try container.decodeIfPresent([UInt8].self, forKey: .defaultKeyData)
            ?? [UInt8](repeating: 0, count: Self.defaultKeyFieldLength)
        defaultKeyVersion = try container.decodeIfPresent(UInt8.self, forKey: .defaultKeyVersion) ?? 0
        userATS = try container.decodeIfPresent([UInt8].self, forKey: .userATS)
        try Self.validatePersistentState(
            realUID: realUID, picc: picc, applications: applications,
            allocatedMemory: allocatedMemory, productionBatch: productionBatch)
        try Self.validateConfiguration(defaultKeyData: defaultKeyData, userATS: userATS)
        if randomUID { currentRandomID = drawRandomID() }
    }

    /// Saves the persistent part; volatile state (selection, session, transaction) is not saved.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(realUID, forKey: .realUID)
        try container.encode(randomUID, forKey: .randomUID)
        try container.encode(picc, forKey: .picc)
        try container.encode(applications, forKey: .applications)
        try container.encode(allocatedMemory, forKey: .allocatedMemory)
        try container.encode(randomState, forKey: .randomState)
        try container.encode(productionBatch, forKey: .productionBatch)
        try container.encode(formatDisabled, forKey: .formatDisabled)
        try container.encode(defaultKeyData, forKey: .defaultKeyData)
        try container.encode(defaultKeyVersion, forKey: .defaultKeyVersion)
        try container.encodeIfPresent(userATS, forKey: .userATS)
    }
}
