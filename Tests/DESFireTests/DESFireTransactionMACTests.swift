import CardFlow
import CardSimulator
import Testing

@testable import DESFire

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
}
