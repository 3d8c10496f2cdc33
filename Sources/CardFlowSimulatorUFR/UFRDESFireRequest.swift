import CardFlowDESFire

/// One uFR "DESFire 8x" command as read from its packet and CMD_EXT (ufr.md §4, with the byte
/// layouts the decisions file item 3 fixes). Parsing never traps: a CMD_EXT of the wrong length,
/// a key source other than 0/1 or a slot above 15 is ``Rejection/malformed`` (the reader answers
/// ERR PARAMETERS_ERROR); a value the reader understands but refuses is a ``Rejection/status(_:)``.
enum UFRDESFireRequest: Sendable, Equatable {
    /// 8D: GetFreeMemory at the PICC level, no authentication.
    case freeMemory
    /// 8C: authenticate with the PICC master key, FormatPICC.
    case formatCard(key: UFRDESFireKeySource)
    /// 84: [authenticate with the PICC master key], CreateApplication.
    case createApplication(
        aid: UInt32, key: UFRDESFireKeySource?, settings: UInt8, keyCount: Int, keyType: DESFireKeyType)
    /// 85: select, [authenticate with the application master key], CreateStdDataFile.
    case createStandardFile(
        aid: UInt32, key: UFRDESFireKeySource?, file: UInt8, accessRights: DESFireAccessRights, size: Int,
        commMode: DESFireCommMode)
    /// 83: select, [authenticate], ReadData.
    case readData(FileAccess)
    /// 82: select, [authenticate], WriteData.
    case writeData(FileAccess, data: [UInt8])
    /// 86: select, authenticate, ChangeKey.
    case changeKey(KeyChange)

    /// What 83 and 82 share: the application, the key (nil: no authentication), the file range.
    struct FileAccess: Sendable, Equatable {
        var aid: UInt32
        var key: UFRDESFireKeySource?
        var keyNumber: UInt8
        var file: UInt8
        var offset: Int
        var length: Int
        var commMode: DESFireCommMode
    }

    /// What 86 carries.
    struct KeyChange: Sendable, Equatable {
        var aid: UInt32
        var authenticationKeyNumber: UInt8
        var authenticationKey: UFRDESFireKeySource
        var keyNumber: UInt8
        var newKey: UFRDESFireKeySource
        /// Used only when `keyNumber` is not the authenticated key.
        var oldKey: UFRDESFireKeySource
    }

    /// Why a command does not run.
    enum Rejection: Error, Equatable {
        /// Bytes the reader cannot read as the command: ERR PARAMETERS_ERROR (`EC 0F CE …`).
        case malformed
        /// A refused value: RSP with this status.
        case status(UInt16)
    }

    /// Largest data part one of WRITE_TO_STD_FILE carries (ufr.md §2.3).
    static let largestWritePart = 160

    /// CMD_EXT data length (without its checksum) of each command with a fixed layout.
    static func extLength(code: UInt8) -> Int? {
        switch code {
        case 0x8D: 0
        case 0x8C: 18
        case 0x84: 24
        case 0x85: 30
        case 0x83: 29
        case 0x86: 55
        default: nil
        }
    }

    /// Reads command `code` (82–86, 8C, 8D) from its Par0 and CMD_EXT data.
    ///
    /// Checks, in order: the CMD_EXT length (82: 29 + 0…160 data bytes); the key source and slot;
    /// the key types (3010); the comm settings (00, 01, 03 or 11, else 0x0C9E); 84's key count
    /// (1–14, else 0x0C9E); 82's data count against its length field (else 0x0C7E: the multi-part
    /// `AD` write is not simulated).
    static func parse(code: UInt8, parameter0: UInt8, ext: [UInt8]) throws(Rejection) -> UFRDESFireRequest {
        if code == 0x82 {
            guard (29...29 + largestWritePart).contains(ext.count) else { throw .malformed }
        } else {
            guard let length = extLength(code: code), ext.count == length else { throw .malformed }
        }
        switch code {
        case 0x8D:
            return .freeMemory
        case 0x8C:
            let source = try keySource(ext, type: try keyType(parameter0 >> 4))
            return .formatCard(key: source)
        case 0x84:
            let source = try keySource(ext, type: try keyType(parameter0 >> 4))
            // The application's keys are only a flag in CreateApplication: 3K3DES (1) is fine here.
            let applicationKeyType: DESFireKeyType
            switch parameter0 & 0x0F {
            case 1: applicationKeyType = .threeKey3DES
            default: applicationKeyType = try keyType(parameter0 & 0x0F)
            }
            guard (1...14).contains(ext[23]) else { throw .status(UFRDESFireStatus.parameterError) }
            return .createApplication(
                aid: aid(ext), key: ext[21] == 0 ? nil : source, settings: ext[22], keyCount: Int(ext[23]),
                keyType: applicationKeyType)
        case 0x85:
            let source = try keySource(ext, type: try keyType(parameter0 >> 4))
            let commMode = try commMode(ext[29])
            let size = Int(ext[24]) | Int(ext[25]) << 8 | Int(ext[26]) << 16 | Int(ext[27]) << 24
            let rights = DESFireAccessRights(rawValue: UInt16(ext[23]) << 8 | UInt16(ext[22]))
            return .createStandardFile(
                aid: aid(ext), key: ext[28] == 0 ? nil : source, file: ext[21], accessRights: rights, size: size,
                commMode: commMode)
        case 0x83, 0x82:
            let source = try keySource(ext, type: try keyType(parameter0 >> 4))
            let access = FileAccess(
                aid: aid(ext), key: ext[23] == 0 ? nil : source, keyNumber: ext[21], file: ext[22],
                offset: Int(ext[24]) | Int(ext[25]) << 8, length: Int(ext[26]) | Int(ext[27]) << 8,
                commMode: try commMode(ext[28]))
            guard code == 0x82 else { return .readData(access) }
            let data = Array(ext[29...])
            guard data.count == access.length else { throw .status(UFRDESFireStatus.lengthError) }
            return .writeData(access, data: data)
        case 0x86:
            return .changeKey(try keyChange(parameter0: parameter0, ext: ext))
        default:
            throw .malformed
        }
    }

    /// 86: Par0 = AUTH_KT | NEW_KT << 2; [0] flags (bit 0 auth, bit 1 new, bit 2 old key from a
    /// slot; bits 4–7 the old key's slot), [1] auth slot | new slot << 4, [2..17] auth key,
    /// [18..20] AID, [21] auth key number, [22..37] new key, [38] key number, [39..54] old key.
    private static func keyChange(parameter0: UInt8, ext: [UInt8]) throws(Rejection) -> KeyChange {
        let authenticationType = try keyType(parameter0 & 0x03)
        let newType = try keyType(parameter0 >> 2 & 0x03)
        let flags = ext[0]
        func source(fromSlot: Bool, slot: UInt8, field: Range<Int>, type: DESFireKeyType) -> UFRDESFireKeySource {
            UFRDESFireKeySource(origin: fromSlot ? .slot(Int(slot)) : .provided(Array(ext[field])), type: type)
        }
        return KeyChange(
            aid: aid(ext), authenticationKeyNumber: ext[21],
            authenticationKey: source(
                fromSlot: flags & 0x01 != 0, slot: ext[1] & 0x0F, field: 2..<18, type: authenticationType),
            keyNumber: ext[38],
            newKey: source(fromSlot: flags & 0x02 != 0, slot: ext[1] >> 4, field: 22..<38, type: newType),
            oldKey: source(fromSlot: flags & 0x04 != 0, slot: flags >> 4, field: 39..<55, type: newType))
    }

    /// Key block K [0..17]: source 1 = slot [1] (0–15), 0 = the key in [2..17].
    private static func keySource(_ ext: [UInt8], type: DESFireKeyType) throws(Rejection) -> UFRDESFireKeySource {
        switch ext[0] {
        case 0: return UFRDESFireKeySource(origin: .provided(Array(ext[2..<18])), type: type)
        case 1:
            guard Int(ext[1]) < SimulatedUFRReaderKeys.slotCount else { throw .malformed }
            return UFRDESFireKeySource(origin: .slot(Int(ext[1])), type: type)
        default: throw .malformed
        }
    }

    private static func keyType(_ code: UInt8) throws(Rejection) -> DESFireKeyType {
        guard let type = UFRDESFireKeySource.keyType(code: code) else {
            throw .status(UFRDESFireStatus.notSupportedKeyType)
        }
        return type
    }

    /// K [18..20], little-endian.
    private static func aid(_ ext: [UInt8]) -> UInt32 {
        UInt32(ext[18]) | UInt32(ext[19]) << 8 | UInt32(ext[20]) << 16
    }

    /// 00 plain, 01 MACed, 03 [API] or 11 [COM] enciphered (decisions file item 4).
    private static func commMode(_ byte: UInt8) throws(Rejection) -> DESFireCommMode {
        switch byte {
        case 0x00: return .plain
        case 0x01: return .mac
        case 0x03, 0x11: return .enciphered
        default: throw .status(UFRDESFireStatus.parameterError)
        }
    }
}
