import CardFlow
import CardFlowDESFire
import CardFlowISO15693
import CardFlowNDEF
import CardFlowSimulator
import CardFlowSimulatorCards
import CardFlowStorageCards
import Foundation
import Synchronization
import Testing

/// Real cards' published APDU exchanges (`Tests/Fixtures/card-recordings`), replayed as cards
/// behind the simulated reader: CardFlow's card clients, through the CCID driver and a session,
/// meet bytes a real card produced. Where a recording holds the host's randomness, the client's
/// random-source hook gets the recording's bytes.
@Suite("Real cards' recordings replayed behind the simulated reader")
struct RecordedCardTests {
    static let directory = TranscriptFixtures.fixturesRoot.appendingPathComponent("card-recordings")

    static func recording(_ name: String) throws -> APDURecording {
        try APDURecording(contentsOfFile: directory.appendingPathComponent(name).path)
    }

    /// A simulated reader holding the recording's card, and the CardFlow reader on it.
    static func reader(_ name: String) async throws -> (Reader, VirtualCCIDReader) {
        let virtual = VirtualCCIDReader()
        await virtual.insert(RecordedConversationCard(recording: try recording(name)))
        return (Reader.simulated(virtual), virtual)
    }

    /// The replayed card after the run: every exchange played, no mismatch.
    static func expectComplete(_ virtual: VirtualCCIDReader, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let card = try #require(await virtual.card() as? RecordedConversationCard, sourceLocation: sourceLocation)
        #expect(
            card.mismatch == nil, "\(card.mismatch.map(String.init(describing:)) ?? "")", sourceLocation: sourceLocation
        )
        #expect(
            card.isComplete, "played \(card.position) of \(card.recording.exchanges.count)",
            sourceLocation: sourceLocation)
    }

    static func fixed(_ hex: String) -> @Sendable (Int) -> [UInt8] {
        let value = try! [UInt8](hex: hex)
        return { _ in value }
    }

    @Test("every recording parses and names its source, card and license")
    func corpusHeaders() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path)
            .filter { $0.hasSuffix(".apdu") }.sorted()
        #expect(names.count >= 3)
        for name in names {
            let recording = try Self.recording(name)
            #expect(recording.source.hasPrefix("https://"), "\(name)")
            #expect(!recording.card.isEmpty && !recording.license.isEmpty, "\(name)")
        }
    }

    @Test("DESFire EV3 GetVersion (kpn532 trace): the client reads the three frames")
    func desfireGetVersion() async throws {
        let (reader, virtual) = try await Self.reader("desfire-ev3-getversion-kpn532.apdu")
        let version = try await reader.withSession { session in
            try await DESFireClient(channel: session).getVersion()
        }
        #expect(version.uid == [0x04, 0x95, 0x91, 0x0A, 0x5D, 0x6D, 0x80])
        #expect(version.hardware == [0x04, 0x01, 0x01, 0x33, 0x00, 0x1A, 0x05])
        #expect(version.software == [0x04, 0x01, 0x01, 0x03, 0x00, 0x1A, 0x05])
        #expect(version.batch == [0x99, 0x53, 0x67, 0x30, 0x30])
        #expect(version.week == 0x20 && version.year == 0x20)
        try await Self.expectComplete(virtual)
    }

    @Test("DESFire EV3 without authentication (ESP32 + PN532 log): application, plain file, 91 9D typed, 32 bytes read")
    func desfirePlainFileSession() async throws {
        let (reader, virtual) = try await Self.reader("desfire-ev3-plain-file-esp32-pn532.apdu")
        let aid = try DESFireApplicationID(0x9A_7856)
        let free = DESFireAccessRights(rawValue: 0xEEEE)
        let written = [UInt8](1...32)
        let read = try await reader.withSession { session in
            let card = DESFireClient(channel: session)
            #expect(try await card.getFreeMemory() == 0x1400)
            let version = try await card.getVersion()
            #expect(version.hardware == [0x04, 0x01, 0x01, 0x33, 0x00, 0x18, 0x05])
            #expect(version.uid == [0x04, 0x35, 0x68, 0xDA, 0x05, 0x1A, 0x90])
            try await card.createApplication(aid, settings: 0x0F, keyCount: 5, keyType: .aes)
            // The recorded host created the file before selecting the application: the card refused.
            await #expect(throws: DESFireError.cardStatus(.permissionDenied, command: .createStdDataFile)) {
                try await card.createDataFile(file: 1, size: 32, commMode: .plain, accessRights: free)
            }
            try await card.selectApplication(aid)
            try await card.createDataFile(file: 1, size: 32, commMode: .plain, accessRights: free)
            let settings = try await card.getFileSettings(file: 1)
            #expect(settings.kind == .standard(size: 32))
            #expect(settings.commMode == .plain && settings.accessRights == free)
            // The host wrote with EV2's WriteData (8D); CardFlow's client writes with EV1's 3D
            // without an EV2 session, so the recorded command goes as it is.
            let write = try CommandAPDU(
                cla: 0x90, ins: 0x8D, p1: 0, p2: 0, data: [0x01, 0, 0, 0, 0x20, 0, 0] + written, le: 256)
            #expect(try await session.transmit(write).statusWord.rawValue == 0x9100)
            return try await card.readData(file: 1, length: 32)
        }
        #expect(read == written)
        try await Self.expectComplete(virtual)
    }

    @Test("NTAG 424 DNA GetVersion on an Identiv uTrust 3700 F (NXP community): three frames, product decoded")
    func ntag424GetVersion() async throws {
        let (reader, virtual) = try await Self.reader("ntag424-getversion-identiv-3700f-nxp-community.apdu")
        let version = try await reader.withSession { session in
            try await NTAG424Client(channel: session).getVersion()
        }
        #expect(version.prefix(7) == [0x04, 0x04, 0x08, 0x30, 0x00, 0x11, 0x05])
        #expect(Array(version[14..<21]) == [0x04, 0x87, 0x3D, 0x2A, 0xAA, 0x61, 0x80])
        try await Self.expectComplete(virtual)
    }

    @Test("DESFire SelectApplication of absent applications (Proxmark3 PR 2815): 91 A0 typed, no application selected")
    func desfireApplicationNotFound() async throws {
        let (reader, virtual) = try await Self.reader("desfire-select-not-found-pm3-2815.apdu")
        try await reader.withSession { session in
            let card = DESFireClient(channel: session)
            for value in [UInt32(0x0000FF), 0x000100] {
                await #expect(throws: DESFireError.cardStatus(.applicationNotFound, command: .selectApplication)) {
                    try await card.selectApplication(try DESFireApplicationID(value))
                }
            }
            #expect(await card.selectedApplication == .picc)
        }
        try await Self.expectComplete(virtual)
    }

    @Test("DESFire ISO authentication with DES and FormatPICC (Proxmark3 issue 2961): RndA injected, CMAC verified")
    func desfireAuthenticateAndFormat() async throws {
        let (reader, virtual) = try await Self.reader("desfire-iso-auth-format-pm3-2961.apdu")
        let key = try DESFireKey(type: .des, bytes: [UInt8](repeating: 0, count: 8))
        try await reader.withSession { session in
            let card = DESFireClient(channel: session, randomBytes: Self.fixed("0102030405060708"))
            try await card.authenticate(keyNumber: 0, key: key, method: .iso)
            try await card.formatPICC()
        }
        try await Self.expectComplete(virtual)
    }

    @Test("NTAG 424 DNA personalization (AN12196 Tables 14, 17, 18) through the simulated reader")
    func ntag424Personalization() async throws {
        let (reader, virtual) = try await Self.reader("ntag424-an12196-personalize.apdu")
        let zero = try DESFireKey(type: .aes, bytes: [UInt8](repeating: 0, count: 16))
        let record =
            try [UInt8](hex: "0051D1014D550463686F6F73652E75726C2E636F6D2F6E7461673432343F653D")
            + Array(String(repeating: "0", count: 32).utf8) + Array("&c=".utf8)
            + Array(String(repeating: "0", count: 16).utf8)
        let ndefFile = record + [UInt8](repeating: 0, count: 0x80 - record.count)
        let settings = NTAG424FileSettings(
            commMode: .plain, accessRights: DESFireAccessRights(rawValue: 0xE000),
            sdm: NTAG424SDMSettings(
                metaReadKey: 2, fileReadKey: 1, counterRetrievalKey: 1,
                piccDataOffset: 0x20, macInputOffset: 0x43, macOffset: 0x43))
        try await reader.withSession { session in
            let tag = NTAG424Client(channel: session, randomBytes: Self.fixed("13C5DB8A5930439FC3DEF9A4C675360F"))
            try await tag.selectNDEFApplication()
            try await tag.authenticate(keyNumber: 0, key: zero)
            try await tag.writeData(.ndef, data: ndefFile, mode: .enciphered)
            try await tag.changeFileSettings(.ndef, to: settings)
        }
        try await Self.expectComplete(virtual)
    }

    @Test("NTAG 424 DNA key changes (AN12196 Tables 19-26): two authentications, each with its recorded RndA")
    func ntag424ChangeKeys() async throws {
        let (reader, virtual) = try await Self.reader("ntag424-an12196-change-keys.apdu")
        let zero = try DESFireKey(type: .aes, bytes: [UInt8](repeating: 0, count: 16))
        let rndA = RecordedRandom(["B98F4C50CF1C2E084FD150E33992B048", "60BE759EDA560250AC57CDDC11743CF6"])
        try await reader.withSession { session in
            let tag = NTAG424Client(channel: session, randomBytes: { _ in rndA.next() })
            try await tag.authenticate(keyNumber: 3, key: zero)
            try await tag.writeData(.proprietary, data: Array(1...10), mode: .enciphered)
            try await tag.authenticateNonFirst(keyNumber: 0, key: zero)
            try await tag.writeData(
                .capabilityContainer, offset: 0x0E, data: try [UInt8](hex: "FF0506E10500808283000000000000000000"),
                mode: .plain)
            try await tag.changeKey(
                2, to: DESFireKey(type: .aes, hex: "F3847D627727ED3BC9C4CC050489B966", version: 1), oldKey: zero)
            try await tag.changeKey(0, to: DESFireKey(type: .aes, hex: "5004BF991F408672B1EF00F08F9E8647", version: 1))
            #expect(await !tag.isAuthenticated, "changing the session's own key ends the session")
        }
        try await Self.expectComplete(virtual)
    }

    @Test("ICODE SLI on an ACR1552 (NXP community): transparent session, system information, the write time-out typed")
    func icodeSLITransparentExchange() async throws {
        let (reader, virtual) = try await Self.reader("icode-sli-acr1552-transparent-nxp-community.apdu")
        try await reader.withSession { session in
            // The session's start, switch to ISO 15693 layer 3 and end are the client's, byte for
            // byte as the recorded application sent them.
            try await ISO15693Tag(channel: session).withTransparentSession { tag in
                let info = try await tag.systemInformation()
                #expect(info.uid == [0xE0, 0x04, 0x01, 0x00, 0x8A, 0x5C, 0x98, 0x2E])
                #expect(info.blockCount == 28 && info.blockSize == 4)
                #expect(info.dsfid == 0 && info.afi == 0 && info.icReference == 1)
                // READ SINGLE BLOCK 0 with the option flag: the block's security status, then its data.
                #expect(try await tag.transceive([0x42, 0x20, 0x00]) == [0x00, 0x00, 0x11, 0x22, 0x33])
                await #expect(throws: ISO15693Error.exchangeFailed(sw: 0x6401)) {
                    try await tag.writeBlockDirectly(0, data: [0x12, 0x34, 0x56, 0x78])
                }
                #expect(try await tag.transceive([0x42, 0x20, 0x00]) == [0x00, 0x12, 0x34, 0x56, 0x78])
            }
        }
        try await Self.expectComplete(virtual)
    }

    @Test("MIFARE Classic on an ACR122U (pcsc-lite issue 107): the refused authentication is typed")
    func classicAuthenticationRefused() async throws {
        let (reader, virtual) = try await Self.reader("classic-acr122u-auth-refused-pcsc-107.apdu")
        try await reader.withSession { session in
            let card = try await ClassicClient.open(on: session)
            await #expect {
                try await card.authenticate(block: 0x12, keyType: .a, slot: 0)
            } throws: { error in
                guard case StorageCardError.authenticationFailed(let block, .a, let statusWord, _) = error else {
                    return false
                }
                return block == 0x12 && statusWord.rawValue == 0x6300
            }
            #expect(await card.authenticatedSector == nil)
        }
        try await Self.expectComplete(virtual)
    }

    @Test("MIFARE Classic on an ACR122U (Stack Overflow 56423316): a block read, a refused write that halts the card")
    func classicWriteRefused() async throws {
        let (reader, virtual) = try await Self.reader("classic-acr122u-write-refused-so56423316.apdu")
        let key = try ClassicKey([0x05, 0, 0, 0, 0, 0])
        let before: [UInt8] = [0, 0, 0, 0, 0x40, 0, 0, 0, 0xAA, 0x55, 0, 0, 0, 0x40, 0, 0]
        try await reader.withSession { session in
            #expect(await session.identity.uid == [0xDB, 0x96, 0xAE, 0x52])
            let card = try await ClassicClient.open(on: session)
            try await card.authenticate(sector: 0, keyType: .a, key: key)
            #expect(try await card.readBlock(1) == before)
            await #expect {
                try await card.writeBlock(1, data: before)
            } throws: { error in
                guard case StorageCardError.operationRefused(0xD6, 1, let statusWord, let likelyCause) = error else {
                    return false
                }
                // What this card shows: the block's contents are unknown after a refused write.
                return statusWord.rawValue == 0x6300 && likelyCause.contains("read it back")
            }
            // The client drops the authentication after a refused operation and refuses the read
            // before sending it; the recorded card agrees: the same read, sent anyway, gets 63 00.
            #expect(await card.authenticatedSector == nil)
            await #expect(throws: StorageCardError.notAuthenticated(block: 1)) { try await card.readBlock(1) }
            for _ in 0..<2 {
                #expect(try await session.transmit(try CommandAPDU(hex: "FF00400004 01000101")).statusWord == .success)
            }
            #expect(try await session.transmit(try CommandAPDU(hex: "FFB0000110")).statusWord.rawValue == 0x6300)
        }
        // Reconnected: the write that was reported as failed had changed the block.
        let after = try await reader.withSession { session in
            let card = try await ClassicClient.open(on: session)
            try await card.authenticate(sector: 0, keyType: .a, key: key)
            return try await card.readBlock(1)
        }
        #expect(after == [UInt8](repeating: 0, count: 16))
        try await Self.expectComplete(virtual)
    }

    @Test("NTAG216 on an ACS ACR1281U-C1 (Stack Overflow 78194226): a WRITE answered 63 00 is confirmed by a read-back")
    func ntag216WriteAcknowledgedAsNoAnswer() async throws {
        let (reader, virtual) = try await Self.reader("ntag216-acr1281u-write-ack-as-6300-so78194226.apdu")
        try await reader.withSession { session in
            // The recorded host authenticated before anything else, so the product is given
            // (GET_VERSION, second in the recording, confirms it).
            let tag = NTAGClient(channel: session, variant: .acs, product: .ntag216)
            let pack = try await tag.authenticate(password: .factory, expectedPACK: [0, 0])
            #expect(pack == [0, 0])
            #expect(Type2Product(version: try await tag.getVersion()) == .ntag216)
            // The reader did not pass the tag's 4-bit ACK on: 63 00. The page read back holds
            // "AAAA", so the write took effect and is no error.
            try await tag.write(page: 4, Array("AAAA".utf8))
        }
        try await Self.expectComplete(virtual)
    }

    @Test(
        "NTAG203 on an ACR122U (blog post, two tags): pages 0-11 through the client, the NDEF Text record decoded",
        arguments: [
            ("ntag203-acr122u-read-pages-tag-a-blog.apdu", [0x04, 0x19, 0x92, 0x7A, 0x8C, 0x33, 0x81], 0x10),
            ("ntag203-acr122u-read-pages-tag-b-blog.apdu", [0x04, 0x5B, 0x9D, 0x32, 0x23, 0x35, 0x80], 0x11),
        ] as [(String, [UInt8], UInt8)])
    func ntag203PagesAndNDEF(name: String, uid: [UInt8], mappingVersion: UInt8) async throws {
        let (reader, virtual) = try await Self.reader(name)
        let (readUID, pages) = try await reader.withSession { session in
            // The session reads the UID (GET DATA) as it opens: tag B's recorded reader answers it,
            // tag A's recording has none, so the simulated reader answers with its `# uid:`.
            let readUID = await session.identity.uid
            // An NTAG203 has no GET_VERSION: the client is made for its pages, read four at a time.
            let tag = NTAGClient(channel: session, variant: .acr122u, product: .ultralight)
            return (readUID, try await tag.readPages(0...11))
        }
        #expect(readUID == uid)
        #expect(Array(pages[0..<3]) + Array(pages[4..<8]) == uid, "the UID pages")
        #expect(pages[3] == 0x88 ^ pages[0] ^ pages[1] ^ pages[2], "BCC0")
        #expect(pages[8] == pages[4] ^ pages[5] ^ pages[6] ^ pages[7], "BCC1")
        #expect(Array(pages[12..<16]) == [0xE1, mappingVersion, 0x12, 0x00])
        // The capability container names the data area's size only: 144 bytes, NTAG203's and NTAG213's.
        #expect(Type2Product(capabilityContainer: Array(pages[12..<16])) == .ntag213)
        let area = Array(pages[16...])
        let location = try #require(try Type2Tag.locateNDEF(in: area))
        let value = location.valueOffset..<location.valueOffset + location.length
        let message = try NDEFMessage(decoding: Array(area[value]))
        let text = try TextRecord(try #require(message.records.first), mode: .strict)
        #expect(message.records.count == 1 && text.text == "HelloKitty!" && text.language == "en")
        try await Self.expectComplete(virtual)
    }

    @Test("NTAG216 on an Alcor AK9567 (libnfc issue 755): a UID ending in 90; only the last two bytes are SW1 SW2")
    func uidEndingInNinety() async throws {
        let (reader, virtual) = try await Self.reader("ntag216-ak9567-get-uid-libnfc-755.apdu")
        // The first GET DATA is the session's own, as it opens; the second the client's.
        let uids = try await reader.withSession { session in
            [try #require(await session.identity.uid), try await StorageCardUID.read(from: session)]
        }
        #expect(uids == Array(repeating: [0x04, 0x74, 0x48, 0x22, 0xA6, 0x14, 0x90], count: 2))
        try await Self.expectComplete(virtual)
    }

    @Test("a command the recording did not expect: typed mismatch with both APDUs and the position, the card mute")
    func mismatchIsTyped() async throws {
        let (reader, virtual) = try await Self.reader("desfire-ev3-getversion-kpn532.apdu")
        await #expect(throws: (any Error).self) {
            try await reader.withSession { session in
                _ = try await DESFireClient(channel: session).getApplicationIDs()
            }
        }
        let card = try #require(await virtual.card() as? RecordedConversationCard)
        let mismatch = try #require(card.mismatch)
        #expect(mismatch.position == 0)
        #expect(mismatch.expected == [0x90, 0x60, 0x00, 0x00, 0x00])
        #expect(mismatch.received == [0x90, 0x6A, 0x00, 0x00, 0x00])
        #expect(mismatch.category == .card)
        #expect(String(describing: mismatch).contains("90 6A 00 00 00"))
        #expect(!card.isComplete)
    }

    @Test("past the recording's end: a mismatch without an expected command")
    func pastTheEnd() throws {
        var card = RecordedConversationCard(recording: try Self.recording("desfire-ev3-getversion-kpn532.apdu"))
        for exchange in card.recording.exchanges { #expect(card.process(exchange.command) == exchange.response) }
        #expect(card.isComplete)
        #expect(card.process([0x90, 0x60, 0x00, 0x00, 0x00]).isEmpty)
        #expect(card.mismatch?.position == 3 && card.mismatch?.expected == nil)
        #expect(!card.isComplete)
    }

    @Test(
        "malformed recordings are typed errors naming the line",
        arguments: [
            ("# card: c\n# license: l\n# ats: 0675\n> 00\n< 9000\n", APDURecordingError.missingHeader("source")),
            ("# source: s\n# card: c\n# license: l\n> 00\n< 9000\n", .technology),
            ("# source: s\n# card: c\n# license: l\n# ats: 06\n# atr: 3B00\n> 00\n< 9000\n", .technology),
            ("# source: s\n# card: c\n# license: l\n# ats: 06\n> 00\n> 01\n< 9000\n", .commandWithoutResponse(line: 5)),
            ("# source: s\n# card: c\n# license: l\n# ats: 06\n< 9000\n", .responseWithoutCommand(line: 5)),
            ("# source: s\n# card: c\n# license: l\n# ats: 06\n> 00\n< 90\n", .responseWithoutStatus(line: 6)),
            ("# source: s\n# card: c\n# license: l\n# ats: 06\n> 0G\n< 9000\n", .badHex(line: 5)),
            ("# source: s\n# card: c\n# license: l\n# ats: 06\nhello\n", .unexpectedLine(line: 5, text: "hello")),
            ("# source: s\n# card: c\n# license: l\n# storage: 0300\n> 00\n< 9000\n", .badStorage(line: 4)),
            ("# source: s\n# card: c\n# license: l\n# ats: 06\n", .noExchanges),
        ])
    func malformed(_ text: String, _ error: APDURecordingError) {
        #expect(throws: error) { try APDURecording(parsing: text) }
    }

    @Test("sim:apdu-replay,recording=PATH puts the recorded card on the simulated reader")
    func selector() async throws {
        let path = Self.directory.appendingPathComponent("desfire-ev3-getversion-kpn532.apdu").path
        let specification = try SimulatorSpecification(parsing: "sim:apdu-replay,recording=\(path)")
        #expect(specification.cardKind == .apduReplay && specification.recordingPath == path)
        #expect(throws: SimulatorSpecificationError.missingValue(option: "recording")) {
            try SimulatorSpecification(parsing: "sim:apdu-replay")
        }
        #expect(throws: SimulatorSpecificationError.self) {
            try SimulatorSpecification(parsing: "sim:desfire,recording=\(path)")
        }
        let setup = try await SimulatorSetup(specification: specification)
        let version = try await setup.cardFlowReaders()[0].withSession { session in
            try await DESFireClient(channel: session).getVersion()
        }
        #expect(version.uid == [0x04, 0x95, 0x91, 0x0A, 0x5D, 0x6D, 0x80])
    }
}

/// A recording's random values handed out in order, as a client's random-source hook asks for
/// them (once per authentication); empty once they are used up, so an extra request fails rather
/// than getting a made-up value.
final class RecordedRandom: Sendable {
    private let values: Mutex<[[UInt8]]>

    init(_ hex: [String]) { values = Mutex(hex.map { try! [UInt8](hex: $0) }) }

    func next() -> [UInt8] { values.withLock { $0.isEmpty ? [] : $0.removeFirst() } }
}
