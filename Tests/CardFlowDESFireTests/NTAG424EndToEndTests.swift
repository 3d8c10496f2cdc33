import CardFlow
import CardFlowDESFire
import CardFlowSimulator
import Testing

/// The NTAG 424 DNA client against the simulated tag (`sim:ntag424`, written from the data sheet,
/// not from the client), through the CCID stack: personalise SUN, then read the tag as a phone
/// does and verify its URL as a server does.
@Suite("NTAG 424 DNA client against the simulated tag")
struct NTAG424EndToEndTests {
    static let zero = try! DESFireKey(type: .aes, bytes: [UInt8](repeating: 0, count: 16))
    static let metaReadKey = try! DESFireKey(type: .aes, hex: "0102030405060708090A0B0C0D0E0F10", version: 1)
    static let fileReadKey = try! DESFireKey(type: .aes, hex: "F0E0D0C0B0A090807060504030201000", version: 2)

    /// `NLEN ‖ D1 01 len 55 04 "example.org/t?e=<32 zeros>&c=<16 zeros>"`, and where e and c start.
    static func sunFile() -> (file: [UInt8], piccData: UInt32, mac: UInt32) {
        let uri =
            Array("example.org/t?e=".utf8) + Array(repeating: UInt8(ascii: "0"), count: 32)
            + Array("&c=".utf8) + Array(repeating: UInt8(ascii: "0"), count: 16)
        let record: [UInt8] = [0xD1, 0x01, UInt8(uri.count + 1), 0x55, 0x04] + uri
        let file = [0x00, UInt8(record.count)] + record
        let e = 2 + 5 + "example.org/t?e=".utf8.count
        return (file, UInt32(e), UInt32(e + 32 + "&c=".utf8.count))
    }

    static func reader() async throws -> (CardFlow.Reader, SimulatorSetup) {
        let setup = try await SimulatorSetup(specification: try SimulatorSpecification(parsing: "sim:ntag424"))
        return (setup.cardFlowReaders()[0], setup)
    }

    /// What a phone reads: the NDEF file through ISO commands, no authentication.
    static func tap(_ reader: CardFlow.Reader) async throws -> String {
        try await reader.withSession { session in
            let tag = NTAG424Client(channel: session)
            try await tag.selectNDEFApplication()
            try await tag.isoSelectFile(.ndef)
            let file = try await tag.isoReadBinary(offset: 0, length: 0)
            return String(decoding: file.dropFirst(7), as: UTF8.self)
        }
    }

    /// `e` and `c` from the tapped URL text.
    static func parameters(_ url: String) throws -> (e: [UInt8], c: [UInt8]) {
        let query = try #require(url.split(separator: "?").last)
        var values: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1].prefix { $0 != "\0" }) }
        }
        return (try [UInt8](hex: try #require(values["e"])), try [UInt8](hex: try #require(values["c"])))
    }

    @Test("personalise SUN with new keys, tap twice, verify both URLs; counters, UID and keys agree")
    func sunPersonalisationAndVerification() async throws {
        let (reader, _) = try await Self.reader()
        let layout = Self.sunFile()
        let uid = try await reader.withSession { session in
            let tag = NTAG424Client(channel: session)
            try await tag.selectNDEFApplication()
            #expect(try await tag.getVersion().count >= 28)
            try await tag.authenticate(keyNumber: 0, key: Self.zero)
            #expect(try await tag.getVersion().count >= 28, "in CommMode.MAC inside the session")
            try await tag.changeKey(2, to: Self.metaReadKey, oldKey: Self.zero)
            try await tag.changeKey(1, to: Self.fileReadKey, oldKey: Self.zero)
            #expect(try await tag.getKeyVersion(1) == 2)
            #expect(try await tag.getKeyVersion(2) == 1)
            try await tag.writeData(.ndef, data: layout.file)
            let sdm = NTAG424SDMSettings(
                metaReadKey: 2, fileReadKey: 1, counterRetrievalKey: 0,
                piccDataOffset: layout.piccData, macInputOffset: layout.mac, macOffset: layout.mac)
            try await tag.changeFileSettings(
                .ndef,
                to: NTAG424FileSettings(
                    commMode: .plain, accessRights: DESFireAccessRights(read: 0xE, write: 0, readWrite: 0, change: 0),
                    sdm: sdm))
            let settings = try await tag.getFileSettings(.ndef)
            #expect(settings.sdm == sdm)
            #expect(settings.size == 256)
            #expect(try await tag.readSignature().count == 56)
            return try await tag.getCardUID()
        }
        #expect(uid.count == 7)

        let verifier = try NTAG424SUNVerifier(metaReadKey: Self.metaReadKey.bytes, fileReadKey: Self.fileReadKey.bytes)
        for expectedCounter in UInt32(1)...2 {
            let url = try await Self.tap(reader)
            #expect(url.hasPrefix("example.org/t?e="), "\(url)")
            let (e, c) = try Self.parameters(url)
            let message = try verifier.verify(piccData: e, mac: c)
            #expect(message.uid == uid)
            #expect(message.readCounter == expectedCounter)
            var forged = c
            forged[7] ^= 0x01
            #expect(throws: NTAG424SUNError.macMismatch) { try verifier.verify(piccData: e, mac: forged) }
        }
        // The old keys no longer verify it.
        let url = try await Self.tap(reader)
        let (e, c) = try Self.parameters(url)
        let stale = try NTAG424SUNVerifier(metaReadKey: Self.metaReadKey.bytes, fileReadKey: Self.zero.bytes)
        #expect(throws: NTAG424SUNError.macMismatch) { try stale.verify(piccData: e, mac: c) }

        let counter = try await reader.withSession { session in
            let tag = NTAG424Client(channel: session)
            try await tag.selectNDEFApplication()
            try await tag.authenticate(keyNumber: 0, key: Self.zero)
            return try await tag.getFileCounters(.ndef)
        }
        #expect(counter == 3)
    }

    @Test("Read/WriteData in every comm mode of the proprietary file, with NonFirst to its keys")
    func dataInEveryCommMode() async throws {
        let (reader, _) = try await Self.reader()
        try await reader.withSession { session in
            let tag = NTAG424Client(channel: session, maxDataPerCommand: 48)
            try await tag.selectNDEFApplication()
            try await tag.authenticate(keyNumber: 0, key: Self.zero)
            for mode in [DESFireCommMode.plain, .mac, .enciphered] {
                try await tag.changeFileSettings(
                    .proprietary,
                    to: NTAG424FileSettings(
                        commMode: mode, accessRights: DESFireAccessRights(read: 0, write: 0, readWrite: 0, change: 0)))
                let data = (0..<128).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(mode.rawValue)) }
                try await tag.writeData(.proprietary, data: data)
                #expect(try await tag.readData(.proprietary, length: 128) == data, "\(mode)")
                #expect(try await tag.readData(.proprietary, offset: 100, length: 28) == Array(data[100...]), "\(mode)")
            }
        }
    }

    @Test("a wrong key, a command without a session and a forbidden read are typed errors; the tag still answers")
    func refusals() async throws {
        let (reader, _) = try await Self.reader()
        try await reader.withSession { session in
            let tag = NTAG424Client(channel: session)
            try await tag.selectNDEFApplication()
            let wrong = try DESFireKey(type: .aes, hex: "00000000000000000000000000000001")
            await #expect {
                try await tag.authenticate(keyNumber: 0, key: wrong)
            } throws: { error in
                guard case NTAG424Error.secureMessaging(let ev2) = error else { return false }
                return ev2.status == .authenticationError
                    || {
                        if case .authenticationFailed = ev2 { return true } else { return false }
                    }()
            }
            #expect(await !tag.isAuthenticated)
            // The proprietary file is read with key 2 in CommMode.Full: refused without a session.
            await #expect(throws: NTAG424Error.self) { _ = try await tag.readData(.proprietary, length: 16) }
            await #expect(throws: NTAG424Error.lrpNotSupported) { try await tag.setConfiguration(.lrpMode) }
            try await tag.selectNDEFApplication()
            try await tag.authenticate(keyNumber: 0, key: Self.zero)
            #expect(try await tag.getCardUID().count == 7)
        }
    }
}
