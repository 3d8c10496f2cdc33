/// How a file's commands travel once access is granted through a key (NT4H2421Gx §8.2.3.4):
/// plain, MACed or MACed and enciphered. Access granted for free (`E`) is always plain.
public enum SimulatedNTAG424CommunicationMode: UInt8, Hashable, Codable, Sendable {
    /// CommMode.Plain (FileOption bits 1–0 `00`; `10` also reads as plain).
    case plain = 0
    /// CommMode.MAC (`01`).
    case mac = 1
    /// CommMode.Full (`11`).
    case full = 3

    init(fileOptionBits bits: UInt8) {
        switch bits & 0x03 {
        case 1: self = .mac
        case 3: self = .full
        default: self = .plain
        }
    }
}

/// Secure Dynamic Messaging settings of the NDEF file (NT4H2421Gx §10.7.1, Table 69): what the
/// card mirrors into the file when it is read without authentication.
///
/// Offsets are byte positions in the file; mirrored values are ASCII hex (the only encoding
/// the card supports, SDMOptions bit 0). Key fields are nibbles: 0–4 a key, `0xE` free /
/// plain, `0xF` none.
public struct SimulatedNTAG424SDMSettings: Hashable, Codable, Sendable {
    /// SDMOptions bit 7: the UID is mirrored (in plain at ``uidOffset``, or inside PICCData).
    public var mirrorsUID: Bool
    /// SDMOptions bit 6: SDMReadCtr is mirrored (in plain at ``readCounterOffset``, or inside PICCData).
    public var mirrorsReadCounter: Bool
    /// SDMOptions bit 5: unauthenticated reads stop when SDMReadCtr reaches this value.
    public var readCounterLimit: UInt32?
    /// SDMOptions bit 4: the part of the file at ``encOffset`` is enciphered (SDMENCFileData).
    public var encryptsFileData: Bool
    /// SDMCtrRet: the key GetFileCounters needs (`E` free, `F` never).
    public var counterRetrievalKey: UInt8
    /// SDMMetaRead: the key PICCData is enciphered with, `E` for plain mirrors, `F` for none.
    public var metaReadKey: UInt8
    /// SDMFileRead: the key of the SDM session keys (SDMMAC, SDMENCFileData), `F` for none.
    public var fileReadKey: UInt8
    /// UIDOffset (plain UID mirror, 14 characters).
    public var uidOffset: Int?
    /// SDMReadCtrOffset (plain counter mirror, 6 characters, most significant first).
    public var readCounterOffset: Int?
    /// PICCDataOffset (enciphered PICCData, 32 characters).
    public var piccDataOffset: Int?
    /// SDMMACInputOffset: where the MACed part of the file starts.
    public var macInputOffset: Int?
    /// SDMENCOffset (SDMENCFileData, ``encLength`` characters).
    public var encOffset: Int?
    /// SDMENCLength, a multiple of 32 characters.
    public var encLength: Int?
    /// SDMMACOffset (SDMMAC, 16 characters).
    public var macOffset: Int?

    /// SDM settings; offsets that the options and keys do not call for must be nil.
    public init(
        mirrorsUID: Bool = false, mirrorsReadCounter: Bool = false, readCounterLimit: UInt32? = nil,
        encryptsFileData: Bool = false, counterRetrievalKey: UInt8 = 0xF, metaReadKey: UInt8 = 0xF,
        fileReadKey: UInt8 = 0xF, uidOffset: Int? = nil, readCounterOffset: Int? = nil,
        piccDataOffset: Int? = nil, macInputOffset: Int? = nil, encOffset: Int? = nil,
        encLength: Int? = nil, macOffset: Int? = nil
    ) {
        self.mirrorsUID = mirrorsUID
        self.mirrorsReadCounter = mirrorsReadCounter
        self.readCounterLimit = readCounterLimit
        self.encryptsFileData = encryptsFileData
        self.counterRetrievalKey = counterRetrievalKey
        self.metaReadKey = metaReadKey
        self.fileReadKey = fileReadKey
        self.uidOffset = uidOffset
        self.readCounterOffset = readCounterOffset
        self.piccDataOffset = piccDataOffset
        self.macInputOffset = macInputOffset
        self.encOffset = encOffset
        self.encLength = encLength
        self.macOffset = macOffset
    }

    /// SDMOptions: the mirror bits and bit 0 (ASCII encoding).
    var optionsByte: UInt8 {
        (mirrorsUID ? 0x80 : 0) | (mirrorsReadCounter ? 0x40 : 0) | (readCounterLimit != nil ? 0x20 : 0)
            | (encryptsFileData ? 0x10 : 0) | 0x01
    }

    /// SDMAccessRights on the wire: `F‖SDMCtrRet`, `SDMMetaRead‖SDMFileRead`.
    var accessRightsBytes: [UInt8] { [0xF0 | counterRetrievalKey, metaReadKey << 4 | fileReadKey] }
}

/// The settings of one NTAG 424 DNA file: communication mode, access rights, and for the
/// NDEF file (file 2) optionally SDM.
public struct SimulatedNTAG424FileSettings: Hashable, Codable, Sendable {
    /// The mode of commands granted through a key.
    public var communicationMode: SimulatedNTAG424CommunicationMode
    /// Read, write, read-write and change conditions.
    public var accessRights: SimulatedNTAG424AccessRights
    /// SDM settings (FileOption bit 6), only on the NDEF file.
    public var sdm: SimulatedNTAG424SDMSettings?

    /// File settings.
    public init(
        communicationMode: SimulatedNTAG424CommunicationMode, accessRights: SimulatedNTAG424AccessRights,
        sdm: SimulatedNTAG424SDMSettings? = nil
    ) {
        self.communicationMode = communicationMode
        self.accessRights = accessRights
        self.sdm = sdm
    }

    /// FileOption, AccessRights and the SDM block as ChangeFileSettings carries them (and
    /// GetFileSettings returns them after FileType).
    var changeFileSettingsBytes: [UInt8] {
        [(sdm != nil ? 0x40 : 0) | communicationMode.rawValue] + accessRights.wireBytes
    }

    /// The GetFileSettings answer: FileType 00, FileOption, AccessRights, FileSize (3, LSB
    /// first), then the SDM block.
    func getFileSettingsAnswer(fileSize: Int) -> [UInt8] {
        var out: [UInt8] = [0x00] + changeFileSettingsBytes + Self.le24(fileSize)
        if let sdm { out += Self.sdmBlock(sdm) }
        return out
    }

    static func sdmBlock(_ sdm: SimulatedNTAG424SDMSettings) -> [UInt8] {
        var out = [sdm.optionsByte] + sdm.accessRightsBytes
        for value in [
            sdm.uidOffset, sdm.readCounterOffset, sdm.piccDataOffset, sdm.macInputOffset,
            sdm.encOffset, sdm.encLength, sdm.macOffset,
        ] {
            if let value { out += le24(value) }
        }
        if let limit = sdm.readCounterLimit { out += le24(Int(limit)) }
        return out
    }

    static func le24(_ value: Int) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value >> 16),
        ]
    }

    /// Parses ChangeFileSettings data after FileNo (NT4H2421Gx Table 69): a truncated or
    /// overlong field is a length error, an RFU bit or a value out of range a parameter error.
    static func parse(_ data: [UInt8]) throws(NTAG424Status) -> SimulatedNTAG424FileSettings {
        var reader = ByteReader(data)
        let option = try reader.byte()
        guard option & 0xBC == 0 else { throw .parameterError }
        let rights = SimulatedNTAG424AccessRights(wire: try reader.byte(), try reader.byte())
        var settings = SimulatedNTAG424FileSettings(
            communicationMode: .init(fileOptionBits: option), accessRights: rights)
        if option & 0x40 != 0 {
            let options = try reader.byte()
            let first = try reader.byte()
            let second = try reader.byte()
            guard options & 0x0E == 0, options & 0x01 == 1, first >> 4 == 0xF else { throw .parameterError }
            var sdm = SimulatedNTAG424SDMSettings(
                mirrorsUID: options & 0x80 != 0, mirrorsReadCounter: options & 0x40 != 0,
                encryptsFileData: options & 0x10 != 0, counterRetrievalKey: first & 0x0F,
                metaReadKey: second >> 4, fileReadKey: second & 0x0F)
            if sdm.metaReadKey == 0xE {
                if sdm.mirrorsUID { sdm.uidOffset = try reader.u24() }
                if sdm.mirrorsReadCounter { sdm.readCounterOffset = try reader.u24() }
            }
            if sdm.metaReadKey <= 4 { sdm.piccDataOffset = try reader.u24() }
            if sdm.fileReadKey != 0xF {
                sdm.macInputOffset = try reader.u24()
                if sdm.encryptsFileData {
                    sdm.encOffset = try reader.u24()
                    sdm.encLength = try reader.u24()
                }
                sdm.macOffset = try reader.u24()
            }
            if options & 0x20 != 0 { sdm.readCounterLimit = UInt32(try reader.u24()) }
            settings.sdm = sdm
        }
        guard reader.isAtEnd else { throw .lengthError }
        return settings
    }

    /// The data sheet's consistency checks (NT4H2421Gx Tables 69 and 71) for a file of
    /// `fileSize` bytes numbered `fileNumber`; throws a parameter error.
    func validate(fileNumber: UInt8, fileSize: Int) throws(NTAG424Status) {
        guard accessRights.isValid else { throw .parameterError }
        guard let sdm else { return }
        guard fileNumber == 2 else { throw .parameterError }
        let keyOrFree: (UInt8) -> Bool = { $0 <= 4 || $0 == 0xE || $0 == 0xF }
        guard keyOrFree(sdm.counterRetrievalKey), keyOrFree(sdm.metaReadKey),
            sdm.fileReadKey <= 4 || sdm.fileReadKey == 0xF
        else { throw .parameterError }
        let mirrorsPICCData = sdm.mirrorsUID || sdm.mirrorsReadCounter
        // SDMMetaRead F: nothing of the PICC mirrored; E or a key: something is.
        guard (sdm.metaReadKey == 0xF) == !mirrorsPICCData else { throw .parameterError }
        if sdm.encryptsFileData {
            guard sdm.fileReadKey != 0xF, sdm.mirrorsUID, sdm.mirrorsReadCounter else { throw .parameterError }
        }
        if sdm.readCounterLimit != nil || sdm.counterRetrievalKey != 0xF {
            guard sdm.mirrorsReadCounter else { throw .parameterError }
        }
        // Presence of the offsets follows the options (a value built in code may disagree).
        guard (sdm.uidOffset != nil) == (sdm.metaReadKey == 0xE && sdm.mirrorsUID),
            (sdm.readCounterOffset != nil) == (sdm.metaReadKey == 0xE && sdm.mirrorsReadCounter),
            (sdm.piccDataOffset != nil) == (sdm.metaReadKey <= 4),
            (sdm.macInputOffset != nil) == (sdm.fileReadKey != 0xF),
            (sdm.macOffset != nil) == (sdm.fileReadKey != 0xF),
            (sdm.encOffset != nil) == (sdm.fileReadKey != 0xF && sdm.encryptsFileData),
            (sdm.encLength != nil) == (sdm.fileReadKey != 0xF && sdm.encryptsFileData)
        else { throw .parameterError }
        var regions: [Range<Int>] = []
        func region(_ offset: Int?, _ length: Int) throws(NTAG424Status) {
            guard let offset else { return }
            guard offset >= 0, length >= 0, offset <= fileSize - length else { throw .parameterError }
            regions.append(offset..<offset + length)
        }
        try region(sdm.uidOffset, 14)
        try region(sdm.readCounterOffset, 6)
        try region(sdm.piccDataOffset, 32)
        try region(sdm.macOffset, 16)
        if let encOffset = sdm.encOffset, let encLength = sdm.encLength {
            guard encLength >= 32, encLength % 32 == 0 else { throw .parameterError }
            try region(encOffset, encLength)
        }
        if let input = sdm.macInputOffset, let mac = sdm.macOffset {
            guard input >= 0, input <= mac else { throw .parameterError }
            if let encOffset = sdm.encOffset, let encLength = sdm.encLength {
                guard encOffset >= input, encOffset + encLength <= mac else { throw .parameterError }
            }
        }
        for (index, first) in regions.enumerated() {
            for second in regions[(index + 1)...] where first.overlaps(second) { throw .parameterError }
        }
    }
}

/// Reads a command's fields front to back; running out is a length error.
struct ByteReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position == bytes.count }

    mutating func byte() throws(NTAG424Status) -> UInt8 {
        guard position < bytes.count else { throw .lengthError }
        defer { position += 1 }
        return bytes[position]
    }

    /// A 3-byte little-endian value.
    mutating func u24() throws(NTAG424Status) -> Int {
        let low = Int(try byte())
        let middle = Int(try byte())
        let high = Int(try byte())
        return low | middle << 8 | high << 16
    }
}
