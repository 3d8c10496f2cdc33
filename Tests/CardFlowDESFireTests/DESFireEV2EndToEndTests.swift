import CardFlow
import CardFlowSimulator
import Testing

@testable import CardFlowDESFire

/// The client against the simulated DESFire card over EV2 secure messaging (AuthenticateEV2First /
/// NonFirst, CmdCtr, TI, truncated MACs), through the CCID stack.
@Suite("DESFire client against the simulated card, EV2 secure messaging")
struct DESFireEV2EndToEndTests {
    @Test(
        "every file command over EV2, in every comm mode, with non-zero AES keys", arguments: DESFireCommMode.allCases)
    func everyFileCommand(_ mode: DESFireCommMode) async throws {
        let (reader, _) = try await DESFireEndToEndTests.reader()
        try await reader.withSession(policy: DESFireEndToEndTests.policy) { session in
            let client = DESFireClient(channel: session)
            try await DESFireEV2Fixture.prepare(client)
            let rights = DESFireAccessRights(read: 1, write: 1, readWrite: 1, change: 0)
            try await client.createDataFile(file: 1, size: 100, commMode: mode, accessRights: rights)
            try await client.createDataFile(file: 2, size: 40, commMode: mode, accessRights: rights, backup: true)
            try await client.createValueFile(
                file: 3, commMode: mode, accessRights: rights, lowerLimit: -100, upperLimit: 1000, value: 10,
                limitedCreditEnabled: true)
            try await client.createRecordFile(
                file: 4, recordSize: 8, maxRecords: 5, commMode: mode, accessRights: rights)
            #expect(try await client.getFileIDs().sorted() == [1, 2, 3, 4])
            let expectedSettings = DESFireFileSettings(kind: .standard(size: 100), commMode: mode, accessRights: rights)
            #expect(try await client.getFileSettings(file: 1) == expectedSettings)
            #expect(try await client.getKeyVersion(keyNumber: 1) == 5)

            // Key 1 holds every right, so its commands travel in the file's comm mode.
            try await client.authenticateEV2NonFirst(keyNumber: 1, key: try DESFireEV2Fixture.dataKey())
            let data = (0..<100).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
            try await client.writeData(file: 1, data: data)
            #expect(try await client.readData(file: 1, offset: 0, length: 100) == data)
            #expect(try await client.readData(file: 1) == data)
            #expect(try await client.readData(file: 1, offset: 95, length: 5) == Array(data[95...]))
            try await client.writeData(file: 2, data: [1, 2, 3, 4])
            #expect(try await client.readData(file: 2, offset: 0, length: 4) == [0, 0, 0, 0])
            try await client.commitTransaction()
            #expect(try await client.readData(file: 2, offset: 0, length: 4) == [1, 2, 3, 4])
            try await client.credit(file: 3, amount: 100)
            try await client.debit(file: 3, amount: 30)
            try await client.commitTransaction()
            #expect(try await client.getValue(file: 3) == 80)
            try await client.limitedCredit(file: 3, amount: 20)
            try await client.commitTransaction()
            #expect(try await client.getValue(file: 3) == 100)
            for record in 1...3 {
                try await client.writeRecord(file: 4, data: [UInt8](repeating: UInt8(record), count: 8))
                try await client.commitTransaction()
            }
            let newest: [UInt8] = [UInt8](repeating: 3, count: 8)
            #expect(try await client.readRecords(file: 4, record: 0, count: 1) == newest)
            #expect(try await client.readRecords(file: 4).count == 24)
            try await client.clearRecordFile(4)
            try await client.commitTransaction()
            #expect(try await client.getCardUID().count == 7)
            #expect(await client.isAuthenticated)
            let counter = await client.ev2Session?.commandCounter ?? 0
            #expect(counter > 20)

            // Management again with the master key, still in the same transaction.
            try await client.authenticateEV2NonFirst(keyNumber: 0, key: try DESFireEV2Fixture.masterKey())
            try await client.deleteFile(4)
            #expect(try await client.getFileIDs().sorted() == [1, 2, 3])
        }
    }

    @Test("PICC and application keys: First opens a transaction, NonFirst keeps TI and counter")
    func firstAndNonFirst() async throws {
        let (reader, _) = try await DESFireEndToEndTests.reader()
        try await reader.withSession(policy: DESFireEndToEndTests.policy) { session in
            let client = DESFireClient(channel: session)
            try await DESFireEV2Fixture.prepare(client)
            try await client.selectApplication(.picc)
            try await client.authenticateEV2First(keyNumber: 0, key: try DESFireEV2Fixture.piccKey())
            let opened = try #require(await client.ev2Session)
            #expect(opened.commandCounter == 0)
            #expect(try await client.getApplicationIDs() == [try DESFireEV2Fixture.aid()])
            #expect(try await client.getKeySettings().keyType == .aes)
            let uid = try await client.getCardUID()
            #expect(uid.count == 7 && uid.first == 0x04)
            let afterCommands = try #require(await client.ev2Session)
            #expect(afterCommands.commandCounter == 3)

            try await client.selectApplication(try DESFireEV2Fixture.aid())
            #expect(await !client.isAuthenticated)
            try await client.authenticate(keyNumber: 0, key: try DESFireEV2Fixture.masterKey(), method: .ev2)
            let first = try #require(await client.ev2Session)
            _ = try await client.getKeyVersion(keyNumber: 2)
            try await client.authenticateEV2NonFirst(keyNumber: 1, key: try DESFireEV2Fixture.dataKey())
            let continued = try #require(await client.ev2Session)
            #expect(continued.transactionIdentifier == first.transactionIdentifier)
            #expect(continued.commandCounter == 1)
            #expect(continued.keyNumber == 1)
            #expect(continued.keys != first.keys)
            #expect(try await client.getKeyVersion(keyNumber: 0) == 3)
        }
    }

    @Test("ChangeKey over EV2: another key keeps the session, the session's own key ends it")
    func changeKeys() async throws {
        let (reader, _) = try await DESFireEndToEndTests.reader()
        try await reader.withSession(policy: DESFireEndToEndTests.policy) { session in
            let client = DESFireClient(channel: session)
            try await DESFireEV2Fixture.prepare(client)
            let newData = try DESFireEV2Fixture.aesKey("1234567890ABCDEF1234567890ABCDEF", version: 6)
            let newMaster = try DESFireEV2Fixture.aesKey("FEDCBA0987654321FEDCBA0987654321", version: 4)
            try await client.changeKey(keyNumber: 1, to: newData, oldKey: try DESFireEV2Fixture.dataKey())
            #expect(await client.isAuthenticated)
            #expect(try await client.getKeyVersion(keyNumber: 1) == 6)
            try await client.changeKey(keyNumber: 0, to: newMaster)
            #expect(await !client.isAuthenticated)

            try await client.authenticateEV2First(keyNumber: 0, key: newMaster)
            #expect(try await client.getKeyVersion(keyNumber: 0) == 4)
            try await client.authenticateEV2NonFirst(keyNumber: 1, key: newData)
            #expect(await client.authenticatedKeyNumber == 1)
            await #expect(throws: DESFireError.cardStatus(.authenticationError, command: .authenticateEV2First)) {
                try await client.authenticateEV2First(keyNumber: 1, key: try DESFireEV2Fixture.dataKey())
            }
        }
    }

    @Test("file settings round trip in EV2 form: comm mode, rights, additional access rights")
    func fileSettingsRoundTrip() async throws {
        let (reader, _) = try await DESFireEndToEndTests.reader()
        try await reader.withSession(policy: DESFireEndToEndTests.policy) { session in
            let client = DESFireClient(channel: session)
            try await DESFireEV2Fixture.prepare(client)
            let rights = DESFireAccessRights(read: 1, write: 1, readWrite: 0, change: 0)
            try await client.createDataFile(file: 7, size: 32, commMode: .plain, accessRights: rights)
            let additional = [
                DESFireAccessRights(read: 2, write: 2, readWrite: 2, change: 0),
                DESFireAccessRights(read: 1, write: 15, readWrite: 15, change: 15),
            ]
            let newRights = DESFireAccessRights(read: 2, write: 1, readWrite: 0, change: 0)
            try await client.changeFileSettings(
                file: 7, commMode: .enciphered, accessRights: newRights, additionalAccessRights: additional)
            let expected = DESFireFileSettings(
                kind: .standard(size: 32), commMode: .enciphered, accessRights: newRights,
                additionalAccessRights: additional)
            #expect(try await client.getFileSettings(file: 7) == expected)
            try await client.changeFileSettings(file: 7, commMode: .mac, accessRights: rights)
            let plainAgain = DESFireFileSettings(kind: .standard(size: 32), commMode: .mac, accessRights: rights)
            #expect(try await client.getFileSettings(file: 7) == plainAgain)
        }
    }

    @Test("EV1 GetFileSettings answers still parse; FileOption bit 7 adds access rights")
    func fileSettingsParsing() throws {
        let ev1 = try DESFireFileSettings(response: [0x00, 0x03, 0x10, 0x32, 0x20, 0x00, 0x00])
        #expect(ev1.commMode == .enciphered && ev1.additionalAccessRights.isEmpty)
        let ev2 = try DESFireFileSettings(
            response: [0x02, 0x81, 0x10, 0x32] + [UInt8](repeating: 0, count: 13) + [1, 0x22, 0x22])
        #expect(ev2.commMode == .mac)
        #expect(ev2.additionalAccessRights == [DESFireAccessRights(rawValue: 0x2222)])
        #expect(throws: DESFireError.self) {
            try DESFireFileSettings(response: [0x00, 0x80, 0x10, 0x32, 0x20, 0x00, 0x00, 2, 0x22, 0x22])
        }
    }
}
