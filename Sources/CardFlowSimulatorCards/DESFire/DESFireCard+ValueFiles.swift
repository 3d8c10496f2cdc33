/// GetValue, Credit, Debit and LimitedCredit on value files.
extension DESFireCard {
    /// GetValue (6C): the committed value, 4 bytes LE signed. Read, Write or R/W right.
    mutating func getValue(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireLength(data, 1)
        let file = try lookUpFile(data[0])
        guard file.type == .value, let state = file.valueState else { throw .parameterError }
        let access = try grant(file) { [$0.read, $0.write, $0.readWrite] }
        addTransactionMACInput([0x6C, file.number] + DESFireBytes.le32(state.value))
        return DESFireReply(
            data: DESFireBytes.le32(state.value), protection: protection(communicationMode(of: file, access)))
    }

    /// Credit (0C, R/W right), Debit (DC, Read/Write/R/W), LimitedCredit (1C, Write/R/W):
    /// FileNo Amount(4), protected per the file's comm mode (encryption offset 2). The change
    /// takes effect at CommitTransaction.
    mutating func changeValue(_ ins: UInt8, _ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        guard data.count >= 1 else { throw .lengthError }
        let file = try lookUpFile(data[0])
        guard file.type == .value, let state = file.valueState else { throw .parameterError }
        let allowed: (DESFireAccessRights) -> [UInt8] =
            switch ins {
            case 0x0C: { [$0.readWrite] }
            case 0xDC: { [$0.read, $0.write, $0.readWrite] }
            default: { [$0.write, $0.readWrite] }
            }
        let mode = communicationMode(of: file, try grant(file, allowed))
        let amountBytes = try DESFireSecureMessaging.unwrapCommand(
            header: [ins, data[0]], protected: Array(data[1...]), plainLength: 4, mode: mode, session: &session)
        let amount = Int64(DESFireBytes.readLE32(amountBytes, at: 0))
        guard amount >= 0 else { throw .parameterError }
        var change = transaction.valueChanges[file.number] ?? DESFireTransaction.ValueChange()
        switch ins {
        case 0x0C: change.credit += amount
        case 0xDC: change.debit += amount
        default:
            guard state.limitedCreditEnabled else { throw .permissionDenied }
            guard change.limitedCredit + amount <= Int64(state.limitedCreditValue) else { throw .boundaryError }
            change.limitedCredit += amount
        }
        let newValue = Int64(state.value) + change.net
        guard newValue >= Int64(state.lower), newValue <= Int64(state.upper) else { throw .boundaryError }
        transaction.valueChanges[file.number] = change
        addTransactionMACInput([ins, file.number] + amountBytes)
        return writeReply(mode)
    }
}
