/// A file of a DESFire application, with its committed content.
///
/// Pending (uncommitted) changes of backup, value and record files live in
/// ``DESFireTransaction``, which is volatile.
struct DESFireFile: Codable, Sendable, Hashable {
    /// The file type byte GetFileSettings reports.
    enum FileType: UInt8, Codable, Sendable, Hashable {
        case standard = 0x00
        case backup = 0x01
        case value = 0x02
        case linearRecord = 0x03
        case cyclicRecord = 0x04
        /// EV2: the TransactionMAC file, TMC(4) ‖ TMV(8), read-only.
        case transactionMAC = 0x05
    }

    /// The AppTransactionMACKey of a TransactionMAC file (AES) and its version.
    struct TransactionMACKey: Codable, Sendable, Hashable {
        var bytes: [UInt8]
        var version: UInt8
    }

    /// Value file parameters and committed value.
    struct ValueState: Codable, Sendable, Hashable {
        var lower: Int32
        var upper: Int32
        var value: Int32
        /// Bit 0 of the create byte: LimitedCredit enabled.
        var limitedCreditEnabled: Bool
        /// The amount LimitedCredit may still add (the debits of the last committed transaction).
        var limitedCreditValue: Int32
    }

    /// Record file parameters and committed records, oldest first.
    struct RecordState: Codable, Sendable, Hashable {
        var recordSize: Int
        var maxRecords: Int
        var records: [[UInt8]]

        /// A cyclic file keeps one slot free for the record being written (spec §5.5).
        func capacity(cyclic: Bool) -> Int { cyclic ? maxRecords - 1 : maxRecords }
    }

    var number: UInt8
    var type: FileType
    var isoFileID: UInt16?
    var communication: UInt8
    var accessRights: DESFireAccessRights
    /// Standard and backup files: committed content.
    var data: [UInt8]
    var valueState: ValueState?
    var recordState: RecordState?
    /// TransactionMAC file: its key; `nil` for other files.
    var transactionMACKey: TransactionMACKey?
    /// EV2: additional access-right pairs (FileOption bit 7), `nil` when the file has none.
    var additionalAccessRights: [UInt16]?
    /// TransactionMAC file: the TMCLimit set with ChangeFileSettings (FileOption bit 5), `nil` while
    /// disabled (as delivered, equivalent to FFFFFFFF).
    var transactionMACCounterLimit: UInt32?

    /// FileOption bit 5 of a TransactionMAC file: TMCLimit configured.
    static let counterLimitOption: UInt8 = 0x20

    /// The access-right sets a command may be granted by: the file's own, then the EV2 additional
    /// ones (MF3D(H)x2 ChangeFileSettings: each additional pair is a full Read/Write/R&W/Change set;
    /// a command passes when any set grants it).
    var accessRightSets: [DESFireAccessRights] {
        [accessRights] + (additionalAccessRights ?? []).map { DESFireAccessRights(raw: $0) }
    }

    var mode: DESFireCommunicationMode { DESFireCommunicationMode(fileSetting: communication) }
    var isDataFile: Bool { type == .standard || type == .backup }
    var isRecordFile: Bool { type == .linearRecord || type == .cyclicRecord }

    /// GetFileSettings answer (spec §5.5).
    var settings: [UInt8] {
        let option =
            communication | (additionalAccessRights == nil ? 0 : 0x80)
            | (transactionMACCounterLimit == nil ? 0 : Self.counterLimitOption)
        var out: [UInt8] = [type.rawValue, option] + accessRights.bytes
        switch type {
        case .standard, .backup:
            out += DESFireBytes.le24(data.count)
        case .transactionMAC:
            // TMKeyOption 02 (AES), TMKeyVersion [TMCLimit(4)] (MF2DLHX0 GetFileSettings).
            out += [0x02, transactionMACKey?.version ?? 0]
            if let limit = transactionMACCounterLimit { out += DESFireBytes.le32(Int32(bitPattern: limit)) }
        case .value:
            let state =
                valueState
                ?? ValueState(lower: 0, upper: 0, value: 0, limitedCreditEnabled: false, limitedCreditValue: 0)
            out += DESFireBytes.le32(state.lower) + DESFireBytes.le32(state.upper)
            out += DESFireBytes.le32(state.limitedCreditValue) + [state.limitedCreditEnabled ? 0x01 : 0x00]
        case .linearRecord, .cyclicRecord:
            let state = recordState ?? RecordState(recordSize: 0, maxRecords: 0, records: [])
            out += DESFireBytes.le24(state.recordSize) + DESFireBytes.le24(state.maxRecords)
            out += DESFireBytes.le24(state.records.count)
        }
        if let additional = additionalAccessRights {
            // 1...7 pairs: ChangeFileSettings and the state file's validation both check it.
            out += [UInt8(truncatingIfNeeded: additional.count)]
            out += additional.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
        }
        return out
    }

    /// Non-volatile memory the file occupies: whole 32-byte blocks, at least one; backup files
    /// hold two copies.
    var allocatedBytes: Int {
        switch type {
        case .standard, .transactionMAC: DESFireMemory.blocks(data.count)
        case .backup: 2 * DESFireMemory.blocks(data.count)
        case .value: DESFireMemory.blocks(4)
        case .linearRecord, .cyclicRecord:
            DESFireMemory.blocks((recordState?.recordSize ?? 0) * (recordState?.maxRecords ?? 0))
        }
    }
}
