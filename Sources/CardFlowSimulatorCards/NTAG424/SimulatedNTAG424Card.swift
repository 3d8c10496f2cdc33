import CardFlowCrypto

/// An NXP NTAG 424 DNA (NT4H2421Gx), written from the NXP data sheet and application note
/// AN12196 rather than from any client, so that client mistakes show up as the real tag's
/// status codes.
///
/// It implements the NDEF application (DF name `D2760000850101`) with the capability
/// container (file 1, `E103`), the NDEF file (file 2, `E104`, 256 bytes) and the proprietary
/// file (file 3, `E105`, 128 bytes); ISOSelectFile, ISOReadBinary and ISOUpdateBinary; and
/// the ISO-wrapped native commands (`90 INS 00 00 [Lc data] 00`, answers `data 91 SW2`):
/// GetVersion, AuthenticateEV2First/NonFirst with AES keys 0–4, the EV2 secure channel
/// (CommMode.Plain, MAC and Full with TI, command counter and truncated CMAC), GetCardUID,
/// GetFileSettings, ChangeFileSettings with Secure Dynamic Messaging, ReadData, WriteData,
/// GetFileCounters, ChangeKey, GetKeyVersion, Read_Sig and SetConfiguration.
///
/// With SDM enabled on the NDEF file, an unauthenticated read increments SDMReadCtr (once per
/// selection) and mirrors UID, counter or enciphered PICCData, SDMENCFileData and SDMMAC into
/// the URL as AN12196 §3 describes.
///
/// ```swift
/// var tag = SimulatedNTAG424Card(seed: 3)                  // factory state, keys 16 × 00
/// tag.scriptedRandom = rndB + transactionID                // reproduce a published trace
/// tag.powerOn()
/// tag.process([0x00, 0xA4, 0x04, 0x0C, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00])  // 90 00
/// tag.process([0x90, 0x71, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00])  // E(K0, RndB) 91 AF
/// ```
///
/// Factory state (data sheet §8.2): five AES keys of 16 × 00, versions 00; the CC file
/// `001720010000FF0406E10401000000 0506E10500808283` padded to 32 bytes, free read and key 0
/// for the rest; the NDEF file zeroed, plain, free read and write, change with key 0; the
/// proprietary file zeroed, CommMode.Full, read key 2, write and read-write key 3, change key 0.
///
/// The NXP originality signature (Read_Sig) cannot be produced without NXP's private key:
/// the card answers a fixed 56-byte value derived from its UID, which no NXP public key verifies.
public struct SimulatedNTAG424Card: PersistentVirtualCard {
    /// The state-file kind, `"ntag424"`.
    public static let persistentKind = "ntag424"
    /// DF name of the NDEF application.
    public static let applicationDFName: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]
    /// The factory capability container (NT4H2421Gx §8.2.2): NDEF file E104 (256 bytes, free
    /// read and write) and proprietary file E105 (128 bytes, read and write with keys 2 and 3).
    public static let factoryCapabilityContainer: [UInt8] =
        [
            0x00, 0x17, 0x20, 0x01, 0x00, 0x00, 0xFF, 0x04, 0x06, 0xE1, 0x04, 0x01, 0x00, 0x00, 0x00,
            0x05, 0x06, 0xE1, 0x05, 0x00, 0x80, 0x82, 0x83,
        ] + [UInt8](repeating: 0, count: 9)
    /// The NTAG 424 DNA ATS `06 77 77 71 02 80` (FSCI 7: 128-byte frames).
    public static let technology: ContactlessTechnology = .isoDepTypeA(ats: [0x06, 0x77, 0x77, 0x71, 0x02, 0x80])

    /// What a test or an application can set before the card is first used.
    public struct Configuration: Sendable, Hashable {
        /// The 7-byte UID (first byte `04`, NXP); nil derives one from the seed.
        public var uid: [UInt8]?
        /// The five AES-128 application keys 0–4.
        public var keys: [[UInt8]]
        /// Their versions, as GetKeyVersion reports them.
        public var keyVersions: [UInt8]
        /// Initial content of the NDEF file (zero-padded to 256 bytes).
        public var ndefFile: [UInt8]
        /// Initial settings of the NDEF file (nil: the factory settings).
        public var ndefFileSettings: SimulatedNTAG424FileSettings?
        /// Initial SDMReadCtr of the NDEF file.
        public var sdmReadCounter: UInt32
        /// Random ID on (SetConfiguration option 00 bit 1): anticollision shows `08` and 3
        /// random bytes, new at each power-on.
        public var randomID: Bool

        /// The factory configuration (keys 16 × 00, version 00, empty NDEF file).
        public init(
            uid: [UInt8]? = nil, keys: [[UInt8]] = Array(repeating: [UInt8](repeating: 0, count: 16), count: 5),
            keyVersions: [UInt8] = [0, 0, 0, 0, 0], ndefFile: [UInt8] = [],
            ndefFileSettings: SimulatedNTAG424FileSettings? = nil, sdmReadCounter: UInt32 = 0, randomID: Bool = false
        ) {
            self.uid = uid
            self.keys = keys
            self.keyVersions = keyVersions
            self.ndefFile = ndefFile
            self.ndefFileSettings = ndefFileSettings
            self.sdmReadCounter = sdmReadCounter
            self.randomID = randomID
        }
    }

    /// Why a ``Configuration`` cannot describe an NTAG 424 DNA.
    public enum ConfigurationError: Error, Sendable, Hashable {
        /// The UID does not have 7 bytes.
        case invalidUID
        /// Not five keys of 16 bytes and five versions.
        case invalidKeys
        /// The NDEF content is longer than the 256-byte file.
        case ndefFileTooLong
        /// The NDEF file settings fail the data sheet's checks (as ChangeFileSettings would: 91 9E).
        case invalidFileSettings
        /// SDMReadCtr above 0xFFFFFF.
        case invalidReadCounter
    }

    /// `"ntag424"`.
    public var kind: String { Self.persistentKind }
    /// ISO-DEP type A with the NTAG 424 DNA ATS.
    public var technology: ContactlessTechnology { Self.technology }
    /// The card's 7-byte UID, as GetCardUID returns it.
    public internal(set) var realUID: [UInt8]
    /// The anticollision UID: ``realUID``, or with random ID on the 4-byte ID of this power cycle.
    public var uid: [UInt8] { randomIDEnabled ? currentRandomID : realUID }
    /// Whether the random ID is on (SetConfiguration can turn it on, never off).
    public internal(set) var randomIDEnabled: Bool

    /// Bytes the card draws before its seeded generator, in order: RndB (16), the TI (4) of an
    /// AuthenticateEV2First, PICCData padding, random IDs. Tests set them to replay a published
    /// trace byte for byte. Not persisted.
    public var scriptedRandom: [UInt8] = []

    /// The fixed 56-byte value Read_Sig answers (not an NXP signature).
    public var originalitySignature: [UInt8] { Self.signature(for: realUID) }

    // Persistent part.
    var keys: [[UInt8]]
    var keyVersions: [UInt8]
    var files: [NTAG424File]
    var randomState: UInt64
    var productionBatch: [UInt8]

    // Volatile part.
    var currentRandomID: [UInt8] = []
    var applicationSelected = false
    var selectedFile: UInt8?
    var session: EV2CardSession?
    var pending: NTAG424Pending?
    /// The mirrored NDEF image of this selection, once an unauthenticated read counted it.
    var sdmImage: [UInt8]?

    /// A factory-fresh tag whose UID and batch number derive from `seed`.
    public init(seed: UInt64 = 0) {
        var generator = SeededRandom(seed: seed ^ 0x4E54_4147_3432_3444)
        let z = generator.next()
        realUID = [0x04] + (0..<6).map { UInt8(truncatingIfNeeded: z >> (8 * UInt64($0))) }
        let batch = generator.next()
        productionBatch = (0..<5).map { UInt8(truncatingIfNeeded: batch >> (8 * UInt64($0))) }
        randomState = generator.next()
        keys = Array(repeating: [UInt8](repeating: 0, count: 16), count: 5)
        keyVersions = [0, 0, 0, 0, 0]
        files = NTAG424File.factoryFiles
        randomIDEnabled = false
    }

    /// A tag in the state `configuration` describes.
    ///
    /// - Throws: ``ConfigurationError`` for a state the tag could not be in.
    public init(seed: UInt64 = 0, configuration: Configuration) throws(ConfigurationError) {
        self.init(seed: seed)
        if let uid = configuration.uid {
            guard uid.count == 7 else { throw .invalidUID }
            realUID = uid
        }
        guard configuration.keys.count == 5, configuration.keys.allSatisfy({ $0.count == 16 }),
            configuration.keyVersions.count == 5
        else { throw .invalidKeys }
        keys = configuration.keys
        keyVersions = configuration.keyVersions
        guard configuration.ndefFile.count <= 256 else { throw .ndefFileTooLong }
        files[1].data = configuration.ndefFile + [UInt8](repeating: 0, count: 256 - configuration.ndefFile.count)
        if let settings = configuration.ndefFileSettings {
            do { try settings.validate(fileNumber: 2, fileSize: 256) } catch { throw .invalidFileSettings }
            files[1].settings = settings
        }
        guard configuration.sdmReadCounter <= 0xFF_FFFF else { throw .invalidReadCounter }
        files[1].sdmReadCounter = configuration.sdmReadCounter
        randomIDEnabled = configuration.randomID
        if randomIDEnabled { currentRandomID = [0x08] + randomBytes(3) }
    }

    /// The content of file 1 (CC), 2 (NDEF) or 3 (proprietary) as stored (no SDM mirror).
    public func fileContent(_ fileNumber: UInt8) -> [UInt8]? { files.first { $0.number == fileNumber }?.data }

    /// The settings of file 1, 2 or 3.
    public func fileSettings(_ fileNumber: UInt8) -> SimulatedNTAG424FileSettings? {
        files.first { $0.number == fileNumber }?.settings
    }

    /// The NDEF file's SDMReadCtr.
    public var sdmReadCounter: UInt32 { files[1].sdmReadCounter }

    /// The version of key 0–4.
    public func keyVersion(_ keyNumber: Int) -> UInt8? {
        keyVersions.indices.contains(keyNumber) ? keyVersions[keyNumber] : nil
    }

    /// Field on: nothing selected, no session, no pending frames, the SDM mirror recounted at
    /// the next read, and with random ID on a new ID.
    public mutating func powerOn() {
        applicationSelected = false
        selectedFile = nil
        session = nil
        pending = nil
        sdmImage = nil
        if randomIDEnabled { currentRandomID = [0x08] + randomBytes(3) }
    }

    // MARK: Randomness

    /// Scripted bytes first, then the persisted generator.
    mutating func randomBytes(_ count: Int) -> [UInt8] {
        var out = Array(scriptedRandom.prefix(count))
        scriptedRandom.removeFirst(out.count)
        var generator = SeededRandom(seed: randomState)
        while out.count < count {
            let word = generator.next()
            out += (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * UInt64($0))) }.prefix(count - out.count)
        }
        randomState = generator.next()
        return out
    }

    static func signature(for uid: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var block: UInt8 = 0
        while out.count < 56 {
            out +=
                (try? AESCMAC.mac(uid + [block], key: Array("NTAG424 sim sig.".utf8)))
                ?? [UInt8](repeating: block, count: 16)
            block &+= 1
        }
        return Array(out.prefix(56))
    }

    /// Test hook: continue a session whose keys a publication gives directly (AN12196 Tables 7,
    /// 27, 28 print session keys without the authentication that made them).
    mutating func installSession(
        keyNumber: UInt8, encryptionKey: [UInt8], macKey: [UInt8],
        transactionIdentifier: [UInt8], commandCounter: UInt16 = 0
    ) {
        applicationSelected = true
        session = EV2CardSession(
            keyNumber: keyNumber, encryptionKey: encryptionKey, macKey: macKey,
            transactionIdentifier: transactionIdentifier, commandCounter: commandCounter)
    }

    /// Test hook: replace a file's settings without a command (validated like ChangeFileSettings).
    mutating func setFileSettings(_ settings: SimulatedNTAG424FileSettings, file number: UInt8) -> Bool {
        guard let index = files.firstIndex(where: { $0.number == number }),
            (try? settings.validate(fileNumber: number, fileSize: files[index].data.count)) != nil
        else { return false }
        files[index].settings = settings
        return true
    }

    // MARK: Persistence

    private enum CodingKeys: String, CodingKey {
        case realUID, randomIDEnabled, keys, keyVersions, files, randomState, productionBatch
    }

    /// Restores keys, files, counters, UID and configuration.
    ///
    /// - Throws: `DecodingError.dataCorrupted` for a state the tag could never be in.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        realUID = try container.decode([UInt8].self, forKey: .realUID)
        randomIDEnabled = try container.decode(Bool.self, forKey: .randomIDEnabled)
        keys = try container.decode([[UInt8]].self, forKey: .keys)
        keyVersions = try container.decode([UInt8].self, forKey: .keyVersions)
        files = try container.decode([NTAG424File].self, forKey: .files)
        randomState = try container.decode(UInt64.self, forKey: .randomState)
        productionBatch = try container.decode([UInt8].self, forKey: .productionBatch)
        let factory = NTAG424File.factoryFiles
        guard realUID.count == 7, keys.count == 5, keys.allSatisfy({ $0.count == 16 }), keyVersions.count == 5,
            productionBatch.count == 5, files.count == factory.count,
            zip(files, factory).allSatisfy({
                $0.number == $1.number && $0.isoID == $1.isoID && $0.data.count == $1.data.count
            }),
            files.allSatisfy({
                $0.sdmReadCounter <= 0xFF_FFFF
                    && (try? $0.settings.validate(fileNumber: $0.number, fileSize: $0.data.count)) != nil
            })
        else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "not a state an NTAG 424 DNA can be in"))
        }
        if randomIDEnabled { currentRandomID = [0x08] + randomBytes(3) }
    }

    /// Saves the persistent part; selection and session are not saved.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(realUID, forKey: .realUID)
        try container.encode(randomIDEnabled, forKey: .randomIDEnabled)
        try container.encode(keys, forKey: .keys)
        try container.encode(keyVersions, forKey: .keyVersions)
        try container.encode(files, forKey: .files)
        try container.encode(randomState, forKey: .randomState)
        try container.encode(productionBatch, forKey: .productionBatch)
    }
}

/// One of the three standard data files (internal).
struct NTAG424File: Hashable, Codable, Sendable {
    let number: UInt8
    let isoID: UInt16
    var data: [UInt8]
    var settings: SimulatedNTAG424FileSettings
    /// SDMReadCtr (24 bits), used by file 2.
    var sdmReadCounter: UInt32 = 0

    static let factoryFiles: [NTAG424File] = [
        NTAG424File(
            number: 1, isoID: 0xE103, data: SimulatedNTAG424Card.factoryCapabilityContainer,
            settings: .init(
                communicationMode: .plain, accessRights: .init(read: 0xE, write: 0, readWrite: 0, change: 0))),
        NTAG424File(
            number: 2, isoID: 0xE104, data: [UInt8](repeating: 0, count: 256),
            settings: .init(
                communicationMode: .plain, accessRights: .init(read: 0xE, write: 0xE, readWrite: 0xE, change: 0))),
        NTAG424File(
            number: 3, isoID: 0xE105, data: [UInt8](repeating: 0, count: 128),
            settings: .init(communicationMode: .full, accessRights: .init(read: 2, write: 3, readWrite: 3, change: 0))),
    ]
}

/// A multi-frame exchange waiting for `90 AF` (internal).
enum NTAG424Pending: Hashable, Sendable {
    case frames([[UInt8]])
    case authenticateFirst(keyNumber: UInt8, rndB: [UInt8], pcdCapabilities: [UInt8])
    case authenticateNonFirst(keyNumber: UInt8, rndB: [UInt8])
}
