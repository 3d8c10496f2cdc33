import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// What the DESFire model reports and accepts for TransactionMAC files and EV2 additional access
/// rights, checked on the model directly: GetFileSettings bytes (MF2DLHX0: FileType FileOption
/// AR(2) TMKeyOption TMKeyVersion [TMCLimit], FileOption bit 5 for the limit) and the state-file
/// rules that keep a hostile file from loading what ChangeFileSettings would never set.
@Suite("DESFire card: TransactionMAC settings and state rules")
struct DESFireCardTransactionMACStateTests {
    static func transactionMACFile(limit: UInt32? = nil, additional: [UInt16]? = nil) -> DESFireFile {
        var file = DESFireFile(
            number: 5, type: .transactionMAC, isoFileID: nil, communication: 0x01,
            accessRights: DESFireAccessRights(raw: 0xEFF0), data: [UInt8](repeating: 0, count: 12),
            valueState: nil, recordState: nil,
            transactionMACKey: .init(bytes: [UInt8](repeating: 0xA5, count: 16), version: 7))
        file.transactionMACCounterLimit = limit
        file.additionalAccessRights = additional
        return file
    }

    static func validate(_ files: [DESFireFile]) throws {
        let application = DESFireApplication(
            aid: 0x12_3456, keySettings: 0x0F, keyType: .aes, keys: [.zero(.aes)], isoFileID: nil, dfName: nil,
            files: files)
        try DESFireCard.validatePersistentState(
            realUID: [4, 1, 2, 3, 4, 5, 6], picc: .factoryPICC, applications: [application],
            allocatedMemory: files.reduce(0) { $0 + $1.allocatedBytes }, productionBatch: [0, 0, 0, 0, 0])
    }

    @Test("GetFileSettings: 6 bytes without a TMC limit, 10 with one and FileOption bit 5")
    func settingsBytes() {
        #expect(Self.transactionMACFile().settings == [0x05, 0x01, 0xF0, 0xEF, 0x02, 0x07])
        #expect(
            Self.transactionMACFile(limit: 0x0102_0304).settings
                == [0x05, 0x21, 0xF0, 0xEF, 0x02, 0x07, 0x04, 0x03, 0x02, 0x01])
    }

    @Test("a file's access-right sets are its own, then the additional ones")
    func accessRightSets() {
        var file = Self.transactionMACFile()
        file.type = .standard
        file.additionalAccessRights = [0x2FFF, 0xFF2F]
        #expect(file.accessRightSets.map(\.raw) == [0xEFF0, 0x2FFF, 0xFF2F])
    }

    @Test("state files: a TMC limit and a TransactionMAC file load; rights or limits where they cannot be do not")
    func stateRules() throws {
        try Self.validate([Self.transactionMACFile(limit: 100)])
        #expect(throws: DecodingError.self) { try Self.validate([Self.transactionMACFile(additional: [0x1111])]) }
        var standard = DESFireFile(
            number: 1, type: .standard, isoFileID: nil, communication: 0, accessRights: DESFireAccessRights(raw: 0),
            data: [UInt8](repeating: 0, count: 8), valueState: nil, recordState: nil)
        standard.additionalAccessRights = [0x1111]
        try Self.validate([standard])
        standard.transactionMACCounterLimit = 5
        #expect(throws: DecodingError.self) { try Self.validate([standard]) }
    }
}
