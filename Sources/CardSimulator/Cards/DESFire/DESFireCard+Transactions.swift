/// CommitTransaction and AbortTransaction for backup, value and record files.
extension DESFireCard {
    /// CommitTransaction (C7): applies every pending change of the selected application.
    mutating func commitTransaction(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireLength(data, 0)
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
        return .ok
    }

    /// AbortTransaction (A7): discards every pending change.
    mutating func abortTransaction(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        try requireLength(data, 0)
        transaction = DESFireTransaction()
        return .ok
    }
}
