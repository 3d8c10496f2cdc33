import CardFlow
import CardFlowSimulator
import Testing

@testable import CardFlowDESFire

/// The TransactionMAC file over EV2: each committed transaction raises TMC and leaves a TMV the
/// client checks from its own record of the transaction (SesTMMACKey from TMKey, TMC and UID).
@Suite("DESFire Transaction MAC over EV2")
struct DESFireTransactionMACTests {
    @Test("commit → TMC increments, TMV verifies; the TransactionMAC file holds the same values")
    func commitAndVerify() async throws {
        let (reader, _) = try await DESFireEndToEndTests.reader()
        try await reader.withSession(policy: DESFireEndToEndTests.policy) { session in
            let client = DESFireClient(channel: session)
            try await DESFireEV2Fixture.prepare(client)
            let uid = try await client.getCardUID()
            let tmKey = try DESFireEV2Fixture.transactionMACKey()
            let rights = DESFireAccessRights(read: 1, write: 1, readWrite: 1, change: 0)
            try await client.createDataFile(
                file: 1, size: 32, commMode: .enciphered, accessRights: rights, backup: true)
            try await client.createValueFile(
                file: 2, commMode: .mac, accessRights: rights, lowerLimit: 0, upperLimit: 500, value: 50)
            try await client.createTransactionMACFile(
                file: 5, commMode: .plain,
                accessRights: DESFireAccessRights(read: 14, write: 15, readWrite: 15, change: 0),
                key: tmKey)
            let fresh = try await client.readTransactionMAC(file: 5)
            #expect(fresh.counter == 0)

            try await client.authenticateEV2NonFirst(keyNumber: 1, key: try DESFireEV2Fixture.dataKey())
            try await client.writeData(file: 1, offset: 3, data: Array(1...20))
            try await client.credit(file: 2, amount: 25)
            let first = try await client.commitTransactionReturningMAC()
            #expect(first.counter == 1)
            #expect(first.value.count == 8)
            #expect(try first.verify(key: tmKey, uid: uid))
            #expect(try !first.verify(key: try DESFireEV2Fixture.dataKey(), uid: uid))

            // Reads count too.
            #expect(try await client.readData(file: 1, offset: 3, length: 20) == Array(1...20))
            #expect(try await client.getValue(file: 2) == 75)
            try await client.debit(file: 2, amount: 5)
            let second = try await client.commitTransactionReturningMAC()
            #expect(second.counter == 2)
            #expect(try second.verify(key: tmKey, uid: uid))
            #expect(second.value != first.value)

            let stored = try await client.readTransactionMAC(file: 5)
            #expect(stored.counter == 2 && stored.value == second.value)
            let settings = try await client.getFileIDs()
            #expect(settings.sorted() == [1, 2, 5])
        }
    }

    @Test("a commit without data commands leaves TMC alone; option 01 without a TMAC file is refused (7E)")
    func emptyTransactionAndNoFile() async throws {
        let (reader, _) = try await DESFireEndToEndTests.reader()
        try await reader.withSession(policy: DESFireEndToEndTests.policy) { session in
            let client = DESFireClient(channel: session)
            try await DESFireEV2Fixture.prepare(client)
            let error = await #expect(throws: DESFireError.self) {
                try await client.commitTransactionReturningMAC()
            }
            #expect(error == .cardStatus(.lengthError, command: .commitTransaction))
            try await client.authenticateEV2First(keyNumber: 0, key: try DESFireEV2Fixture.masterKey())
            try await client.createTransactionMACFile(
                file: 6, commMode: .mac,
                accessRights: DESFireAccessRights(read: 0, write: 15, readWrite: 15, change: 0),
                key: try DESFireEV2Fixture.transactionMACKey())
            let unchanged = try await client.commitTransactionReturningMAC()
            #expect(unchanged.counter == 0)
            #expect(try await client.readTransactionMAC(file: 6).counter == 0)
        }
    }

    @Test("the card's TMI is the datasheet's: ReadData with length 0 names the bytes read, GetValue its value")
    func inputLayoutAndSettings() async throws {
        let (reader, _) = try await DESFireEndToEndTests.reader()
        try await reader.withSession(policy: DESFireEndToEndTests.policy) { session in
            let client = DESFireClient(channel: session)
            try await DESFireEV2Fixture.prepare(client)
            let uid = try await client.getCardUID()
            let tmKey = try DESFireEV2Fixture.transactionMACKey()
            let rights = DESFireAccessRights(read: 1, write: 1, readWrite: 1, change: 0)
            try await client.createDataFile(file: 1, size: 32, commMode: .mac, accessRights: rights, backup: true)
            try await client.createValueFile(
                file: 2, commMode: .plain, accessRights: rights, lowerLimit: 0, upperLimit: 500, value: 50)
            let tmacRights = DESFireAccessRights(read: 14, write: 15, readWrite: 15, change: 0)
            try await client.createTransactionMACFile(
                file: 5, commMode: .plain, accessRights: tmacRights, key: tmKey)
            #expect(
                try await client.getFileSettings(file: 5).kind
                    == .transactionMAC(keyOption: 0x02, keyVersion: 9, counterLimit: nil))
            try await client.changeFileSettings(
                file: 5, commMode: .mac, accessRights: tmacRights, transactionMACCounterLimit: 1000)
            let settings = try await client.getFileSettings(file: 5)
            #expect(settings.kind == .transactionMAC(keyOption: 0x02, keyVersion: 9, counterLimit: 1000))
            #expect(settings.commMode == .mac)

            try await client.authenticateEV2NonFirst(keyNumber: 1, key: try DESFireEV2Fixture.dataKey())
            let content = try await client.readData(file: 1)
            #expect(content.count == 32)
            #expect(try await client.getValue(file: 2) == 50)
            let mac = try await client.commitTransactionReturningMAC()
            // MF2DLHX0 §10.3.4: Cmd FileNo Offset Length(bytes read) ZeroPadding Data ZeroPadding;
            // Cmd FileNo Value ZeroPadding.
            let expected: [UInt8] =
                [0xBD, 0x01, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00] + [UInt8](repeating: 0, count: 8) + content
                + [0x6C, 0x02, 0x32, 0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 10)
            #expect(mac.input == expected)
            #expect(mac.counter == 1)
            // The card's TMV over the datasheet's TMI, computed here without the client's record.
            #expect(
                try DESFireTransactionMAC(counter: 1, value: mac.value, input: expected).verify(key: tmKey, uid: uid))
            let stored = try await client.readTransactionMAC(file: 5)
            #expect(stored.counter == 1 && stored.value == mac.value)
        }
    }
}
