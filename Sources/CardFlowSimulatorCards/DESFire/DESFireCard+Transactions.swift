/// CommitTransaction and AbortTransaction for backup, value and record files.
extension DESFireCard {
    /// CommitTransaction (C7 [Option]): applies every pending change of the selected application
    /// and updates its TransactionMAC file. The option byte exists only in an application with a
    /// TransactionMAC file (elsewhere `7E`, as on an EV1 card); its bit 0 asks for TMC ‖ TMV in
    /// the answer.
    mutating func commitTransaction(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        let hasTransactionMAC = selectedAID != 0 && current.files.contains(where: { $0.type == .transactionMAC })
        guard data.count <= (hasTransactionMAC ? 1 : 0) else { throw .lengthError }
        guard data.first.map({ $0 & 0xFE == 0 }) ?? true else { throw .parameterError }
        let wantsTransactionMAC = data.first.map { $0 & 0x01 != 0 } ?? false
        let pending = transaction
        transaction = DESFireTransaction()
        guard selectedAID != 0 else { return .ok }
        var level = current
        for index in level.files.indices {
            let number = level.files[index].number
            if let working = pending.backupData[number] { level.files[index].data = working }
            if let change = pending.valueChanges[number], var state = level.files[index].valueState {
                state.value = Int32(clamping: Int64(state.value) + change.net)
                // LimitedCredit may later return what this transaction debited; using it consumes the allowance.
                if change.limitedCredit > 0 {
                    state.limitedCreditValue = 0
                } else if change.debit > 0 {
                    state.limitedCreditValue = Int32(clamping: change.debit)
                }
                level.files[index].valueState = state
            }
            if var state = level.files[index].recordState {
                if pending.clearedRecordFiles.contains(number) { state.records = [] }
                if let record = pending.newRecords[number] {
                    state.records.append(record)
                    let capacity = state.capacity(cyclic: level.files[index].type == .cyclicRecord)
                    if state.records.count > capacity { state.records.removeFirst(state.records.count - capacity) }
                }
                level.files[index].recordState = state
            }
        }
        current = level
        let transactionMAC = try commitTransactionMAC(input: pending.transactionMACInput)
        return wantsTransactionMAC ? DESFireReply(data: transactionMAC ?? []) : .ok
    }

    /// AbortTransaction (A7): discards every pending change.
    mutating func abortTransaction(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireLength(data, 0)
        transaction = DESFireTransaction()
        return .ok
    }
}
