import CardFlow
import CardFlowSimulator
import Testing

@testable import CardFlowDESFire

/// The client against the simulated DESFire card (`sim:desfire`), through the CCID stack.
@Suite("DESFire client against the simulated card")
struct DESFireEndToEndTests {
    static let appKeys: [CardFlowDESFire.DESFireKeyType: [UInt8]] = [
        .aes: bytes("00112233445566778899AABBCCDDEEFF"),
        .des: bytes("0123456789ABCDEF"),
        .twoKey3DES: bytes("00112233445566778899AABBCCDDEEFF"),
        .threeKey3DES: bytes("00112233445566778899AABBCCDDEEFF0123456789ABCDEF"),
    ]
    static let otherKeys: [CardFlowDESFire.DESFireKeyType: [UInt8]] = [
        .aes: bytes("F0E1D2C3B4A5968778695A4B3C2D1E0F"),
        .des: bytes("FEDCBA9876543210"),
        .twoKey3DES: bytes("F0E1D2C3B4A5968778695A4B3C2D1E0F"),
        .threeKey3DES: bytes("F0E1D2C3B4A5968778695A4B3C2D1E0F1122334455667788"),
    ]

    static func reader(_ specification: String = "sim:desfire") async throws -> (CardFlow.Reader, SimulatorSetup) {
        let setup = try await SimulatorSetup(specification: try SimulatorSpecification(parsing: specification))
        return (setup.cardFlowReaders()[0], setup)
    }

    static var policy: SessionPolicy {
        var policy = SessionPolicy()
        policy.connectTimeout = .seconds(2)
        policy.cardReturnTimeout = .seconds(5)
        return policy
    }

    static func zeroKey(_ type: CardFlowDESFire.DESFireKeyType) -> DESFireKey {
        try! DESFireKey(type: type, bytes: [UInt8](repeating: 0, count: type.keyLength))
    }

    struct Case: Sendable, CustomStringConvertible {
        let type: CardFlowDESFire.DESFireKeyType
        let mode: DESFireCommMode
        let method: DESFireAuthenticationMethod
        var description: String { "\(type) \(mode) \(method)" }
    }

    static let cases: [Case] =
        [CardFlowDESFire.DESFireKeyType.aes, .des, .twoKey3DES, .threeKey3DES].flatMap { type in
            DESFireCommMode.allCases.map { Case(type: type, mode: $0, method: .automatic) }
        }
        + [CardFlowDESFire.DESFireKeyType.des, .twoKey3DES].flatMap { type in
            DESFireCommMode.allCases.map { Case(type: type, mode: $0, method: .legacy) }
        }

    @Test("every command, in every comm mode and key type, with non-zero keys", arguments: cases)
    func everyCommand(_ test: Case) async throws {
        let (reader, _) = try await Self.reader()
        let type = test.type
        let key0 = try DESFireKey(type: type, bytes: Self.appKeys[type]!, version: type == .aes ? 7 : nil)
        let key1 = try DESFireKey(type: type, bytes: Self.otherKeys[type]!, version: type == .aes ? 2 : nil)
        let aid = try DESFireApplicationID(hex: "C0FFEE")
        try await reader.withSession(policy: Self.policy) { session in
            let client = DESFireClient(channel: session)
            // PICC level.
            try await client.selectApplication(.picc)
            let version = try await client.getVersion()
            #expect(version.hardware[0] == 0x04 && version.hardware[3] == 0x01)
            try await client.authenticate(
                keyNumber: 0, key: .defaultDES, method: test.method == .legacy ? .legacy : .automatic)
            try await client.formatPICC()
            let free = try await client.getFreeMemory()
            #expect(free > 1024)
            #expect(try await client.getKeySettings().keyCount == 1)
            #expect(try await client.getKeyVersion(keyNumber: 0) == 0)
            try await client.createApplication(aid, settings: 0x0F, keyCount: 3, keyType: type)
            #expect(try await client.getApplicationIDs() == [aid])
            #expect(try await client.getCardUID().count == 7)

            // Application keys: the default key 0 becomes key0, key 1 is changed as another key.
            try await client.selectApplication(aid)
            let settings = try await client.getKeySettings()
            #expect(settings.keyCount == 3 && settings.keyType == (type == .twoKey3DES ? .des : type))
            try await client.authenticate(keyNumber: 0, key: Self.zeroKey(type), method: test.method)
            try await client.changeKey(keyNumber: 0, to: key0)
            #expect(await !client.isAuthenticated)
            try await client.authenticate(keyNumber: 0, key: key0, method: test.method)
            try await client.changeKey(keyNumber: 1, to: key1, oldKey: Self.zeroKey(type))
            #expect(await client.isAuthenticated)
            #expect(try await client.getKeyVersion(keyNumber: 0) == key0.version)
            #expect(try await client.getKeyVersion(keyNumber: 1) == key1.version)
            try await client.changeKeySettings(0x0F)

            // Files: key 1 has R/W so its session uses the file's comm mode; key 0 manages.
            let rights = DESFireAccessRights(read: 1, write: 1, readWrite: 1, change: 0)
            let mode = test.mode
            try await client.createDataFile(file: 1, size: 100, commMode: mode, accessRights: rights)
            try await client.createDataFile(file: 2, size: 40, commMode: mode, accessRights: rights, backup: true)
            try await client.createValueFile(
                file: 3, commMode: mode, accessRights: rights, lowerLimit: -100, upperLimit: 1000,
                value: 10, limitedCreditEnabled: true)
            try await client.createRecordFile(
                file: 4, recordSize: 8, maxRecords: 5, commMode: mode, accessRights: rights)
            try await client.createRecordFile(
                file: 5, recordSize: 4, maxRecords: 3, commMode: mode, accessRights: rights, cyclic: true)
            try await client.createDataFile(file: 6, size: 8, commMode: .plain, accessRights: rights)
            #expect(try await client.getFileIDs().sorted() == [1, 2, 3, 4, 5, 6])
            #expect(
                try await client.getFileSettings(file: 1)
                    == DESFireFileSettings(kind: .standard(size: 100), commMode: mode, accessRights: rights))
            try await client.deleteFile(6)
            #expect(try await client.getFileIDs().sorted() == [1, 2, 3, 4, 5])

            try await client.authenticate(keyNumber: 1, key: key1, method: test.method)
            // Standard file, long enough to chain in both directions.
            let data = (0..<100).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
            try await client.writeData(file: 1, offset: 0, data: data)
            #expect(try await client.readData(file: 1, offset: 0, length: 100) == data)
            #expect(try await client.readData(file: 1) == data)
            #expect(try await client.readData(file: 1, offset: 90, length: 10) == Array(data[90...]))
            // Backup file: pending until commit, dropped by abort.
            try await client.writeData(file: 2, offset: 0, data: [1, 2, 3, 4])
            #expect(try await client.readData(file: 2, offset: 0, length: 4) == [0, 0, 0, 0])
            try await client.commitTransaction()
            #expect(try await client.readData(file: 2, offset: 0, length: 4) == [1, 2, 3, 4])
            try await client.writeData(file: 2, offset: 0, data: [9, 9, 9, 9])
            try await client.abortTransaction()
            #expect(try await client.readData(file: 2, offset: 0, length: 4) == [1, 2, 3, 4])
            // Value file.
            #expect(try await client.getValue(file: 3) == 10)
            try await client.credit(file: 3, amount: 100)
            try await client.debit(file: 3, amount: 30)
            try await client.commitTransaction()
            #expect(try await client.getValue(file: 3) == 80)
            try await client.limitedCredit(file: 3, amount: 20)
            try await client.commitTransaction()
            #expect(try await client.getValue(file: 3) == 100)
            // Linear and cyclic record files.
            for record in 0..<3 {
                try await client.writeRecord(file: 4, offset: 0, data: [UInt8](repeating: UInt8(record + 1), count: 8))
                try await client.commitTransaction()
            }
            #expect(try await client.readRecords(file: 4, record: 0, count: 1) == [UInt8](repeating: 3, count: 8))
            #expect(try await client.readRecords(file: 4).count == 24)
            for record in 0..<4 {
                try await client.writeRecord(file: 5, offset: 0, data: [UInt8](repeating: UInt8(record + 1), count: 4))
                try await client.commitTransaction()
            }
            #expect(try await client.readRecords(file: 5, record: 0, count: 1) == [4, 4, 4, 4])
            try await client.clearRecordFile(4)
            try await client.commitTransaction()
            if case .linearRecord(_, _, let current) = try await client.getFileSettings(file: 4).kind {
                #expect(current == 0)
            }
            #expect(try await client.getCardUID().count == 7)

            // ChangeFileSettings needs the Change key (0): enciphered; then free reads are plain.
            try await client.authenticate(keyNumber: 0, key: key0, method: test.method)
            try await client.changeFileSettings(
                file: 1, commMode: mode, accessRights: DESFireAccessRights(read: 0xE, write: 1, readWrite: 1, change: 0)
            )
            #expect(try await client.readData(file: 1, offset: 0, length: 4) == Array(data[0..<4]))

            // Delete the selected application: the session ends.
            try await client.selectApplication(.picc)
            try await client.authenticate(
                keyNumber: 0, key: .defaultDES, method: test.method == .legacy ? .legacy : .automatic)
            try await client.deleteApplication(aid)
            #expect(try await client.getApplicationIDs().isEmpty)
        }
    }

    @Test("PICC master key DES → AES and back, with a non-zero AES key")
    func piccKeySwitch() async throws {
        let (reader, _) = try await Self.reader()
        let aesKey = try DESFireKey(type: .aes, bytes: Self.appKeys[.aes]!, version: 1)
        try await reader.withSession(policy: Self.policy) { session in
            let client = DESFireClient(channel: session)
            try await client.selectApplication(.picc)
            try await client.authenticate(keyNumber: 0, key: .defaultDES)
            try await client.changeKey(keyNumber: 0, to: aesKey)
            await #expect(throws: DESFireError.self) { try await client.authenticate(keyNumber: 0, key: .defaultDES) }
            try await client.authenticate(keyNumber: 0, key: aesKey)
            #expect(try await client.getKeySettings().keyType == .aes)
            #expect(try await client.getKeyVersion(keyNumber: 0) == 1)
            try await client.formatPICC()
            try await client.changeKey(keyNumber: 0, to: .defaultDES)
            try await client.authenticate(keyNumber: 0, key: .defaultDES)
        }
    }

    @Test("negative paths: wrong key AE, permission 9D, boundary BE, duplicate DE, out of memory 0E, no such key 40")
    func negatives() async throws {
        let (reader, _) = try await Self.reader()
        let key = try DESFireKey(type: .aes, bytes: Self.appKeys[.aes]!)
        let aid = try DESFireApplicationID(hex: "010203")
        try await reader.withSession(policy: Self.policy) { session in
            let client = DESFireClient(channel: session)
            try await client.selectApplication(.picc)
            await #expect(throws: DESFireError.cardStatus(.authenticationError, command: .authenticateISO)) {
                try await client.authenticate(keyNumber: 0, key: try DESFireKey(type: .des, hex: "0123456789ABCDEF"))
            }
            try await client.authenticate(keyNumber: 0, key: .defaultDES)
            try await client.formatPICC()
            try await client.createApplication(aid, keyCount: 2, keyType: .aes)
            await #expect(throws: DESFireError.cardStatus(.duplicateError, command: .createApplication)) {
                try await client.createApplication(aid, keyCount: 2, keyType: .aes)
            }
            #expect(await !client.isAuthenticated)
            try await client.selectApplication(aid)
            await #expect(throws: DESFireError.cardStatus(.noSuchKey, command: .authenticateAES)) {
                try await client.authenticate(keyNumber: 5, key: .defaultAES)
            }
            try await client.authenticate(keyNumber: 0, key: .defaultAES)
            try await client.changeKey(keyNumber: 0, to: key)
            await #expect(throws: DESFireError.cardStatus(.authenticationError, command: .authenticateAES)) {
                try await client.authenticate(keyNumber: 0, key: .defaultAES)
            }
            try await client.authenticate(keyNumber: 0, key: key)
            try await client.createDataFile(
                file: 1, size: 32, commMode: .enciphered,
                accessRights: DESFireAccessRights(read: 0, write: 0xF, readWrite: 0xF, change: 0))
            await #expect(throws: DESFireError.cardStatus(.duplicateError, command: .createStdDataFile)) {
                try await client.createDataFile(
                    file: 1, size: 32, commMode: .plain, accessRights: DESFireAccessRights(rawValue: 0))
            }
            try await client.authenticate(keyNumber: 0, key: key)
            await #expect(throws: DESFireError.cardStatus(.permissionDenied, command: .writeData)) {
                try await client.writeData(file: 1, data: [1, 2, 3])
            }
            try await client.authenticate(keyNumber: 0, key: key)
            await #expect(throws: DESFireError.cardStatus(.boundaryError, command: .readData)) {
                try await client.readData(file: 1, offset: 30, length: 8)
            }
            try await client.authenticate(keyNumber: 0, key: key)
            await #expect(throws: DESFireError.cardStatus(.outOfEEPROM, command: .createStdDataFile)) {
                try await client.createDataFile(
                    file: 2, size: 0xFF_FFF0, commMode: .plain, accessRights: DESFireAccessRights(rawValue: 0))
            }
            // Without a session, a key-protected read is refused by the card.
            try await client.selectApplication(aid)
            await #expect(throws: DESFireError.cardStatus(.authenticationError, command: .readData)) {
                try await client.readData(file: 1, offset: 0, length: 4)
            }
            await #expect(throws: DESFireError.cardStatus(.fileNotFound, command: .getFileSettings)) {
                try await client.getFileSettings(file: 9)
            }
            await #expect(throws: DESFireError.cardStatus(.applicationNotFound, command: .selectApplication)) {
                try await client.selectApplication(try DESFireApplicationID(hex: "999999"))
            }
        }
    }

    @Test("applications with ISO file IDs and DF names: GetDFNames, GetISOFileIDs")
    func dfNames() async throws {
        let (reader, _) = try await Self.reader()
        try await reader.withSession(policy: Self.policy) { session in
            let client = DESFireClient(channel: session)
            try await client.selectApplication(.picc)
            try await client.authenticate(keyNumber: 0, key: .defaultDES)
            try await client.createApplication(
                try DESFireApplicationID(hex: "123456"), settings: 0x2F, keyCount: 14, keyType: .des,
                isoFileID: 0x2345, dfName: Array("aid123456".utf8))
            try await client.createApplication(
                try DESFireApplicationID(hex: "654321"), keyCount: 1, keyType: .aes,
                isoFileID: 0x2346, dfName: Array("second".utf8))
            let names = try await client.getDFNames()
            #expect(names.map(\.aid.description) == ["123456", "654321"])
            #expect(names.map(\.isoFileID) == [0x2345, 0x2346])
            #expect(names.map { String(decoding: $0.dfName, as: UTF8.self) } == ["aid123456", "second"])
            try await client.selectApplication(try DESFireApplicationID(hex: "654321"))
            #expect(try await client.getISOFileIDs().isEmpty)
        }
    }

    @Test("a card lifted mid-command is reported as card loss, not as a DESFire error")
    func liftedMidCommand() async throws {
        let (reader, _) = try await Self.reader("sim:desfire,lift-after=4")
        var policy = Self.policy
        policy.cardReturnTimeout = .zero
        let error = await #expect(throws: (any Error).self) {
            try await reader.withSession(policy: policy) { session in
                let client = DESFireClient(channel: session)
                try await client.selectApplication(.picc)
                try await client.authenticate(keyNumber: 0, key: .defaultDES)
                _ = try await client.getVersion()
                _ = try await client.getFreeMemory()
            }
        }
        #expect(
            !(error is DESFireError),
            "card loss must surface as the transport's error, not as a DESFire error: \(String(describing: error))")
    }

    static let text = Array("CARDFLOW TEST DATA".utf8)

    static func provisioning(_ mode: DESFireCommMode = .enciphered) throws -> DESFireProvisioning {
        DESFireProvisioning(
            application: try DESFireApplicationID(hex: "010203"), file: 1, size: 64, commMode: mode,
            key: try DESFireKey(type: .aes, bytes: appKeys[.aes]!), data: text)
    }

    static func collect(_ run: FlowRun<DESFireProvisioning.Result>) async -> (
        Result<DESFireProvisioning.Result, any Error>, [FlowEvent]
    ) {
        let events = Task {
            var all: [FlowEvent] = []; for await event in run.progress { all.append(event) }; return all
        }
        let result: Result<DESFireProvisioning.Result, any Error>
        do { result = .success(try await run.value) } catch { result = .failure(error) }
        return (result, await events.value)
    }

    @Test(
        "provision flow in every comm mode; the data reads back with the new key", arguments: DESFireCommMode.allCases)
    func provision(_ mode: DESFireCommMode) async throws {
        let (reader, _) = try await Self.reader()
        let plan = try Self.provisioning(mode)
        let (result, events) = await Self.collect(reader.run(plan.flow(), policy: plan.policy(base: Self.policy)))
        let value = try result.get()
        #expect(value.readBack == Self.text)
        #expect(events.filter { if case .stepFinished = $0 { true } else { false } }.count == 7)
        try await reader.withSession(policy: Self.policy) { session in
            let client = DESFireClient(channel: session)
            try await client.selectApplication(plan.application)
            try await client.authenticate(keyNumber: 0, key: plan.key)
            #expect(try await client.getFileSettings(file: 1).commMode == mode)
            #expect(Array(try await client.readData(file: 1).prefix(Self.text.count)) == Self.text)
        }
    }

    @Test("provision with lift-after=6,return-after=300: waitingForCard, resumed, success")
    func provisionLifted() async throws {
        let (reader, _) = try await Self.reader("sim:desfire,lift-after=6,return-after=300")
        let plan = try Self.provisioning()
        let (result, events) = await Self.collect(reader.run(plan.flow(), policy: plan.policy(base: Self.policy)))
        #expect(try result.get().readBack == Self.text)
        #expect(events.contains(.waitingForCard))
        #expect(events.contains { if case .resumed = $0 { true } else { false } })
    }

    @Test("provision survives the card leaving after any APDU (WriteData included)", arguments: Array(1...40))
    func provisionLiftedAnywhere(_ lift: Int) async throws {
        let (reader, _) = try await Self.reader("sim:desfire,lift-after=\(lift),return-after=30")
        let plan = try Self.provisioning()
        let (result, events) = await Self.collect(reader.run(plan.flow(), policy: plan.policy(base: Self.policy)))
        #expect(try result.get().readBack == Self.text)
        // The flow sends 18 APDUs (UID query included); lifted before the last one, the flow must have resumed.
        if lift <= 16 {
            #expect(events.contains { if case .resumed = $0 { true } else { false } }, "lift-after=\(lift): \(events)")
        }
    }

    @Test("provision on a random-UID card is recognised by GetCardUID when it comes back")
    func provisionRandomUID() async throws {
        let (reader, _) = try await Self.reader("sim:desfire,random-uid,lift-after=10,return-after=100")
        let plan = try Self.provisioning()
        let (result, events) = await Self.collect(reader.run(plan.flow(), policy: plan.policy(base: Self.policy)))
        #expect(try result.get().readBack == Self.text)
        #expect(events.contains { if case .resumed = $0 { true } else { false } })
        #expect(!events.contains { if case .wrongCard = $0 { true } else { false } })
    }

    @Test("provision with a swapped card: wrongCard, failure, the other card untouched")
    func provisionSwapped() async throws {
        let (reader, _) = try await Self.reader("sim:desfire,lift-after=6,return-after=100,swap")
        let plan = try Self.provisioning()
        var policy = Self.policy
        policy.cardReturnTimeout = .milliseconds(800)
        let (result, events) = await Self.collect(reader.run(plan.flow(), policy: plan.policy(base: policy)))
        #expect(throws: (any Error).self) { try result.get() }
        #expect(events.contains { if case .wrongCard = $0 { true } else { false } })
        try await reader.withSession(policy: Self.policy) { session in
            let client = DESFireClient(channel: session)
            let applications = try await client.getApplicationIDs()
            #expect(applications.isEmpty)
        }
    }
}

extension DESFireEndToEndTests {
    @Test("more negative paths: count CE, wrong old key 1E, frozen settings 9D, value limits BE, limited credit 9D")
    func moreNegatives() async throws {
        let (reader, _) = try await Self.reader()
        let key = try DESFireKey(type: .aes, bytes: Self.appKeys[.aes]!)
        try await reader.withSession(policy: Self.policy) { session in
            let client = DESFireClient(channel: session)
            try await client.authenticate(keyNumber: 0, key: .defaultDES)
            try await client.formatPICC()
            for index in 1...28 {
                try await client.createApplication(try DESFireApplicationID(UInt32(index)), keyCount: 1, keyType: .des)
            }
            await #expect(throws: DESFireError.cardStatus(.countError, command: .createApplication)) {
                try await client.createApplication(try DESFireApplicationID(29), keyCount: 1, keyType: .des)
            }
            try await client.authenticate(keyNumber: 0, key: .defaultDES)
            try await client.formatPICC()
            let aid = try DESFireApplicationID(hex: "ABCDEF")
            try await client.createApplication(aid, settings: 0x0F, keyCount: 2, keyType: .aes)
            try await client.selectApplication(aid)
            try await client.authenticate(keyNumber: 0, key: .defaultAES)
            // Changing key 1 with a wrong "old" value: the card's CRC over the new key fails.
            await #expect(throws: DESFireError.cardStatus(.integrityError, command: .changeKey)) {
                try await client.changeKey(keyNumber: 1, to: key, oldKey: key)
            }
            try await client.authenticate(keyNumber: 0, key: .defaultAES)
            let rights = DESFireAccessRights(read: 0, write: 0, readWrite: 0, change: 0)
            try await client.createValueFile(
                file: 1, commMode: .mac, accessRights: rights, lowerLimit: 0, upperLimit: 100, value: 50)
            await #expect(throws: DESFireError.cardStatus(.boundaryError, command: .debit)) {
                try await client.debit(file: 1, amount: 60)
            }
            try await client.authenticate(keyNumber: 0, key: .defaultAES)
            await #expect(throws: DESFireError.cardStatus(.permissionDenied, command: .limitedCredit)) {
                try await client.limitedCredit(file: 1, amount: 1)
            }
            try await client.authenticate(keyNumber: 0, key: .defaultAES)
            #expect(try await client.getValue(file: 1) == 50)
            // Freeze the key settings: a further change is refused.
            try await client.changeKeySettings(0x07)
            await #expect(throws: DESFireError.cardStatus(.permissionDenied, command: .changeKeySettings)) {
                try await client.changeKeySettings(0x0F)
            }
            #expect(await !client.isAuthenticated)
        }
    }
}
