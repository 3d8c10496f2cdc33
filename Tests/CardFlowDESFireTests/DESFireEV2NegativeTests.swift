import CardFlow
import CardFlowSimulator
import Testing

@testable import CardFlowDESFire

/// EV2 failures surface as typed errors: a wrong key, a tampered answer MAC, a command counter the
/// card does not expect.
@Suite("DESFire client over EV2: wrong key, tampered MAC, counter mismatch")
struct DESFireEV2NegativeTests {
    @Test("a wrong key: the card answers 91 AE, a typed error names the command and status")
    func wrongKey() async throws {
        let (reader, _) = try await DESFireEndToEndTests.reader()
        try await reader.withSession(policy: DESFireEndToEndTests.policy) { session in
            let client = DESFireClient(channel: session)
            try await DESFireEV2Fixture.prepare(client)
            let error = await #expect(throws: DESFireError.self) {
                try await client.authenticateEV2First(keyNumber: 1, key: try DESFireEV2Fixture.masterKey())
            }
            #expect(error == .cardStatus(.authenticationError, command: .authenticateEV2First))
            #expect(error?.status?.code == 0xAE)
            #expect(await !client.isAuthenticated)
            // A DES key cannot open an EV2 session.
            await #expect(throws: DESFireError.self) {
                try await client.authenticate(keyNumber: 0, key: .defaultDES, method: .ev2)
            }
            // The right key still works afterwards.
            try await client.authenticateEV2First(keyNumber: 1, key: try DESFireEV2Fixture.dataKey())
            #expect(await client.isAuthenticated)
        }
    }

    @Test("a tampered answer MAC is an integrity error and ends the session", arguments: DESFireCommMode.allCases)
    func tamperedAnswer(_ mode: DESFireCommMode) async throws {
        let (reader, _) = try await DESFireEndToEndTests.reader()
        try await reader.withSession(policy: DESFireEndToEndTests.policy) { session in
            let setup = DESFireClient(channel: session)
            try await DESFireEV2Fixture.prepare(setup)
            let rights = DESFireAccessRights(read: 1, write: 1, readWrite: 1, change: 0)
            try await setup.createDataFile(file: 1, size: 16, commMode: mode, accessRights: rights)

            let tampering = AnswerTamperingChannel(session, instruction: DESFireCommand.getKeyVersion.rawValue)
            let client = DESFireClient(channel: tampering)
            try await client.selectApplication(try DESFireEV2Fixture.aid())
            try await client.authenticateEV2First(keyNumber: 1, key: try DESFireEV2Fixture.dataKey())
            #expect(try await client.readData(file: 1, offset: 0, length: 16).count == 16)
            let error = await #expect(throws: DESFireError.self) {
                try await client.getKeyVersion(keyNumber: 1)
            }
            guard case .integrityCheckFailed(let command, _)? = error else {
                Issue.record("expected an integrity error, got \(String(describing: error))")
                return
            }
            #expect(command == .getKeyVersion)
            #expect(await !client.isAuthenticated)
        }
    }

    @Test(
        "a tampered ReadData answer in MAC and Full mode is an integrity error",
        arguments: [DESFireCommMode.mac, .enciphered])
    func tamperedReadData(_ mode: DESFireCommMode) async throws {
        let (reader, _) = try await DESFireEndToEndTests.reader()
        try await reader.withSession(policy: DESFireEndToEndTests.policy) { session in
            let setup = DESFireClient(channel: session)
            try await DESFireEV2Fixture.prepare(setup)
            let rights = DESFireAccessRights(read: 1, write: 1, readWrite: 1, change: 0)
            try await setup.createDataFile(file: 1, size: 40, commMode: mode, accessRights: rights)

            let tampering = AnswerTamperingChannel(session, instruction: DESFireCommand.readData.rawValue)
            let client = DESFireClient(channel: tampering)
            try await client.selectApplication(try DESFireEV2Fixture.aid())
            try await client.authenticateEV2First(keyNumber: 1, key: try DESFireEV2Fixture.dataKey())
            let error = await #expect(throws: DESFireError.self) {
                try await client.readData(file: 1, offset: 0, length: 40)
            }
            guard case .integrityCheckFailed(let command, _)? = error else {
                Issue.record("expected an integrity error, got \(String(describing: error))")
                return
            }
            #expect(command == .readData)
        }
    }

    @Test("a command MACed with another counter than the card's: the card answers 91 1E")
    func counterMismatch() async throws {
        let (reader, _) = try await DESFireEndToEndTests.reader()
        try await reader.withSession(policy: DESFireEndToEndTests.policy) { session in
            let client = DESFireClient(channel: session)
            try await DESFireEV2Fixture.prepare(client)
            let current = try #require(await client.ev2Session)
            let ahead = try EV2Session(
                keyNumber: current.keyNumber, keys: current.keys, transactionIdentifier: current.transactionIdentifier,
                commandCounter: current.commandCounter + 1)
            await client.installEV2Session(ahead)
            let error = await #expect(throws: DESFireError.self) {
                try await client.getKeyVersion(keyNumber: 0)
            }
            #expect(error == .cardStatus(.integrityError, command: .getKeyVersion))
            #expect(await !client.isAuthenticated)
        }
    }
}
