import CardFlow
import CardFlowSimulator
import Testing

@testable import CardFlowDESFire

/// EV2 additional access rights (ChangeFileSettings, FileOption bit 7) against the simulated card:
/// each additional pair is a full Read/Write/R&W/Change set, and a command passes when any set
/// grants it. A key no set names gets `AE`; a right every set denies gets `9D`.
@Suite("DESFire EV2 additional access rights, end to end")
struct DESFireEV2AccessRightsTests {
    static let key2 = try! DESFireEV2Fixture.zeroAES()

    @Test("a read granted only by an additional set succeeds; a write no set grants is AE")
    func readThroughAdditionalRight() async throws {
        let (reader, _) = try await DESFireEndToEndTests.reader()
        try await reader.withSession(policy: DESFireEndToEndTests.policy) { session in
            let client = DESFireClient(channel: session)
            try await DESFireEV2Fixture.prepare(client)
            let rights = DESFireAccessRights(read: 1, write: 1, readWrite: 1, change: 0)
            try await client.createDataFile(file: 8, size: 16, commMode: .mac, accessRights: rights)
            try await client.changeFileSettings(
                file: 8, commMode: .mac, accessRights: rights,
                additionalAccessRights: [DESFireAccessRights(read: 2, write: 15, readWrite: 15, change: 15)])

            try await client.authenticateEV2NonFirst(keyNumber: 1, key: try DESFireEV2Fixture.dataKey())
            let content: [UInt8] = Array(0x40..<0x50)
            try await client.writeData(file: 8, data: content)

            try await client.authenticateEV2NonFirst(keyNumber: 2, key: Self.key2)
            #expect(try await client.readData(file: 8) == content)
            await #expect(throws: DESFireError.cardStatus(.authenticationError, command: .writeData)) {
                try await client.writeData(file: 8, data: [1, 2, 3])
            }
            try await client.authenticateEV2First(keyNumber: 2, key: Self.key2)
            await #expect(throws: DESFireError.cardStatus(.authenticationError, command: .changeFileSettings)) {
                try await client.changeFileSettings(file: 8, commMode: .plain, accessRights: rights)
            }
            try await client.authenticateEV2First(keyNumber: 1, key: try DESFireEV2Fixture.dataKey())
            #expect(try await client.readData(file: 8) == content)
        }
    }

    @Test("R&W and Change granted by the second additional set; a right every set denies is 9D")
    func readWriteAndChangeThroughAdditionalRights() async throws {
        let (reader, _) = try await DESFireEndToEndTests.reader()
        try await reader.withSession(policy: DESFireEndToEndTests.policy) { session in
            let client = DESFireClient(channel: session)
            try await DESFireEV2Fixture.prepare(client)
            let closed = DESFireAccessRights(read: 15, write: 15, readWrite: 15, change: 0)
            try await client.createValueFile(
                file: 9, commMode: .enciphered, accessRights: closed, lowerLimit: 0, upperLimit: 100, value: 10)
            try await client.createDataFile(file: 10, size: 8, commMode: .plain, accessRights: closed)
            try await client.changeFileSettings(
                file: 9, commMode: .enciphered, accessRights: closed,
                additionalAccessRights: [
                    DESFireAccessRights(read: 15, write: 15, readWrite: 15, change: 15),
                    DESFireAccessRights(read: 15, write: 15, readWrite: 2, change: 2),
                ])
            try await client.changeFileSettings(
                file: 10, commMode: .plain, accessRights: closed,
                additionalAccessRights: [DESFireAccessRights(read: 15, write: 15, readWrite: 15, change: 15)])

            try await client.authenticateEV2NonFirst(keyNumber: 2, key: Self.key2)
            try await client.credit(file: 9, amount: 5)
            try await client.commitTransaction()
            #expect(try await client.getValue(file: 9) == 15)
            await #expect(throws: DESFireError.cardStatus(.permissionDenied, command: .readData)) {
                try await client.readData(file: 10)
            }
            // Key 2 changes file 9's settings through the Change right of the second set.
            try await client.authenticateEV2First(keyNumber: 2, key: Self.key2)
            let open = DESFireAccessRights(read: 2, write: 2, readWrite: 2, change: 2)
            try await client.changeFileSettings(file: 9, commMode: .mac, accessRights: open)
            let settings = try await client.getFileSettings(file: 9)
            #expect(settings.accessRights == open && settings.additionalAccessRights.isEmpty)
            #expect(settings.commMode == .mac)
            #expect(try await client.getValue(file: 9) == 15)
        }
    }
}
