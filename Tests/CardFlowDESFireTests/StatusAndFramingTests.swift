import CardFlow
import Testing

@testable import CardFlowDESFire

/// Status codes, AF chaining in both directions, and garbled answers.
@Suite("DESFire status codes and framing")
struct StatusAndFramingTests {
    static let codes: [(UInt8, DESFireStatus)] = [
        (0x0C, .noChanges), (0x0E, .outOfEEPROM), (0x1C, .illegalCommandCode), (0x1E, .integrityError),
        (0x40, .noSuchKey),
        (0x7E, .lengthError), (0x9D, .permissionDenied), (0x9E, .parameterError), (0xA0, .applicationNotFound),
        (0xA1, .applicationIntegrityError), (0xAE, .authenticationError), (0xBE, .boundaryError),
        (0xC1, .piccIntegrityError),
        (0xCA, .commandAborted), (0xCD, .piccDisabled), (0xCE, .countError), (0xDE, .duplicateError),
        (0xEE, .eepromError),
        (0xF0, .fileNotFound), (0xF1, .fileIntegrityError), (0x42, .unknown(0x42)),
    ]

    @Test(
        "every status code maps to its typed status, carries the command and drops the session",
        arguments: codes.map(\.0))
    func statusCode(_ code: UInt8) async throws {
        let expected = try #require(Self.codes.first { $0.0 == code }?.1)
        #expect(DESFireStatus(code: code) == expected)
        #expect(expected.code == code)
        #expect(!expected.meaning.isEmpty)
        let channel = ScriptedDESFireChannel(["91" + [code].hexString])
        let client = DESFireClient(channel: channel)
        try await client.installSession(keyNumber: 0, keyType: .aes, sessionKey: [UInt8](repeating: 1, count: 16))
        await #expect(throws: DESFireError.cardStatus(expected, command: .getFreeMemory)) {
            try await client.getFreeMemory()
        }
        #expect(await !client.isAuthenticated)
    }

    @Test("a long command is split into AF frames of at most maxFrameDataLength bytes")
    func commandChaining() async throws {
        let channel = ScriptedDESFireChannel(["91AF", "91AF", "9100"])
        let client = DESFireClient(channel: channel, maxFrameDataLength: 10)
        let data = (0..<16).map { UInt8($0) }
        try await client.writeData(file: 1, offset: 0, data: data, commMode: .plain)
        let sent = await channel.sentHex
        #expect(
            sent == ["903D00000A01000000100000000102" + "00", "90AF00000A030405060708090A0B0C00", "90AF0000030D0E0F00"])
    }

    @Test("AF-chained answers are concatenated")
    func responseChaining() async throws {
        let channel = ScriptedDESFireChannel(["010000020000 91AF", "030000 9100"].map(compact))
        let client = DESFireClient(channel: channel)
        let ids = try await client.getApplicationIDs()
        #expect(ids.map(\.value) == [1, 2, 3])
        #expect(await channel.sentHex == ["906A000000", "90AF000000"])
    }

    @Test("a status word without 91 is not a DESFire answer")
    func notDESFire() async throws {
        let client = DESFireClient(channel: ScriptedDESFireChannel(["6A82"]))
        await #expect(throws: DESFireError.unexpectedStatusWord(StatusWord(0x6A82), command: .getFreeMemory)) {
            try await client.getFreeMemory()
        }
    }

    @Test("short or odd answers are malformed, never a trap")
    func garbled() async throws {
        let short = DESFireClient(channel: ScriptedDESFireChannel(["01029100"]))
        await #expect(
            throws: DESFireError.malformedResponse(command: .getFreeMemory, reason: "expected 3 bytes, got 2")
        ) {
            try await short.getFreeMemory()
        }
        let odd = DESFireClient(channel: ScriptedDESFireChannel(["01029100"]))
        await #expect(throws: DESFireError.self) { try await odd.getApplicationIDs() }
        let settings = DESFireClient(
            channel: ScriptedDESFireChannel(["00009100", "07000000000000009100", "0000EEEE4000009100"]))
        await #expect(throws: DESFireError.self) { try await settings.getFileSettings(file: 1) }
        await #expect(throws: DESFireError.self) { try await settings.getFileSettings(file: 1) }
        let parsed = try await settings.getFileSettings(file: 1)
        #expect(parsed.kind == .standard(size: 64))
        #expect(parsed.accessRights.rawValue == 0xEEEE)
        let version = DESFireClient(channel: ScriptedDESFireChannel(["0401019100"]))
        await #expect(throws: DESFireError.self) { try await version.getVersion() }
        // Enciphered answer that is not whole blocks.
        let uid = DESFireClient(channel: ScriptedDESFireChannel(["0102039100"]))
        try await uid.installSession(keyNumber: 0, keyType: .aes, sessionKey: [UInt8](repeating: 7, count: 16))
        await #expect(throws: DESFireError.self) { try await uid.getCardUID() }
        #expect(await !uid.isAuthenticated)
        // An EV1 answer without its CMAC.
        let noMAC = DESFireClient(channel: ScriptedDESFireChannel(["0102039100"]))
        try await noMAC.installSession(keyNumber: 0, keyType: .aes, sessionKey: [UInt8](repeating: 7, count: 16))
        await #expect(
            throws: DESFireError.integrityCheckFailed(command: .getFreeMemory, reason: "answer of 3 bytes has no CMAC")
        ) {
            try await noMAC.getFreeMemory()
        }
        // Endless AF chain.
        let endless = DESFireClient(channel: ScriptedDESFireChannel(Array(repeating: "0191AF", count: 300)))
        await #expect(throws: DESFireError.self) { try await endless.getApplicationIDs() }
    }

    @Test("arguments out of range are rejected before sending")
    func badArguments() async throws {
        let channel = ScriptedDESFireChannel([])
        let client = DESFireClient(channel: channel)
        await #expect(throws: DESFireError.self) { try await client.readData(file: 32, commMode: .plain) }
        await #expect(throws: DESFireError.self) {
            try await client.createApplication(.picc, keyCount: 1, keyType: .aes)
        }
        await #expect(throws: DESFireError.self) {
            try await client.createApplication(DESFireApplicationID(validated: 1), keyCount: 15, keyType: .aes)
        }
        await #expect(throws: DESFireError.self) { try await client.authenticate(keyNumber: 14, key: .defaultAES) }
        await #expect(throws: DESFireError.notAuthenticated(command: .changeKey)) {
            try await client.changeKey(keyNumber: 0, to: .defaultAES)
        }
        #expect(throws: DESFireError.self) { try DESFireApplicationID(hex: "0102") }
        #expect(throws: DESFireError.self) { try DESFireKey(type: .aes, hex: "0011") }
        #expect(await channel.sent.isEmpty)
    }

    @Test("key versions live in the parity bits of DES keys")
    func keyVersions() throws {
        #expect(try DESFireKey(type: .des, ascii: "ABCDEFGH").version == 0xAA)
        #expect(try DESFireKey(type: .aes, ascii: "Card Master Key!").version == 0)
        #expect(try DESFireKey(type: .twoKey3DES, hex: "00102031405060708090A0B0B0A09080").version == 0x10)
        let versioned = try DESFireKey(type: .des, hex: "0000000000000000", version: 0x55)
        #expect(versioned.version == 0x55)
        #expect(try DESFireKey(type: .des, hex: "01010101010101010101010101010101").bytes.count == 8)
        #expect(!versioned.description.contains("00"))
    }
}
