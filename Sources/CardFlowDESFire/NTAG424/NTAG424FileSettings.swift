import CardFlow

/// The settings of an NTAG 424 DNA file: communication mode, access rights, size, and the
/// Secure Dynamic Messaging (SDM) mirroring of the NDEF file (NT4H2421Gx §10.7.1–10.7.2).
///
/// GetFileSettings answers `FileType ‖ FileOption ‖ AccessRights ‖ FileSize ‖ [SDM part]`;
/// ChangeFileSettings takes `FileOption ‖ AccessRights ‖ [SDM part]`. FileOption holds the comm
/// mode in bits 1–0 and "SDM enabled" in bit 6.
///
/// ```swift
/// // AN12196 Table 18: SUN on the NDEF file, PICCData at 0x20, SDMMAC over nothing at 0x43
/// let settings = NTAG424FileSettings(commMode: .plain, accessRights: DESFireAccessRights(rawValue: 0xE000),
///                                    sdm: NTAG424SDMSettings(metaReadKey: 2, fileReadKey: 1, counterRetrievalKey: 1,
///                                                            piccDataOffset: 0x20, macInputOffset: 0x43, macOffset: 0x43))
/// settings.changeFileSettingsData   // 40 00E0 C1 F121 200000 430000 430000
/// ```
public struct NTAG424FileSettings: Hashable, Sendable, CustomStringConvertible {
    /// How commands on the file are protected.
    public var commMode: DESFireCommMode
    /// Read, write, read-write and change keys (E free, F never).
    public var accessRights: DESFireAccessRights
    /// The file size in bytes (from GetFileSettings; ChangeFileSettings cannot change it).
    public var size: UInt32?
    /// SDM mirroring, nil when SDM is off.
    public var sdm: NTAG424SDMSettings?

    public init(
        commMode: DESFireCommMode, accessRights: DESFireAccessRights, size: UInt32? = nil,
        sdm: NTAG424SDMSettings? = nil
    ) {
        self.commMode = commMode
        self.accessRights = accessRights
        self.size = size
        self.sdm = sdm
    }

    /// FileOption: comm mode in bits 1–0, SDM enabled in bit 6.
    public var fileOption: UInt8 { commMode.rawValue | (sdm == nil ? 0 : 0x40) }

    /// The data field of ChangeFileSettings after the file number (sent in CommMode.Full).
    public var changeFileSettingsData: [UInt8] {
        [fileOption] + accessRights.wire + (sdm?.wire ?? [])
    }

    /// Parses a GetFileSettings answer (after the secure-messaging layer is removed).
    ///
    /// - Throws: ``NTAG424Error/malformedFileSettings(_:)`` for a short, overlong or inconsistent answer.
    public init(getFileSettingsAnswer bytes: [UInt8]) throws(NTAG424Error) {
        var reader = NTAG424ByteReader(bytes)
        guard let fileType = reader.byte(), let option = reader.byte(), let rights = reader.uint16(),
            let size = reader.uint24()
        else {
            throw .malformedFileSettings("answer of \(bytes.count) bytes is shorter than the 7 every file has")
        }
        guard fileType == 0x00 else {
            throw .malformedFileSettings("file type \(HexByte(fileType)) is not a standard data file (00)")
        }
        guard let mode = DESFireCommMode(rawValue: option & 0x03), option & 0xBC == 0 else {
            throw .malformedFileSettings("FileOption \(HexByte(option)) names no communication mode or sets RFU bits")
        }
        self.commMode = mode
        self.accessRights = DESFireAccessRights(rawValue: rights)
        self.size = size
        if option & 0x40 != 0 {
            self.sdm = try NTAG424SDMSettings(reading: &reader)
        } else {
            self.sdm = nil
        }
        guard reader.isAtEnd else {
            throw .malformedFileSettings("\(reader.remaining) byte(s) after the settings")
        }
    }

    public var description: String {
        var text = "\(commMode), \(accessRights)"
        if let size { text += ", \(size) bytes" }
        if let sdm { text += ", SDM: \(sdm)" }
        return text
    }
}

/// How an NTAG 424 DNA mirrors authentication data into its NDEF file on every unauthenticated
/// read (SUN messages; NT4H2421Gx §9.3, AN12196 §3).
///
/// Key fields take 0–4 (a key), `0xE` (free: plain mirror, or no MAC key) or `0xF` (no access /
/// off). Offsets are byte positions in the file where the card writes the mirrored ASCII hex.
///
/// - With ``metaReadKey`` a key: the encrypted PICCData goes at ``piccDataOffset``.
/// - With ``metaReadKey`` `0xE`: the UID and the counter are mirrored in clear at ``uidOffset``
///   and ``readCounterOffset`` (each when its option is on).
/// - With ``fileReadKey`` not `0xF`: the SDMMAC goes at ``macOffset``, computed over the file from
///   ``macInputOffset``; with ``encryptedFileData`` set, `SDMENCLength` bytes at its offset are
///   enciphered too.
public struct NTAG424SDMSettings: Hashable, Sendable, CustomStringConvertible {
    /// Mirror the UID (SDMOptions bit 7).
    public var mirrorsUID: Bool
    /// Mirror SDMReadCtr (bit 6).
    public var mirrorsReadCounter: Bool
    /// Stop answering reads after this many (SDMReadCtrLimit, bit 5), nil for no limit.
    public var readCounterLimit: UInt32?
    /// Encipher part of the file in the mirror (SDMENCFileData, bit 4): offset and length.
    public var encryptedFileData: (offset: UInt32, length: UInt32)? {
        get { encryptedFileDataRange.map { ($0.offset, $0.length) } }
        set { encryptedFileDataRange = newValue.map { EncryptedRange(offset: $0.offset, length: $0.length) } }
    }
    /// SDMMetaRead: the key enciphering PICCData, `0xE` for a plain mirror, `0xF` for none.
    public var metaReadKey: UInt8
    /// SDMFileRead: the key of the SDMMAC and the enciphered file data, `0xF` for none.
    public var fileReadKey: UInt8
    /// SDMCtrRet: the key GetFileCounters needs (`0xE` free, `0xF` never).
    public var counterRetrievalKey: UInt8
    /// Where the plain UID goes (metaReadKey `0xE`, UID mirrored).
    public var uidOffset: UInt32?
    /// Where the plain counter goes (metaReadKey `0xE`, counter mirrored).
    public var readCounterOffset: UInt32?
    /// Where the encrypted PICCData goes (metaReadKey a key).
    public var piccDataOffset: UInt32?
    /// Where the SDMMAC input starts (fileReadKey not `0xF`).
    public var macInputOffset: UInt32?
    /// Where the SDMMAC goes (fileReadKey not `0xF`).
    public var macOffset: UInt32?

    private struct EncryptedRange: Hashable, Sendable {
        let offset: UInt32
        let length: UInt32
    }

    private var encryptedFileDataRange: EncryptedRange?

    /// The usual SUN layout: encrypted PICCData (UID and counter) and an SDMMAC.
    public init(
        metaReadKey: UInt8, fileReadKey: UInt8, counterRetrievalKey: UInt8 = 0xF,
        piccDataOffset: UInt32, macInputOffset: UInt32, macOffset: UInt32,
        encryptedFileData: (offset: UInt32, length: UInt32)? = nil, readCounterLimit: UInt32? = nil
    ) {
        self.init(
            mirrorsUID: true, mirrorsReadCounter: true, metaReadKey: metaReadKey, fileReadKey: fileReadKey,
            counterRetrievalKey: counterRetrievalKey, piccDataOffset: piccDataOffset,
            macInputOffset: macInputOffset, macOffset: macOffset, encryptedFileData: encryptedFileData,
            readCounterLimit: readCounterLimit)
    }

    /// Every field as the data sheet has it; the card checks the combination.
    public init(
        mirrorsUID: Bool, mirrorsReadCounter: Bool, metaReadKey: UInt8, fileReadKey: UInt8,
        counterRetrievalKey: UInt8, uidOffset: UInt32? = nil, readCounterOffset: UInt32? = nil,
        piccDataOffset: UInt32? = nil, macInputOffset: UInt32? = nil, macOffset: UInt32? = nil,
        encryptedFileData: (offset: UInt32, length: UInt32)? = nil, readCounterLimit: UInt32? = nil
    ) {
        self.mirrorsUID = mirrorsUID
        self.mirrorsReadCounter = mirrorsReadCounter
        self.metaReadKey = metaReadKey & 0xF
        self.fileReadKey = fileReadKey & 0xF
        self.counterRetrievalKey = counterRetrievalKey & 0xF
        self.uidOffset = uidOffset
        self.readCounterOffset = readCounterOffset
        self.piccDataOffset = piccDataOffset
        self.macInputOffset = macInputOffset
        self.macOffset = macOffset
        self.encryptedFileDataRange = encryptedFileData.map { EncryptedRange(offset: $0.offset, length: $0.length) }
        self.readCounterLimit = readCounterLimit
    }

    /// SDMOptions: UID mirror (bit 7), counter mirror (6), counter limit (5), enciphered file data
    /// (4), ASCII encoding (bit 0, the only encoding there is).
    public var options: UInt8 {
        (mirrorsUID ? 0x80 : 0) | (mirrorsReadCounter ? 0x40 : 0) | (readCounterLimit == nil ? 0 : 0x20)
            | (encryptedFileDataRange == nil ? 0 : 0x10) | 0x01
    }

    /// SDMAccessRights as the 16-bit value `MetaRead<<12 | FileRead<<8 | F<<4 | CtrRet`.
    public var accessRightsValue: UInt16 {
        UInt16(metaReadKey) << 12 | UInt16(fileReadKey) << 8 | 0xF0 | UInt16(counterRetrievalKey)
    }

    /// The offsets the data sheet asks for with these options and keys, in wire order (missing ones as 0).
    var wire: [UInt8] {
        var bytes = [
            options, UInt8(truncatingIfNeeded: accessRightsValue), UInt8(truncatingIfNeeded: accessRightsValue >> 8),
        ]
        func append(_ value: UInt32?) {
            let value = value ?? 0
            bytes += [
                UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
                UInt8(truncatingIfNeeded: value >> 16),
            ]
        }
        if metaReadKey == 0xE {
            if mirrorsUID { append(uidOffset) }
            if mirrorsReadCounter { append(readCounterOffset) }
        } else if metaReadKey <= 4 {
            append(piccDataOffset)
        }
        if fileReadKey != 0xF {
            append(macInputOffset)
            if let range = encryptedFileDataRange {
                append(range.offset)
                append(range.length)
            }
            append(macOffset)
        }
        if let readCounterLimit { append(readCounterLimit) }
        return bytes
    }

    /// Reads the SDM part of a GetFileSettings answer.
    init(reading reader: inout NTAG424ByteReader) throws(NTAG424Error) {
        guard let options = reader.byte(), let rights = reader.uint16() else {
            throw .malformedFileSettings("SDM is on but SDMOptions and SDMAccessRights are missing")
        }
        // Bit 0 (ASCII) is the only encoding; bits 3–1 are RFU.
        guard options & 0x0F == 0x01 else {
            throw .malformedFileSettings("SDMOptions \(HexByte(options)) without ASCII encoding or with RFU bits")
        }
        self.mirrorsUID = options & 0x80 != 0
        self.mirrorsReadCounter = options & 0x40 != 0
        self.metaReadKey = UInt8(rights >> 12 & 0xF)
        self.fileReadKey = UInt8(rights >> 8 & 0xF)
        self.counterRetrievalKey = UInt8(rights & 0xF)
        guard fileReadKey <= 4 || fileReadKey == 0xF else {
            throw .malformedFileSettings("SDMFileRead \(HexByte(fileReadKey)) is no key and not F")
        }
        guard counterRetrievalKey <= 4 || counterRetrievalKey >= 0xE else {
            throw .malformedFileSettings("SDMCtrRet \(HexByte(counterRetrievalKey)) is no key, E or F")
        }
        guard options & 0x10 == 0 || fileReadKey != 0xF else {
            throw .malformedFileSettings("SDMENCFileData needs an SDMFileRead key")
        }
        func offset(_ name: String) throws(NTAG424Error) -> UInt32 {
            guard let value = reader.uint24() else { throw .malformedFileSettings("\(name) is missing") }
            return value
        }
        if metaReadKey == 0xE {
            uidOffset = mirrorsUID ? try offset("UIDOffset") : nil
            readCounterOffset = mirrorsReadCounter ? try offset("SDMReadCtrOffset") : nil
        } else if metaReadKey <= 4 {
            piccDataOffset = try offset("PICCDataOffset")
        } else if metaReadKey != 0xF {
            throw .malformedFileSettings("SDMMetaRead \(HexByte(metaReadKey)) is no key, E or F")
        }
        if fileReadKey != 0xF {
            macInputOffset = try offset("SDMMACInputOffset")
            if options & 0x10 != 0 {
                encryptedFileDataRange = EncryptedRange(
                    offset: try offset("SDMENCOffset"), length: try offset("SDMENCLength"))
            }
            macOffset = try offset("SDMMACOffset")
        }
        if options & 0x20 != 0 { readCounterLimit = try offset("SDMReadCtrLimit") }
    }

    public static func == (lhs: NTAG424SDMSettings, rhs: NTAG424SDMSettings) -> Bool {
        lhs.wire == rhs.wire
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(wire)
    }

    public var description: String {
        func key(_ value: UInt8) -> String { value == 0xE ? "free" : value == 0xF ? "none" : "key \(value)" }
        var parts = [
            "meta read \(key(metaReadKey))", "file read \(key(fileReadKey))", "counter \(key(counterRetrievalKey))",
        ]
        if let piccDataOffset { parts.append("PICCData at \(piccDataOffset)") }
        if let uidOffset { parts.append("UID at \(uidOffset)") }
        if let readCounterOffset { parts.append("counter at \(readCounterOffset)") }
        if let macInputOffset, let macOffset { parts.append("MAC over \(macInputOffset)… at \(macOffset)") }
        if let range = encryptedFileDataRange { parts.append("enciphered \(range.length) bytes at \(range.offset)") }
        if let readCounterLimit { parts.append("limit \(readCounterLimit) reads") }
        return parts.joined(separator: ", ")
    }
}

/// Reads little-endian fields off a byte array without trapping.
struct NTAG424ByteReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }
    var remaining: Int { bytes.count - index }

    mutating func byte() -> UInt8? {
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func uint16() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { index += 2 }
        return UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
    }

    mutating func uint24() -> UInt32? {
        guard remaining >= 3 else { return nil }
        defer { index += 3 }
        return UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16
    }
}

/// `0x4F` in descriptions.
struct HexByte: CustomStringConvertible {
    let value: UInt8
    init(_ value: UInt8) { self.value = value }
    var description: String { "0x" + [value].hexString }
}
