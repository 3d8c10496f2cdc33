/// A generic ISO/IEC 7816-4 card with a small file system of transparent EFs.
///
/// Commands (class `00`, basic logical channel, no secure messaging, no chaining):
/// - SELECT `A4`: `P1` = `00` (MF, DF or EF by identifier; empty data or `3F00` = MF),
///   `01` (child DF), `02` (EF under the current DF), `03` (parent DF), `04` (DF name / AID,
///   1…16 bytes, partial names match as a prefix; `P2` occurrence `00` first or `02` next),
///   `08` (path from the MF), `09` (path from the current DF). `P2` response `00` returns the
///   FCI (`6F` with `83` file identifier and `84` DF name for a DF; `82 01 01`, `83`, `80` size
///   for an EF), `04` the same objects as FCP (`62`), `0C` no data. A SELECT without `Le` that
///   asks for the FCI still returns it (as most real cards do). Not found: `6A 82`, and the
///   selection does not change.
/// - READ BINARY `B0` (case 2): offset in `P1 P2` (15 bits), or with `P1` bit 8 set a short EF
///   identifier in `P1` bits 5–1 (bits 7–6 zero) and the offset in `P2`; the EF becomes current.
///   Offset at or past the end: `6B 00`; fewer bytes left than `Le`: those bytes with `62 82`
///   (or `6C XX` with ``ISO7816CardOptions/strictLe``).
/// - UPDATE BINARY `D6` (case 3 only): same addressing; writing past the end: `6A 84`;
///   offset past the end: `6B 00`.
/// - GET RESPONSE `C0` (`P1 P2 = 00 00`, case 2): delivers data left over when a response was
///   longer than ``ISO7816CardOptions/maxResponseLength`` or than `Le` (announced by `61 XX`,
///   `XX = 00` meaning 256 or more). An explicit `Le` larger than what is left: `6C XX`;
///   `Le = 00` takes what is left (`6C XX` with ``ISO7816CardOptions/strictLe``). No data left:
///   `69 85`. Any other command discards the leftover data.
///
/// Status words: `67 00` malformed APDU (fewer than 4 bytes, Lc/Le inconsistent with the
/// length, extended APDU when not enabled, wrong case or data length); `6E 00` class not
/// supported (proprietary class `8x`–`Fx` or RFU `2x`/`3x`); `68 81` logical channel other
/// than 0; `68 82` secure messaging; `68 84` command chaining; `6D 00` instruction not
/// supported; `6A 86` wrong `P1 P2`; `69 86` no current EF; `69 81` current file not an EF;
/// `69 82` access denied by the EF's rules; `6A 82` file not found.
/// Checks run in this order: length structure, class, instruction, parameters.
///
/// The default card (``init(seed:technology:options:contactInterface:)``) has a master file with
/// - application DF `7001`, AID ``defaultApplicationID`` (`A0 00 00 02 47 10 01`), holding
///   EF `0101` (SFI 1, 32 bytes `00 01 … 1F`, read/update), EF `0102` (SFI 2, 1000 bytes,
///   byte *i* = *i* mod 251, read/update) and EF `0103` (SFI 3, 16 bytes ASCII
///   `"CardFlow RO file"`, read-only);
/// - application DF `7002`, AID ``secondApplicationID`` (`A0 00 00 02 47 20 01`), holding
///   EF `0101` (8 bytes `AA`, read/update),
///
/// a 7-byte UID derived from the seed (``uid(fromSeed:)``), and ISO-DEP type A with the
/// DESFire EV1 ATS `06 75 77 81 02 80` (historical byte `80`, ATR `3B 81 80 01 80 80`).
public struct ISO7816Card: PersistentVirtualCard, Hashable {
    /// The kind of this model, `"iso7816"`.
    public static let persistentKind = "iso7816"

    /// AID of the default application, `A0 00 00 02 47 10 01`.
    public static let defaultApplicationID: [UInt8] = [0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]

    /// AID of the second default application, `A0 00 00 02 47 20 01`.
    public static let secondApplicationID: [UInt8] = [0xA0, 0x00, 0x00, 0x02, 0x47, 0x20, 0x01]

    /// `"iso7816"`.
    public var kind: String { Self.persistentKind }

    /// What the reader sees on RF (or the contact ATR).
    public let technology: ContactlessTechnology

    /// The anti-collision UID.
    public let uid: [UInt8]

    /// Behaviour switches.
    public var options: ISO7816CardOptions

    /// Contact interface options (protocols, TA1 speed, specific mode, PPS behaviour); nil for
    /// the contactless card. When set, ``technology`` is the contact ATR it describes.
    public let contactInterface: ContactInterface?

    /// The card's files (persistent).
    public private(set) var fileSystem: ISO7816FileSystem

    // Volatile state (not persisted).
    private var currentDedicatedFile: [Int] = []
    private var currentElementaryFile: Int?
    private var pendingData: [UInt8] = []
    private var pendingStatus: UInt16 = 0x9000
    private var hasPendingResponse = false

    /// Creates a card with an explicit UID and file system.
    ///
    /// - Parameters:
    ///   - uid: anti-collision UID (4, 7 or 10 bytes; 8 for ISO 15693).
    ///   - technology: RF view of the card.
    ///   - options: behaviour switches.
    ///   - fileSystem: the files.
    ///   - contactInterface: makes it a contact card with this ATR and PPS behaviour
    ///     (`technology` is then ignored).
    public init(
        uid: [UInt8], technology: ContactlessTechnology = .desfireTypeA,
        options: ISO7816CardOptions = ISO7816CardOptions(), fileSystem: ISO7816FileSystem,
        contactInterface: ContactInterface? = nil
    ) {
        self.uid = uid
        self.contactInterface = contactInterface
        self.technology = contactInterface.map { .contact(atr: $0.answerToReset) } ?? technology
        self.options = options
        self.fileSystem = fileSystem
    }

    /// Creates the default card (see the type description), with a UID derived from `seed`.
    public init(
        seed: UInt64 = 0, technology: ContactlessTechnology = .desfireTypeA,
        options: ISO7816CardOptions = ISO7816CardOptions(), contactInterface: ContactInterface? = nil
    ) {
        self.init(
            uid: Self.uid(fromSeed: seed), technology: technology, options: options,
            fileSystem: Self.defaultFileSystem(), contactInterface: contactInterface)
    }

    /// A deterministic 7-byte type A UID: manufacturer byte `04` followed by six bytes of a
    /// SplitMix64 sequence seeded with `seed`.
    public static func uid(fromSeed seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        let z = random.next()
        return [0x04] + (0..<6).map { UInt8(truncatingIfNeeded: z >> (8 * UInt64($0))) }
    }

    /// The file system of the default card (see the type description).
    public static func defaultFileSystem() -> ISO7816FileSystem {
        let application = ISO7816DedicatedFile(
            fileID: 0x7001, name: defaultApplicationID,
            elementaryFiles: [
                ISO7816ElementaryFile(fileID: 0x0101, shortFileID: 1, content: (0..<32).map { UInt8($0) }),
                ISO7816ElementaryFile(fileID: 0x0102, shortFileID: 2, content: (0..<1000).map { UInt8($0 % 251) }),
                ISO7816ElementaryFile(
                    fileID: 0x0103, shortFileID: 3, content: Array("CardFlow RO file".utf8), isUpdatable: false),
            ])
        let second = ISO7816DedicatedFile(
            fileID: 0x7002, name: secondApplicationID,
            elementaryFiles: [ISO7816ElementaryFile(fileID: 0x0101, content: [UInt8](repeating: 0xAA, count: 8))])
        return ISO7816FileSystem(masterFile: ISO7816DedicatedFile(dedicatedFiles: [application, second]))
    }

    // MARK: - Codable (persistent part only)

    private enum CodingKeys: String, CodingKey {
        case uid, technology, options, fileSystem, contactInterface
    }

    /// Decodes the persistent part; the card starts as after ``powerOn()``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let uid = try container.decode([UInt8].self, forKey: .uid)
        guard [4, 7, 8, 10].contains(uid.count) else {
            throw DecodingError.dataCorruptedError(
                forKey: .uid, in: container, debugDescription: "UID must have 4, 7, 8 or 10 bytes")
        }
        self.init(
            uid: uid,
            technology: try container.decode(ContactlessTechnology.self, forKey: .technology),
            options: try container.decode(ISO7816CardOptions.self, forKey: .options),
            fileSystem: try container.decode(ISO7816FileSystem.self, forKey: .fileSystem),
            contactInterface: try container.decodeIfPresent(ContactInterface.self, forKey: .contactInterface))
    }

    /// Encodes the persistent part (UID, technology, options, files), not the selection.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(uid, forKey: .uid)
        try container.encode(technology, forKey: .technology)
        try container.encode(options, forKey: .options)
        try container.encode(fileSystem, forKey: .fileSystem)
        try container.encodeIfPresent(contactInterface, forKey: .contactInterface)
    }

    // MARK: - VirtualCard

    /// Resets the card: the master file is selected, no EF is current, leftover response
    /// data is dropped.
    public mutating func powerOn() {
        currentDedicatedFile = []
        currentElementaryFile = nil
        clearPending()
    }

    /// Processes one command APDU (see the type description for the commands and status words).
    public mutating func process(_ command: [UInt8]) -> [UInt8] {
        // GET RESPONSE must directly follow the response that announced the data.
        let pending = hasPendingResponse ? (data: pendingData, status: pendingStatus) : nil
        clearPending()

        guard let apdu = ISO7816CommandAPDU(parsing: command) else { return status(0x6700) }
        if apdu.isExtended && !options.extendedLength { return status(0x6700) }
        if let classError = checkClass(apdu.cla) { return status(classError) }
        switch apdu.ins {
        case 0xA4: return select(apdu)
        case 0xB0: return readBinary(apdu)
        case 0xD6: return updateBinary(apdu)
        case 0xC0: return getResponse(apdu, pending: pending)
        default: return status(0x6D00)
        }
    }

    // MARK: - Class byte

    private func checkClass(_ cla: UInt8) -> UInt16? {
        switch cla {
        case 0x00...0x1F: // first interindustry: b5 chaining, b4-b3 SM, b2-b1 channel
            if cla & 0x10 != 0 { return 0x6884 }
            if cla & 0x0C != 0 { return 0x6882 }
            if cla & 0x03 != 0 { return 0x6881 }
            return nil
        case 0x40...0x7F: // further interindustry: b6 SM, b5 chaining, channels 4…19
            if cla & 0x10 != 0 { return 0x6884 }
            if cla & 0x20 != 0 { return 0x6882 }
            return 0x6881
        default: // RFU 2x/3x, proprietary 8x-Fx
            return 0x6E00
        }
    }

    // MARK: - SELECT

    private mutating func select(_ apdu: ISO7816CommandAPDU) -> [UInt8] {
        let occurrence = apdu.p2 & 0x03
        let responseKind = apdu.p2 & 0x0C
        guard apdu.p2 & 0xF0 == 0, responseKind != 0x08 else { return status(0x6A86) }
        guard occurrence == 0 || (occurrence == 2 && apdu.p1 == 0x04) else { return status(0x6A86) }

        let fids: [UInt16]
        switch apdu.p1 {
        case 0x00, 0x01, 0x02, 0x08, 0x09:
            guard apdu.data.count % 2 == 0 else { return status(0x6700) }
            fids = stride(from: 0, to: apdu.data.count, by: 2).map {
                UInt16(apdu.data[$0]) << 8 | UInt16(apdu.data[$0 + 1])
            }
            let allowed: ClosedRange<Int> =
                switch apdu.p1 {
                case 0x00: 0...1
                case 0x01, 0x02: 1...1
                default: 1...64
                }
            guard allowed.contains(fids.count) else { return status(0x6700) }
        case 0x03:
            guard apdu.data.isEmpty else { return status(0x6700) }
            fids = []
        case 0x04:
            guard apdu.data.count <= 16 else { return status(0x6700) }
            fids = []
        default:
            return status(0x6A86)
        }

        let target: (df: [Int], ef: Int?)?
        switch apdu.p1 {
        case 0x00: target = fids.isEmpty ? ([], nil) : selectByIdentifier(fids[0])
        case 0x01: target = childDedicatedFile(fids[0], of: currentDedicatedFile).map { ($0, nil) }
        case 0x02: target = childElementaryFile(fids[0], of: currentDedicatedFile).map { (currentDedicatedFile, $0) }
        case 0x03: target = currentDedicatedFile.isEmpty ? nil : (Array(currentDedicatedFile.dropLast()), nil)
        case 0x04: target = selectByName(apdu.data, next: occurrence == 2)
        case 0x08: target = walk(fids, from: [])
        default: target = walk(fids, from: currentDedicatedFile)
        }
        guard let target else { return status(0x6A82) }
        currentDedicatedFile = target.df
        currentElementaryFile = target.ef

        guard responseKind != 0x0C else { return status(0x9000) }
        let objects = controlObjects(df: target.df, ef: target.ef)
        let template = tlv(responseKind == 0x04 ? 0x62 : 0x6F, objects)
        return respond(template, status: 0x9000, ne: apdu.ne ?? 256)
    }

    /// ISO 7816-4 P1 = 00: the MF, a child of the current DF, the current DF itself, its
    /// parent, or a sibling of the current DF.
    private func selectByIdentifier(_ fid: UInt16) -> (df: [Int], ef: Int?)? {
        if fid == ISO7816FileSystem.masterFileID { return ([], nil) }
        let current = currentDedicatedFile
        if let ef = childElementaryFile(fid, of: current) { return (current, ef) }
        if let df = childDedicatedFile(fid, of: current) { return (df, nil) }
        if fileSystem.dedicatedFile(at: current)?.fileID == fid { return (current, nil) }
        guard !current.isEmpty else { return nil }
        let parent = Array(current.dropLast())
        if fileSystem.dedicatedFile(at: parent)?.fileID == fid { return (parent, nil) }
        if let df = childDedicatedFile(fid, of: parent) { return (df, nil) }
        if let ef = childElementaryFile(fid, of: parent) { return (parent, ef) }
        return nil
    }

    private func selectByName(_ name: [UInt8], next: Bool) -> (df: [Int], ef: Int?)? {
        if name.isEmpty && !next { return ([], nil) }
        let candidates = fileSystem.namedDedicatedFilePaths().filter { path in
            guard let dfName = fileSystem.dedicatedFile(at: path)?.name else { return false }
            return dfName.starts(with: name)
        }
        if next, let position = candidates.firstIndex(of: currentDedicatedFile) {
            let following = candidates.index(after: position)
            return following < candidates.endIndex ? (candidates[following], nil) : nil
        }
        return candidates.first.map { ($0, nil) }
    }

    private func walk(_ fids: [UInt16], from start: [Int]) -> (df: [Int], ef: Int?)? {
        var df = start
        for (position, fid) in fids.enumerated() {
            if let child = childDedicatedFile(fid, of: df) {
                df = child
            } else if position == fids.count - 1, let ef = childElementaryFile(fid, of: df) {
                return (df, ef)
            } else {
                return nil
            }
        }
        return (df, nil)
    }

    private func childDedicatedFile(_ fid: UInt16, of path: [Int]) -> [Int]? {
        fileSystem.dedicatedFile(at: path)?.dedicatedFiles.firstIndex { $0.fileID == fid }.map { path + [$0] }
    }

    private func childElementaryFile(_ fid: UInt16, of path: [Int]) -> Int? {
        fileSystem.dedicatedFile(at: path)?.elementaryFiles.firstIndex { $0.fileID == fid }
    }

    private func controlObjects(df: [Int], ef: Int?) -> [UInt8] {
        guard let dedicated = fileSystem.dedicatedFile(at: df) else { return [] }
        if let ef {
            let file = dedicated.elementaryFiles[ef]
            let size = UInt16(clamping: file.content.count)
            return tlv(0x82, [0x01]) + tlv(0x83, bigEndian(file.fileID)) + tlv(0x80, bigEndian(size))
        }
        var objects: [UInt8] = []
        if let fid = dedicated.fileID { objects += tlv(0x83, bigEndian(fid)) }
        if let name = dedicated.name { objects += tlv(0x84, name) }
        return objects
    }

    // MARK: - READ BINARY / UPDATE BINARY

    /// Resolves the EF addressed by P1-P2 (short EF identifier or current EF) and the offset.
    private mutating func binaryTarget(_ apdu: ISO7816CommandAPDU) -> Result<(ef: Int, offset: Int), StatusWord> {
        if apdu.p1 & 0x80 != 0 {
            let sfi = apdu.p1 & 0x1F
            guard apdu.p1 & 0x60 == 0, (1...30).contains(sfi) else { return .failure(StatusWord(0x6A86)) }
            guard
                let ef = fileSystem.dedicatedFile(at: currentDedicatedFile)?
                    .elementaryFiles.firstIndex(where: { $0.shortFileID == sfi })
            else { return .failure(StatusWord(0x6A82)) }
            currentElementaryFile = ef
            return .success((ef, Int(apdu.p2)))
        }
        guard let ef = currentElementaryFile else { return .failure(StatusWord(0x6986)) }
        return .success((ef, Int(apdu.p1 & 0x7F) << 8 | Int(apdu.p2)))
    }

    private mutating func readBinary(_ apdu: ISO7816CommandAPDU) -> [UInt8] {
        guard apdu.data.isEmpty, let ne = apdu.ne else { return status(0x6700) }
        let target: (ef: Int, offset: Int)
        switch binaryTarget(apdu) {
        case .failure(let sw): return status(sw.value)
        case .success(let value): target = value
        }
        guard let file = fileSystem.dedicatedFile(at: currentDedicatedFile)?.elementaryFiles[target.ef] else {
            return status(0x6981)
        }
        guard file.isReadable else { return status(0x6982) }
        guard target.offset < file.content.count else { return status(0x6B00) }
        let available = file.content.count - target.offset
        if ne > available {
            if options.strictLe && available <= 256 { return status(0x6C00 | UInt16(available & 0xFF)) }
            return respond(Array(file.content[target.offset...]), status: 0x6282, ne: ne)
        }
        return respond(Array(file.content[target.offset..<(target.offset + ne)]), status: 0x9000, ne: ne)
    }

    private mutating func updateBinary(_ apdu: ISO7816CommandAPDU) -> [UInt8] {
        guard !apdu.data.isEmpty, apdu.ne == nil else { return status(0x6700) }
        let target: (ef: Int, offset: Int)
        switch binaryTarget(apdu) {
        case .failure(let sw): return status(sw.value)
        case .success(let value): target = value
        }
        guard let file = fileSystem.dedicatedFile(at: currentDedicatedFile)?.elementaryFiles[target.ef] else {
            return status(0x6981)
        }
        guard file.isUpdatable else { return status(0x6982) }
        guard target.offset <= file.content.count else { return status(0x6B00) }
        guard target.offset + apdu.data.count <= file.content.count else { return status(0x6A84) }
        var content = file.content
        content.replaceSubrange(target.offset..<(target.offset + apdu.data.count), with: apdu.data)
        fileSystem.setContent(content, ofElementaryFile: target.ef, inDedicatedFileAt: currentDedicatedFile)
        return status(0x9000)
    }

    // MARK: - GET RESPONSE and response delivery

    private mutating func getResponse(_ apdu: ISO7816CommandAPDU, pending: (data: [UInt8], status: UInt16)?) -> [UInt8]
    {
        guard apdu.data.isEmpty, let ne = apdu.ne else { return status(0x6700) }
        guard apdu.p1 == 0, apdu.p2 == 0 else { return status(0x6A86) }
        guard let pending else { return status(0x6985) }
        let remaining = pending.data.count
        if ne > remaining && remaining <= 256 && (!apdu.leIsMaximum || options.strictLe) {
            // Wrong Le: keep the data for a corrected GET RESPONSE.
            setPending(pending.data, status: pending.status)
            return status(0x6C00 | UInt16(remaining & 0xFF))
        }
        return respond(pending.data, status: pending.status, ne: ne)
    }

    /// Returns `data` and `status`, or — when `data` is longer than `ne` or than the card's
    /// maximum response length — the first part with `61 XX`, keeping the rest for GET RESPONSE.
    private mutating func respond(_ data: [UInt8], status finalStatus: UInt16, ne: Int) -> [UInt8] {
        let limit = min(ne, options.maxResponseLength)
        guard data.count > limit else { return data + bigEndian(finalStatus) }
        let rest = Array(data[limit...])
        setPending(rest, status: finalStatus)
        return Array(data[..<limit]) + [0x61, UInt8(truncatingIfNeeded: min(rest.count, 256))]
    }

    private mutating func setPending(_ data: [UInt8], status: UInt16) {
        pendingData = data
        pendingStatus = status
        hasPendingResponse = true
    }

    private mutating func clearPending() {
        pendingData = []
        pendingStatus = 0x9000
        hasPendingResponse = false
    }

    // MARK: - Encoding helpers

    private func status(_ sw: UInt16) -> [UInt8] { bigEndian(sw) }

    private func bigEndian(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    private func tlv(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
        let length: [UInt8] =
            switch value.count {
            case ..<0x80: [UInt8(truncatingIfNeeded: value.count)]
            case ..<0x100: [0x81, UInt8(truncatingIfNeeded: value.count)]
            default: [0x82, UInt8(truncatingIfNeeded: value.count >> 8), UInt8(truncatingIfNeeded: value.count)]
            }
        return [tag] + length + value
    }
}
