import CardFlowCrypto

/// File management: create, delete, list, settings (spec §2, §5.5).
extension DESFireCard {
    static let maxFileNumber: UInt8 = 31

    /// GetFileIDs (6F).
    mutating func getFileIDs(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireLength(data, 0)
        try requireApplication()
        try requireMasterKey(unless: current.freeListing)
        return DESFireReply(data: current.files.map(\.number))
    }

    /// GetISOFileIDs (61): 2 bytes LE per file that has one.
    mutating func getISOFileIDs(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireLength(data, 0)
        try requireApplication()
        try requireMasterKey(unless: current.freeListing)
        let ids = current.files.compactMap(\.isoFileID).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        return DESFireReply(data: ids)
    }

    /// GetFileSettings (F5).
    mutating func getFileSettings(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireLength(data, 1)
        try requireApplication()
        try requireMasterKey(unless: current.freeListing)
        // Record counts and values are the committed ones.
        return DESFireReply(data: try lookUpFile(data[0]).settings)
    }

    /// CreateStdDataFile (CD) / CreateBackupDataFile (CB): FileNo [ISOFID(2)] Comm AR(2) Size(3).
    mutating func createDataFile(_ ins: UInt8, _ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        let (number, isoFileID, body) = try fileHeader(data, bodyLength: 6)
        let size = DESFireBytes.readLE24(body, at: 3)
        // Checked before the content is allocated, so that a huge size costs nothing.
        try checkNewFile(
            number: number, isoFileID: isoFileID, communication: body[0],
            allocatedBytes: DESFireMemory.blocks(size) * (ins == 0xCB ? 2 : 1))
        let file = DESFireFile(
            number: number, type: ins == 0xCD ? .standard : .backup, isoFileID: isoFileID,
            communication: body[0], accessRights: DESFireAccessRights(raw: DESFireBytes.readLE16(body, at: 1)),
            data: [UInt8](repeating: 0, count: size), valueState: nil, recordState: nil)
        try add(file)
        return .ok
    }

    /// CreateValueFile (CC): FileNo Comm AR(2) Lower(4) Upper(4) Value(4) LimitedCredit(1).
    mutating func createValueFile(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireLength(data, 17)
        try requireApplication()
        try requireMasterKey(unless: current.freeCreateDelete)
        let lower = DESFireBytes.readLE32(data, at: 4)
        let upper = DESFireBytes.readLE32(data, at: 8)
        let value = DESFireBytes.readLE32(data, at: 12)
        guard lower <= upper, value >= lower, value <= upper, data[16] & 0xFC == 0 else { throw .parameterError }
        let state = DESFireFile.ValueState(
            lower: lower, upper: upper, value: value,
            limitedCreditEnabled: data[16] & 0x01 != 0, limitedCreditValue: 0)
        let file = DESFireFile(
            number: data[0], type: .value, isoFileID: nil, communication: data[1],
            accessRights: DESFireAccessRights(raw: DESFireBytes.readLE16(data, at: 2)),
            data: [], valueState: state, recordState: nil)
        try add(file)
        return .ok
    }

    /// CreateLinearRecordFile (C1) / CreateCyclicRecordFile (C0): FileNo [ISOFID] Comm AR(2) RecordSize(3) MaxRecords(3).
    mutating func createRecordFile(_ ins: UInt8, _ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        let (number, isoFileID, body) = try fileHeader(data, bodyLength: 9)
        let recordSize = DESFireBytes.readLE24(body, at: 3)
        let maxRecords = DESFireBytes.readLE24(body, at: 6)
        let cyclic = ins == 0xC0
        guard recordSize > 0, maxRecords >= (cyclic ? 2 : 1) else { throw .parameterError }
        let file = DESFireFile(
            number: number, type: cyclic ? .cyclicRecord : .linearRecord, isoFileID: isoFileID,
            communication: body[0], accessRights: DESFireAccessRights(raw: DESFireBytes.readLE16(body, at: 1)),
            data: [], valueState: nil,
            recordState: .init(recordSize: recordSize, maxRecords: maxRecords, records: []))
        try add(file)
        return .ok
    }

    /// DeleteFile (DF): the memory stays allocated until FormatPICC.
    mutating func deleteFile(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireLength(data, 1)
        try requireApplication()
        try requireMasterKey(unless: current.freeCreateDelete)
        guard let index = current.fileIndex(data[0]) else { throw .fileNotFound }
        current.files.remove(at: index)
        transaction.backupData[data[0]] = nil
        transaction.valueChanges[data[0]] = nil
        transaction.newRecords[data[0]] = nil
        transaction.clearedRecordFiles.remove(data[0])
        return .ok
    }

    /// ChangeFileSettings (5F): FileNo Comm AR(2); enciphered (offset 2) when the Change right is a
    /// key, plain when it is free.
    mutating func changeFileSettings(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        guard data.count >= 1 else { throw .lengthError }
        try requireApplication()
        let number = data[0]
        guard let index = current.fileIndex(number) else { throw .fileNotFound }
        let change = Self.changeRight(of: current.files[index], session: session)
        let settings: [UInt8]
        switch change {
        case DESFireAccessRights.never:
            throw .permissionDenied
        case DESFireAccessRights.free:
            if let active = session, active.mode == .ev2 {
                settings = try DESFireSecureMessaging.unwrapEV2(
                    active, ins: 0x5F, data, headerLength: 1, protection: .mac
                ).payload
                break
            }
            guard data.count == 4 else { throw .lengthError }
            if session != nil { try DESFireSecureMessaging.advance(&session!, over: [0x5F] + data) }
            settings = Array(data[1...])
        default:
            guard var active = session else { throw .authenticationError }
            guard active.keyNumber == change else { throw .authenticationError }
            if active.mode == .ev2 {
                settings = try DESFireSecureMessaging.unwrapEV2(
                    active, ins: 0x5F, data, headerLength: 1, protection: .full
                ).payload
                break
            }
            let cryptogram = Array(data[1...])
            guard cryptogram.count == DESFireSecureMessaging.protectedLength(3, mode: .enciphered, session: active)
            else {
                throw .lengthError
            }
            switch active.mode {
            case .ev1, .ev2:
                let plain = try DESFireSecureMessaging.decipherEV1(cryptogram, session: &active)
                guard Array(plain[3..<7]) == DESFireCRC32.bytes([0x5F, number] + plain.prefix(3)),
                    plain[7...].allSatisfy({ $0 == 0 })
                else { throw .integrityError }
                settings = Array(plain.prefix(3))
            case .legacy:
                let plain = try DESFireSecureMessaging.recoverLegacy(cryptogram, session: active)
                guard Array(plain[3..<5]) == CRC16A.bytes(Array(plain.prefix(3))),
                    plain[5...].allSatisfy({ $0 == 0 })
                else { throw .integrityError }
                settings = Array(plain.prefix(3))
            }
            session = active
        }
        if current.files[index].type == .transactionMAC {
            current.files[index].transactionMACCounterLimit = try Self.transactionMACCounterLimit(settings)
            current.files[index].communication = settings[0] & 0x03
            current.files[index].accessRights = DESFireAccessRights(raw: DESFireBytes.readLE16(settings, at: 1))
            return .ok
        }
        let additional = try Self.additionalAccessRights(settings)
        guard settings[0] & 0x7F <= 0x03 else { throw .parameterError }
        current.files[index].communication = settings[0] & 0x03
        current.files[index].accessRights = DESFireAccessRights(raw: DESFireBytes.readLE16(settings, at: 1))
        current.files[index].additionalAccessRights = additional
        return .ok
    }

    /// The Change right that decides how ChangeFileSettings travels, over the file's own and EV2
    /// additional access-right sets: free if one set is free, else the session's key if one set
    /// names it, else never if all sets say never, else a key the session does not hold (`AE`).
    private static func changeRight(of file: DESFireFile, session: DESFireSession?) -> UInt8 {
        let changes = file.accessRightSets.map(\.change)
        if changes.contains(DESFireAccessRights.free) { return DESFireAccessRights.free }
        if let session, changes.contains(session.keyNumber) { return session.keyNumber }
        return changes.first { $0 != DESFireAccessRights.never } ?? DESFireAccessRights.never
    }

    /// The settings of a TransactionMAC file: `FileOption AR(2)`, and `TMCLimit(4)` when FileOption
    /// bit 5 is set (MF2DLHX0 ChangeFileSettings; NXP reader library: TMCLIMITCONFIG = 0x20). No
    /// additional access rights; the other FileOption bits besides the comm mode are refused.
    private static func transactionMACCounterLimit(_ settings: [UInt8]) throws(DESFireCardStatus) -> UInt32? {
        guard settings.count >= 3 else { throw .lengthError }
        guard settings[0] & ~(0x03 | DESFireFile.counterLimitOption) == 0 else { throw .parameterError }
        guard settings[0] & DESFireFile.counterLimitOption != 0 else {
            guard settings.count == 3 else { throw .lengthError }
            return nil
        }
        guard settings.count == 7 else { throw .lengthError }
        return UInt32(bitPattern: DESFireBytes.readLE32(settings, at: 3))
    }

    /// The EV2 form of the settings: `FileOption AR(2)`, and when FileOption bit 7 is set
    /// `NrAddARs AddAR(2)…` (at most 7 additional access-right pairs).
    private static func additionalAccessRights(_ settings: [UInt8]) throws(DESFireCardStatus) -> [UInt16]? {
        guard settings.count >= 3 else { throw .lengthError }
        guard settings[0] & 0x80 != 0 else {
            guard settings.count == 3 else { throw .lengthError }
            return nil
        }
        guard settings.count >= 4 else { throw .lengthError }
        let count = Int(settings[3])
        guard (1...7).contains(count) else { throw .parameterError }
        guard settings.count == 4 + 2 * count else { throw .lengthError }
        return (0..<count).map { DESFireBytes.readLE16(settings, at: 4 + 2 * $0) }
    }

    // MARK: Helpers

    /// The file `number` of the selected application, or `F0`.
    func lookUpFile(_ number: UInt8) throws(DESFireCardStatus) -> DESFireFile {
        guard selectedAID != 0 else { throw .permissionDenied }
        guard let index = current.fileIndex(number) else { throw .fileNotFound }
        return current.files[index]
    }

    /// Parses `FileNo [ISOFID(2)] body` of the data/record create commands, after the rights checks.
    private func fileHeader(_ data: [UInt8], bodyLength: Int) throws(DESFireCardStatus) -> (UInt8, UInt16?, [UInt8]) {
        try requireApplication()
        try requireMasterKey(unless: current.freeCreateDelete)
        switch data.count {
        case 1 + bodyLength:
            return (data[0], nil, Array(data[1...]))
        case 3 + bodyLength:
            // The ISO file identifier exists only in applications created with ISO support.
            guard current.isoFileID != nil else { throw .lengthError }
            return (data[0], DESFireBytes.readLE16(data, at: 1), Array(data[3...]))
        default:
            throw .lengthError
        }
    }

    /// The number, comm setting, duplicate and memory checks of a new file.
    private func checkNewFile(
        number: UInt8, isoFileID: UInt16?, communication: UInt8,
        allocatedBytes: Int
    ) throws(DESFireCardStatus) {
        guard number <= Self.maxFileNumber, communication <= 0x03 else { throw .parameterError }
        guard current.fileIndex(number) == nil else { throw .duplicateError }
        if let isoFileID, current.files.contains(where: { $0.isoFileID == isoFileID }) { throw .duplicateError }
        guard allocatedBytes <= freeMemory else { throw .outOfMemory }
    }

    /// Adds a file after the checks of ``checkNewFile(number:isoFileID:communication:allocatedBytes:)``
    /// and charges its memory.
    mutating func add(_ file: DESFireFile) throws(DESFireCardStatus) {
        try checkNewFile(
            number: file.number, isoFileID: file.isoFileID, communication: file.communication,
            allocatedBytes: file.allocatedBytes)
        allocatedMemory += file.allocatedBytes
        current.files.append(file)
    }
}
