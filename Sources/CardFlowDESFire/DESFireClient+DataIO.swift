import CardFlow

extension DESFireClient {
    /// ReadData (`BD`) from a standard or backup file. `length` 0 reads to the end of the file.
    /// The comm mode comes from the file's settings unless `commMode` is given.
    public func readData(file: UInt8, offset: Int = 0, length: Int = 0, commMode: DESFireCommMode? = nil) async throws
        -> [UInt8]
    {
        try checkRange(offset: offset, length: length)
        let mode = try await self.commMode(forFile: file, rights: { [$0.read, $0.readWrite] }, override: commMode)
        let header = try dataHeader(file, offset, length)
        let content = try await exchange(
            .readData, header: header, response: responseProtection(mode, length: length == 0 ? nil : length),
            fileMode: mode)
        addTransactionMACInput(
            file: file,
            [0xBD, file] + littleEndian(UInt32(offset), count: 3)
                + littleEndian(UInt32(content.count), count: 3), data: content)
        return content
    }

    /// WriteData (`3D`) to a standard or backup file (backup files need ``commitTransaction()``).
    public func writeData(file: UInt8, offset: Int = 0, data: [UInt8], commMode: DESFireCommMode? = nil) async throws {
        try checkRange(offset: offset, length: data.count)
        let mode = try await self.commMode(forFile: file, rights: { [$0.write, $0.readWrite] }, override: commMode)
        let header = try dataHeader(file, offset, data.count)
        _ = try await exchange(
            .writeData, header: header, data: data, protection: commandProtection(mode), fileMode: mode)
        addTransactionMACInput(file: file, [DESFireCommand.writeData.rawValue] + header, data: data)
    }

    /// GetValue (`6C`): the committed value of a value file.
    public func getValue(file: UInt8, commMode: DESFireCommMode? = nil) async throws -> Int32 {
        let mode = try await self.commMode(
            forFile: file, rights: { [$0.read, $0.write, $0.readWrite] }, override: commMode)
        let data = try await exchange(
            .getValue, header: [try fileNumber(file)], response: responseProtection(mode, length: 4), fileMode: mode)
        guard data.count == 4 else {
            throw DESFireError.malformedResponse(command: .getValue, reason: "expected 4 bytes, got \(data.count)")
        }
        addTransactionMACInput(file: file, [DESFireCommand.getValue.rawValue, file] + data)
        return Int32(bitPattern: littleEndianValue(data[...]))
    }

    /// Credit (`0C`): adds `amount` (pending until commit). Needs the R/W right.
    public func credit(file: UInt8, amount: Int32, commMode: DESFireCommMode? = nil) async throws {
        try await valueOperation(.credit, file: file, amount: amount, rights: { [$0.readWrite] }, override: commMode)
    }

    /// Debit (`DC`): subtracts `amount` (pending until commit).
    public func debit(file: UInt8, amount: Int32, commMode: DESFireCommMode? = nil) async throws {
        try await valueOperation(
            .debit, file: file, amount: amount, rights: { [$0.read, $0.write, $0.readWrite] }, override: commMode)
    }

    /// LimitedCredit (`1C`): adds up to the debits of the last transaction.
    public func limitedCredit(file: UInt8, amount: Int32, commMode: DESFireCommMode? = nil) async throws {
        try await valueOperation(
            .limitedCredit, file: file, amount: amount, rights: { [$0.write, $0.readWrite] }, override: commMode)
    }

    /// WriteRecord (`3B`): writes into the new record of the pending transaction.
    public func writeRecord(file: UInt8, offset: Int = 0, data: [UInt8], commMode: DESFireCommMode? = nil) async throws
    {
        try checkRange(offset: offset, length: data.count)
        let mode = try await self.commMode(forFile: file, rights: { [$0.write, $0.readWrite] }, override: commMode)
        let header =
            [try fileNumber(file)] + littleEndian(UInt32(offset), count: 3) + littleEndian(UInt32(data.count), count: 3)
        _ = try await exchange(
            .writeRecord, header: header, data: data, protection: commandProtection(mode), fileMode: mode)
        addTransactionMACInput(file: file, [DESFireCommand.writeRecord.rawValue] + header, data: data)
    }

    /// ReadRecords (`BB`): `count` records from `record` (0 = newest); count 0 reads all.
    /// Returns the records' bytes concatenated.
    public func readRecords(file: UInt8, record: Int = 0, count: Int = 0, commMode: DESFireCommMode? = nil) async throws
        -> [UInt8]
    {
        try checkRange(offset: record, length: count)
        let mode = try await self.commMode(forFile: file, rights: { [$0.read, $0.readWrite] }, override: commMode)
        var length: Int?
        if count > 0, case .linearRecord(let size, _, _)? = fileSettingsCache[file]?.kind { length = size * count }
        if count > 0, case .cyclicRecord(let size, _, _)? = fileSettingsCache[file]?.kind { length = size * count }
        let header =
            [try fileNumber(file)] + littleEndian(UInt32(record), count: 3) + littleEndian(UInt32(count), count: 3)
        let records = try await exchange(
            .readRecords, header: header, response: responseProtection(mode, length: length), fileMode: mode)
        // TMI names the number of records actually read.
        let recordSize = fileSettingsCache[file].flatMap(Self.recordSize)
        let readCount = recordSize.map { records.count / max(1, $0) } ?? count
        addTransactionMACInput(
            file: file,
            [DESFireCommand.readRecords.rawValue, file] + littleEndian(UInt32(record), count: 3)
                + littleEndian(UInt32(readCount), count: 3), data: records)
        return records
    }

    /// ClearRecordFile (`EB`): empties a record file (pending until commit). Needs the R/W right.
    public func clearRecordFile(_ file: UInt8) async throws {
        _ = try await exchange(.clearRecordFile, data: [try fileNumber(file)])
        addTransactionMACInput(file: file, [DESFireCommand.clearRecordFile.rawValue, file])
    }

    /// CommitTransaction (`C7`).
    public func commitTransaction() async throws {
        _ = try await exchange(.commitTransaction)
        endTransaction()
    }

    /// AbortTransaction (`A7`).
    public func abortTransaction() async throws {
        _ = try await exchange(.abortTransaction)
        endTransaction()
    }

    private func valueOperation(
        _ command: DESFireCommand, file: UInt8, amount: Int32,
        rights: @escaping (DESFireAccessRights) -> [UInt8], override: DESFireCommMode?
    ) async throws {
        let mode = try await self.commMode(forFile: file, rights: rights, override: override)
        _ = try await exchange(
            command, header: [try fileNumber(file)], data: littleEndian(UInt32(bitPattern: amount), count: 4),
            protection: commandProtection(mode), fileMode: mode)
        addTransactionMACInput(
            file: file, [command.rawValue, file] + littleEndian(UInt32(bitPattern: amount), count: 4))
    }

    /// The record size of a record file's settings.
    private static func recordSize(_ settings: DESFireFileSettings) -> Int? {
        switch settings.kind {
        case .linearRecord(let size, _, _), .cyclicRecord(let size, _, _): size
        default: nil
        }
    }

    /// `FileNo ‖ offset (3) ‖ length (3)`, little-endian, the header of ReadData and WriteData.
    private func dataHeader(_ file: UInt8, _ offset: Int, _ length: Int) throws(DESFireError) -> [UInt8] {
        [
            try fileNumber(file),
            UInt8(truncatingIfNeeded: offset), UInt8(truncatingIfNeeded: offset >> 8),
            UInt8(truncatingIfNeeded: offset >> 16),
            UInt8(truncatingIfNeeded: length), UInt8(truncatingIfNeeded: length >> 8),
            UInt8(truncatingIfNeeded: length >> 16),
        ]
    }

    private func checkRange(offset: Int, length: Int) throws(DESFireError) {
        guard (0...0xFF_FFFF).contains(offset), (0...0xFF_FFFF).contains(length) else {
            throw .invalidArgument("offset \(offset) and length \(length) must fit 3 bytes")
        }
    }

    private func commandProtection(_ mode: DESFireCommMode) -> DESFireCommandProtection {
        switch mode {
        case .plain: .plain
        case .mac: .mac
        case .enciphered: .enciphered
        }
    }

    private func responseProtection(_ mode: DESFireCommMode, length: Int?) -> DESFireResponseProtection {
        switch mode {
        case .plain: .plain
        case .mac: .mac
        case .enciphered: .enciphered(length: length)
        }
    }
}
