import CardFlow
import CardFlowDESFire
import CardFlowSimulatorCards
import CardFlowSimulatorUFR
import Testing

@testable import CardFlowUFR

/// The backend against the simulated Nano Online over TCP and UDP, through the reader-source plug.
@Suite("uFR reader end to end", .timeLimit(.minutes(1)))
struct UFRReaderEndToEndTests {
    @Test("opening identifies the reader", arguments: UFRTestSupport.Transport.allCases)
    func identity(_ transport: UFRTestSupport.Transport) async throws {
        let online = try await UFRTestSupport.online()
        let opened = try await UFRTestSupport.open(online, transport)
        let info = try #require(opened.readers.first).info
        #expect(info.backend == "ufr")
        #expect(info.id == UFRTestSupport.selector(online, transport))
        #expect(info.serialNumber == "ON123456")
        #expect(info.name == "uFR Nano Classic ON123456")
        #expect(info.details["reader type"] == "D1180022")
        try await opened.close()
        await online.stop()
    }

    @Test("a session: the DESFire ATR, the UID by GET DATA, GetVersion", arguments: UFRTestSupport.Transport.allCases)
    func session(_ transport: UFRTestSupport.Transport) async throws {
        let card = DESFireCard(seed: 11)
        let online = try await UFRTestSupport.online(card: card)
        let opened = try await UFRTestSupport.open(online, transport)
        let reader = try #require(opened.readers.first)
        try await reader.withSession { session in
            #expect(await session.identity.atr == [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80])
            let uid = try await session.transmit(try CommandAPDU(bytes: [0xFF, 0xCA, 0x00, 0x00, 0x00]))
            #expect(uid.data == card.uid)
            let version = try await session.transmit(try CommandAPDU(bytes: UFRTestSupport.getVersion))
            #expect(version.sw1 == 0x91 && version.sw2 == 0xAF)
            #expect(version.data.first == 0x04) // NXP
        }
        #expect(await online.reader.isSessionOpen == false, "the session ends with a deselect")
        try await opened.close()
        await online.stop()
    }

    @Test(
        "DESFire through uFR: authenticate, create an AES application and an enciphered file, write, read back",
        arguments: UFRTestSupport.Transport.allCases)
    func desfireFlow(_ transport: UFRTestSupport.Transport) async throws {
        let online = try await UFRTestSupport.online(card: DESFireCard(seed: 3))
        let opened = try await UFRTestSupport.open(online, transport)
        let reader = try #require(opened.readers.first)
        let aid = try DESFireApplicationID(hex: "0A0B0C")
        let appKey = try DESFireKey(type: .aes, bytes: Array(0x10..<0x20))
        let text = Array("CARDFLOW THROUGH uFR".utf8)
        try await reader.withSession { session in
            let client = DESFireClient(channel: session)
            try await client.authenticate(keyNumber: 0, key: .defaultDES)
            try await client.createApplication(aid, settings: 0x0F, keyCount: 2, keyType: .aes)
            try await client.selectApplication(aid)
            try await client.authenticate(keyNumber: 0, key: .defaultAES)
            try await client.changeKey(keyNumber: 1, to: appKey, oldKey: .defaultAES)
            try await client.createDataFile(
                file: 1, size: 32, commMode: .enciphered,
                accessRights: DESFireAccessRights(read: 1, write: 1, readWrite: 1, change: 0))
            try await client.authenticate(keyNumber: 1, key: appKey)
            try await client.writeData(file: 1, data: text)
        }
        // A new session (deselect, select again) reads it back.
        let read = try await reader.withSession { session in
            let client = DESFireClient(channel: session)
            try await client.selectApplication(aid)
            try await client.authenticate(keyNumber: 1, key: appKey)
            return try await client.readData(file: 1, offset: 0, length: text.count)
        }
        #expect(read == text)
        try await opened.close()
        await online.stop()
    }

    @Test("no card: presence is absent and a session waits, then fails as no card")
    func noCard() async throws {
        let online = try await UFRTestSupport.online(card: nil)
        let device = try await UFRTestSupport.device(online, .tcp)
        #expect(try await device.presence() == .absent)
        await #expect(throws: UFRError.readerError(.getCardIDEx, .noCard)) { try await device.powerOn() }
        do {
            _ = try await device.powerOn()
        } catch {
            #expect(error.cardLoss == .noCard)
        }
        await online.reader.place(DESFireCard(seed: 1))
        #expect(try await device.presence() == .present)
        await online.stop()
    }

    @Test("a card without ISO-DEP is refused with a typed error")
    func storageCard() async throws {
        let online = try await UFRTestSupport.online(card: SimulatedMIFAREClassicCard(seed: 1))
        let device = try await UFRTestSupport.device(online, .tcp)
        await #expect(throws: UFRError.notISODEP(UFRCardType(rawValue: 0x21))) { try await device.powerOn() }
        await online.stop()
    }
}
