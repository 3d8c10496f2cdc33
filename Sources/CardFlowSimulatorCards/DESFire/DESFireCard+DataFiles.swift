/// ReadData / WriteData on standard and backup files.
extension DESFireCard {
    /// ReadData (BD): FileNo Offset(3) Length(3); length 0 reads to the end of the file.
    /// Backup files return their committed content.
    mutating func readData(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireLength(data, 7)
        let file = try lookUpFile(data[0])
        guard file.isDataFile || file.type == .transactionMAC else { throw .parameterError }
        let access = try grant(file) { [$0.read, $0.readWrite] }
        let offset = DESFireBytes.readLE24(data, at: 1)
        let requested = DESFireBytes.readLE24(data, at: 4)
        guard offset < file.data.count else { throw .boundaryError }
        let count = requested == 0 ? file.data.count - offset : requested
        guard offset + count <= file.data.count else { throw .boundaryError }
        let content = Array(file.data[offset..<offset + count])
        if file.type != .transactionMAC {
            addTransactionMACInput(
                [0xBD, file.number] + DESFireBytes.le24(offset) + DESFireBytes.le24(count), data: content)
        }
        return DESFireReply(data: content, protection: protection(communicationMode(of: file, access)))
    }

    /// WriteData (3D): FileNo Offset(3) Length(3) Data, protected per the file's comm mode,
    /// possibly sent over several frames. Backup files change at CommitTransaction.
    mutating func writeData(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        // The header may itself be split across frames.
        guard !data.isEmpty else { throw .lengthError }
        guard data.count >= 7 else { return DESFireReply(needsMoreData: 7) }
        let index = try fileIndex(data[0])
        let file = current.files[index]
        guard file.isDataFile else { throw .parameterError }
        let access = try grant(file) { [$0.write, $0.readWrite] }
        let offset = DESFireBytes.readLE24(data, at: 1)
        let length = DESFireBytes.readLE24(data, at: 4)
        guard length > 0 else { throw .lengthError }
        guard offset + length <= file.data.count else { throw .boundaryError }
        let mode = communicationMode(of: file, access)
        let expected = 7 + DESFireSecureMessaging.protectedLength(length, mode: mode, session: session)
        if data.count < expected { return DESFireReply(needsMoreData: expected) }
        var header: [UInt8] = []
        header.reserveCapacity(8)
        header.append(0x3D)
        header += data[..<7]
        let content = try DESFireSecureMessaging.unwrapCommand(
            header: header, protected: Array(data[7...]), plainLength: length, mode: mode, session: &session)
        if file.type == .backup {
            var working = transaction.backupData[file.number] ?? file.data
            working.replaceSubrange(offset..<offset + length, with: content)
            transaction.backupData[file.number] = working
        } else {
            current.files[index].data.replaceSubrange(offset..<offset + length, with: content)
        }
        addTransactionMACInput(header, data: content)
        return writeReply(mode)
    }
}
