import CardFlow

extension DESFireClient {
    /// GetFileIDs (`6F`) of the selected application.
    public func getFileIDs() async throws -> [UInt8] {
        try await exchange(.getFileIDs)
    }

    /// GetISOFileIDs (`61`): the ISO file IDs of the selected application's files.
    public func getISOFileIDs() async throws -> [UInt16] {
        let data = try await exchange(.getISOFileIDs)
        guard data.count % 2 == 0 else {
            throw DESFireError.malformedResponse(
                command: .getISOFileIDs, reason: "\(data.count) bytes is not a list of 2-byte IDs")
        }
        return stride(from: 0, to: data.count, by: 2).map { UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8 }
    }

    /// GetFileSettings (`F5`); the answer is cached for comm-mode decisions.
    public func getFileSettings(file: UInt8) async throws -> DESFireFileSettings {
        let settings = try DESFireFileSettings(
            response: try await exchange(.getFileSettings, data: [try fileNumber(file)]))
        fileSettingsCache[file] = settings
        return settings
    }

    /// ChangeFileSettings (`5F`). Enciphered when the file's Change right is a key (the session's),
    /// plain when it is free (0xE); in an EV2 session CommMode.Full or CommMode.MAC.
    ///
    /// - Parameters:
    ///   - file: the file number.
    ///   - commMode: the new comm mode.
    ///   - accessRights: the new Read/Write/R&W/Change keys.
    ///   - additionalAccessRights: EV2 form only (1…7 pairs, FileOption bit 7): further
    ///     Read/Write/R&W/Change key sets. EV1 cards do not know them.
    ///   - transactionMACCounterLimit: TransactionMAC files only: the TMCLimit (FileOption bit 5,
    ///     4 bytes), after which the application refuses data management commands.
    public func changeFileSettings(
        file: UInt8, commMode: DESFireCommMode, accessRights: DESFireAccessRights,
        additionalAccessRights: [DESFireAccessRights] = [], transactionMACCounterLimit: UInt32? = nil
    ) async throws {
        var settingsBytes = [commMode.rawValue] + accessRights.wire
        if let limit = transactionMACCounterLimit {
            guard additionalAccessRights.isEmpty else {
                throw DESFireError.invalidArgument("a TransactionMAC file has no additional access rights")
            }
            settingsBytes[0] |= DESFireFileSettings.transactionMACCounterLimitOption
            settingsBytes += littleEndian(limit, count: 4)
        }
        if !additionalAccessRights.isEmpty {
            guard session?.flavour == .ev2 else {
                throw DESFireError.invalidArgument("additional access rights need an EV2 session")
            }
            guard let count = UInt8(exactly: additionalAccessRights.count), count <= 7 else {
                throw DESFireError.invalidArgument(
                    "at most 7 additional access rights, not \(additionalAccessRights.count)")
            }
            settingsBytes[0] |= 0x80
            settingsBytes += [count] + additionalAccessRights.flatMap(\.wire)
        }
        let settings = try await cachedFileSettings(file)
        let changeRights = ([settings.accessRights] + settings.additionalAccessRights).map(\.change)
        let protection: DESFireCommandProtection =
            changeRights.contains(DESFireAccessRights.free) || session == nil ? .plain : .enciphered
        fileSettingsCache[file] = nil
        _ = try await exchange(.changeFileSettings, header: [file], data: settingsBytes, protection: protection)
    }

    /// CreateStdDataFile (`CD`) or CreateBackupDataFile (`CB`, when `backup`).
    public func createDataFile(
        file: UInt8, size: Int, commMode: DESFireCommMode, accessRights: DESFireAccessRights,
        backup: Bool = false
    ) async throws {
        guard (0...0xFF_FFFF).contains(size) else {
            throw DESFireError.invalidArgument("file size \(size) does not fit 3 bytes")
        }
        fileSettingsCache[file] = nil
        _ = try await exchange(
            backup ? .createBackupDataFile : .createStdDataFile,
            data: [try fileNumber(file), commMode.rawValue] + accessRights.wire + littleEndian(UInt32(size), count: 3))
    }

    /// CreateValueFile (`CC`).
    public func createValueFile(
        file: UInt8, commMode: DESFireCommMode, accessRights: DESFireAccessRights,
        lowerLimit: Int32, upperLimit: Int32, value: Int32, limitedCreditEnabled: Bool = false
    ) async throws {
        fileSettingsCache[file] = nil
        let limits =
            littleEndian(UInt32(bitPattern: lowerLimit), count: 4)
            + littleEndian(UInt32(bitPattern: upperLimit), count: 4)
        _ = try await exchange(
            .createValueFile,
            data: [try fileNumber(file), commMode.rawValue] + accessRights.wire + limits
                + littleEndian(UInt32(bitPattern: value), count: 4) + [limitedCreditEnabled ? 1 : 0])
    }

    /// CreateLinearRecordFile (`C1`) or CreateCyclicRecordFile (`C0`, when `cyclic`).
    public func createRecordFile(
        file: UInt8, recordSize: Int, maxRecords: Int, commMode: DESFireCommMode,
        accessRights: DESFireAccessRights, cyclic: Bool = false
    ) async throws {
        guard (1...0xFF_FFFF).contains(recordSize), (1...0xFF_FFFF).contains(maxRecords) else {
            throw DESFireError.invalidArgument("record size and count must fit 3 bytes and be positive")
        }
        fileSettingsCache[file] = nil
        _ = try await exchange(
            cyclic ? .createCyclicRecordFile : .createLinearRecordFile,
            data: [try fileNumber(file), commMode.rawValue] + accessRights.wire
                + littleEndian(UInt32(recordSize), count: 3) + littleEndian(UInt32(maxRecords), count: 3))
    }

    /// DeleteFile (`DF`).
    public func deleteFile(_ file: UInt8) async throws {
        fileSettingsCache[file] = nil
        _ = try await exchange(.deleteFile, data: [try fileNumber(file)])
    }

    // MARK: - Comm mode choice (§4.6)

    func fileNumber(_ file: UInt8) throws(DESFireError) -> UInt8 {
        guard file <= 31 else { throw .invalidArgument("file number \(file) is outside 0...31") }
        return file
    }

    func cachedFileSettings(_ file: UInt8) async throws -> DESFireFileSettings {
        if let cached = fileSettingsCache[file] { return cached }
        return try await getFileSettings(file: file)
    }

    /// The comm mode of an access granted by one of `rights` of the file's access-right sets (its own
    /// and the EV2 additional ones): the file's mode when the session key is one of them, plain when
    /// one of them is free.
    func commMode(forFile file: UInt8, rights: (DESFireAccessRights) -> [UInt8], override: DESFireCommMode?)
        async throws -> DESFireCommMode
    {
        if let override { return override }
        // Without a session everything is plain; the card answers AE if a key is needed.
        guard let key = session?.keyNumber else { return .plain }
        let settings = try await cachedFileSettings(file)
        let granting = ([settings.accessRights] + settings.additionalAccessRights).flatMap(rights)
        if granting.contains(key) { return settings.commMode }
        if granting.contains(DESFireAccessRights.free) { return .plain }
        return settings.commMode
    }
}
