import CardFlow
import CardFlowDESFire
import CardFlowSimulatorCards
import CardFlowSimulatorUFR
import Testing

@testable import CardFlowUFR

/// ``UFRDESFire`` (the reader's own DESFire commands, issue 37) against the simulated Nano
/// Online, whose 8x commands were written from the COM document separately from this codec. The
/// data the reader wrote are checked by reading them over CardFlow's APDU path with the key in
/// hand: the simulated card (written from the DESFire spec) decides whether the reader's secure
/// messaging was right.
@Suite("uFR reader keys end to end", .timeLimit(.minutes(1)))
struct UFRReaderKeyEndToEndTests {
    static let piccKey: [UInt8] = Array(0xA0..<0xB0)
    static let applicationKey: [UInt8] = Array(0x40..<0x50)
    static let aid: UInt32 = 0xF0_0001

    static func desfire(_ opened: OpenedReaders) throws -> UFRDESFire {
        let reader = try #require(opened.readers.first)
        let driver = try #require(reader.driver as? UFRReaderDriver)
        return UFRDESFire(device: driver.device)
    }

    @Test(
        "the seed workflow with reader keys; the data read back over APDUs",
        arguments: UFRTestSupport.Transport.allCases)
    func workflow(_ transport: UFRTestSupport.Transport) async throws {
        let online = try await UFRTestSupport.online(card: DESFireCard(seed: 31))
        let opened = try await UFRTestSupport.open(online, transport)
        let desfire = try Self.desfire(opened)
        try await desfire.writeReaderKey(slot: 3, key: Self.piccKey)
        try await desfire.writeReaderKey(slot: 4, key: Self.applicationKey)
        #expect(await online.reader.readerKeys.key(inSlot: 4) == Self.applicationKey)
        let free = try await desfire.freeMemory()
        try await desfire.changePICCMasterKey(
            from: .provided(type: .des, [UInt8](repeating: 0, count: 8)), to: .readerSlot(3))
        try await desfire.format(piccKey: .readerSlot(3))
        try await desfire.createApplication(Self.aid, settings: 0x0F, keyCount: 2, piccKey: .readerSlot(3))
        // Key 0 of the new application is AES 16 × 00, the factory value of slot 0.
        try await desfire.changeKey(
            application: Self.aid, keyNumber: 0, to: .readerSlot(4), authenticatingWith: .readerSlot(0))
        try await desfire.createStandardFile(
            1, application: Self.aid, size: 400, accessRights: 0x0000, communication: .enciphered,
            applicationKey: .readerSlot(4))
        // 400 bytes: three writes (160, 160, 80), one read streamed in chunks.
        let data = (0..<400).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try await desfire.write(
            data, application: Self.aid, file: 1, communication: .enciphered, key: .readerSlot(4))
        let read = try await desfire.read(
            application: Self.aid, file: 1, length: 400, communication: .enciphered, key: .readerSlot(4))
        #expect(read == data)
        #expect(try await desfire.freeMemory() < free)

        let reader = try #require(opened.readers.first)
        let overAPDUs = try await reader.withSession { session in
            let client = DESFireClient(channel: session)
            try await client.selectApplication(try DESFireApplicationID(Self.aid))
            try await client.authenticate(keyNumber: 0, key: try DESFireKey(type: .aes, bytes: Self.applicationKey))
            return try await client.readData(file: 1, offset: 0, length: 400)
        }
        #expect(overAPDUs == data)
        try await opened.close()
        await online.stop()
    }

    @Test("failures are typed: wrong key, no card, missing application, a corrupt reader")
    func failures() async throws {
        let online = try await UFRTestSupport.online(card: DESFireCard(seed: 32))
        let device = try await UFRTestSupport.device(online, .tcp)
        let desfire = UFRDESFire(connection: device.connection, timeout: .milliseconds(600))
        // The PICC master key is DES 8 × 00; slot 2 holds AES 16 × 00.
        await #expect(throws: UFRDESFireError.failed(.desfireFormatCard, .keyAuthenticationError)) {
            try await desfire.format(piccKey: .readerSlot(2))
        }
        await #expect(throws: UFRDESFireError.failed(.desfireReadStandardFile, UFRDESFireStatus(rawValue: 0x0CA0))) {
            _ = try await desfire.read(application: 0x12_3456, file: 0, length: 4, key: nil)
        }
        let card = await online.reader.lift()
        do {
            try await desfire.format(piccKey: .provided(type: .des, [UInt8](repeating: 0, count: 8)))
            Issue.record("format without a card succeeded")
        } catch {
            #expect(error.cardLoss == .noCard, "\(error)")
            #expect(error.errorCategory == .card)
        }
        if let card { await online.reader.place(card) }
        await online.reader.setFault(.badChecksums)
        await #expect(throws: UFRError.self) { _ = try await desfire.freeMemory() }
        await online.reader.setFault(nil)
        #expect(try await desfire.freeMemory() > 0)
        await device.connection.close()
        await online.stop()
    }

    @Test("UDP: a lost answer is a time-out, never a second run of the card command; duplicates are dropped")
    func datagramFaults() async throws {
        let online = try await UFRTestSupport.online(card: DESFireCard(seed: 33))
        let device = try await UFRTestSupport.device(online, .udp)
        let desfire = UFRDESFire(connection: device.connection, timeout: .milliseconds(600))
        try await desfire.createApplication(Self.aid, settings: 0x0F, keyCount: 1, piccKey: nil)
        try await desfire.createStandardFile(
            1, application: Self.aid, size: 32, accessRights: 0xEEEE, communication: .plain, applicationKey: nil)

        var faults = UFRDatagramFaults()
        faults.dropOutgoing = 2 // the ACK and the answer
        await online.setDatagramFaults(faults)
        await #expect(throws: UFRError.self) {
            try await desfire.write([1, 2, 3, 4], application: Self.aid, file: 1, key: nil)
        }
        let writes = await online.reader.commandLog.filter { $0 == 0x82 }.count
        #expect(writes == 1, "the write went once: \(writes)")

        faults = UFRDatagramFaults()
        faults.duplicateOutgoing = 4
        await online.setDatagramFaults(faults)
        try await desfire.write([5, 6, 7, 8], application: Self.aid, file: 1, offset: 4, key: nil)
        #expect(
            try await desfire.read(application: Self.aid, file: 1, length: 8, key: nil) == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(await online.reader.commandLog.filter { $0 == 0x82 }.count == 2)
        await device.connection.close()
        await online.stop()
    }
}
