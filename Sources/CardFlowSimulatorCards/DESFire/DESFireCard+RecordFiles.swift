/// WriteRecord, ReadRecords and ClearRecordFile on linear and cyclic record files.
extension DESFireCard {
    /// WriteRecord (3B): FileNo Offset(3) Length(3) Data within the record this transaction
    /// creates (zero-filled at first); protected like WriteData.
    mutating func writeRecord(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        // The header may itself be split across frames.
        guard !data.isEmpty else { throw .lengthError }
        guard data.count >= 7 else { return DESFireReply(needsMoreData: 7) }
        let file = try lookUpFile(data[0])
        guard file.isRecordFile, let state = file.recordState else { throw .parameterError }
        let access = try grant(file) { [$0.write, $0.readWrite] }
        let offset = DESFireBytes.readLE24(data, at: 1)
        let length = DESFireBytes.readLE24(data, at: 4)
        guard length > 0 else { throw .lengthError }
        guard offset + length <= state.recordSize else { throw .boundaryError }
        // A record file cleared in this transaction takes no new record before the commit.
        guard !transaction.clearedRecordFiles.contains(file.number) else { throw .permissionDenied }
        if transaction.newRecords[file.number] == nil, file.type == .linearRecord,
            state.records.count >= state.maxRecords
        {
            throw .boundaryError
        }
        let mode = communicationMode(of: file, access)
        let expected = 7 + DESFireSecureMessaging.protectedLength(length, mode: mode, session: session)
        if data.count < expected { return DESFireReply(needsMoreData: expected) }
        let content = try DESFireSecureMessaging.unwrapCommand(
            header: [0x3B] + data.prefix(7), protected: Array(data[7...]), plainLength: length, mode: mode,
            session: &session)
        var record = transaction.newRecords[file.number] ?? [UInt8](repeating: 0, count: state.recordSize)
        record.replaceSubrange(offset..<offset + length, with: content)
        transaction.newRecords[file.number] = record
        addTransactionMACInput([0x3B] + data.prefix(7), data: content)
        return writeReply(mode)
    }

    /// ReadRecords (BB): FileNo RecordNo(3) Count(3); record 0 is the newest, count 0 reads down
    /// to the oldest. Records are returned oldest first (chronological order).
    mutating func readRecords(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireLength(data, 7)
        let file = try lookUpFile(data[0])
        guard file.isRecordFile, let state = file.recordState else { throw .parameterError }
        let access = try grant(file) { [$0.read, $0.readWrite] }
        let records = state.records
        let first = DESFireBytes.readLE24(data, at: 1)
        let requested = DESFireBytes.readLE24(data, at: 4)
        guard first < records.count else { throw .boundaryError }
        let count = requested == 0 ? records.count - first : requested
        guard first + count <= records.count else { throw .boundaryError }
        // Newest-relative numbers first…first+count−1, i.e. array indices from the end.
        let newestIndex = records.count - 1 - first
        let oldestIndex = newestIndex - count + 1
        let bytes = records[oldestIndex...newestIndex].flatMap { $0 }
        addTransactionMACInput([0xBB, file.number] + DESFireBytes.le24(first) + DESFireBytes.le24(count), data: bytes)
        return DESFireReply(data: bytes, protection: protection(communicationMode(of: file, access)))
    }

    /// ClearRecordFile (EB): R/W right; takes effect at CommitTransaction.
    mutating func clearRecordFile(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireLength(data, 1)
        let file = try lookUpFile(data[0])
        guard file.isRecordFile else { throw .parameterError }
        _ = try grant(file) { [$0.readWrite] }
        transaction.newRecords[file.number] = nil
        transaction.clearedRecordFiles.insert(file.number)
        addTransactionMACInput([0xEB, file.number])
        return .ok
    }
}
