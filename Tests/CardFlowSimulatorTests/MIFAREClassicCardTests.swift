import CardFlow
import Foundation
import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// The MIFARE Classic model alone, with raw pseudo-APDUs: the datasheet's rules and each
/// reader family's dialect.
@Suite("Simulated MIFARE Classic card")
struct MIFAREClassicCardTests {
    static let ok: [UInt8] = [0x90, 0x00]

    func card(_ dialect: MIFAREClassicReaderDialect = .acs, size: SimulatedMIFAREClassicCard.Size = .oneK)
        -> SimulatedMIFAREClassicCard
    {
        var card = SimulatedMIFAREClassicCard(seed: 7, size: size, readerDialect: dialect)
        card.powerOn()
        return card
    }

    @Test("transport configuration, block 0, and the ATR a part 3 reader builds")
    func transport() {
        var card = card()
        #expect(card.blocks[3] == bytes("FFFFFFFFFFFF FF078069 FFFFFFFFFFFF"))
        #expect(card.blocks[0][4] == card.uid.reduce(0, ^) && card.blocks[0][5] == 0x08)
        #expect(ContactlessATR.atr(for: card.technology) == bytes("3B8F8001804F0CA000000306030001000000006A"))
        #expect(
            ContactlessATR.atr(for: SimulatedMIFAREClassicCard(size: .fourK).technology)
                == bytes("3B8F8001804F0CA0000003060300020000000069"))
        #expect(card.process(bytes("FF82000006FFFFFFFFFFFF")) == Self.ok)
        #expect(card.process(bytes("FF860000050100036000")) == Self.ok)
        // Trailer read: key A hidden, access bits and GPB, key B readable under 001.
        #expect(card.process(bytes("FFB0000310")) == bytes("000000000000 FF078069 FFFFFFFFFFFF 9000"))
        let uid = card.uid
        #expect(Array(card.process(bytes("FFB0000010")).prefix(4)) == uid)
        #expect(card.process(bytes("FFD6000010 00000000000000000000000000000000")) == bytes("6300"))
    }

    @Test("key B readable: it authenticates, then every access is refused")
    func keyBReadable() {
        var card = card()
        #expect(card.process(bytes("FF82000106FFFFFFFFFFFF")) == Self.ok)
        #expect(card.process(bytes("FF860000050100046101")) == Self.ok)
        #expect(card.process(bytes("FFB0000410")) == bytes("6300"))
    }

    @Test("a failed authentication halts the card until it is powered again")
    func failedAuthenticationHalts() {
        var card = card()
        #expect(card.process(bytes("FF82000006010203040506")) == Self.ok)
        #expect(card.process(bytes("FF860000050100046000")) == bytes("6300"))
        #expect(card.process(bytes("FF82000006FFFFFFFFFFFF")) == Self.ok, "the reader still takes keys")
        #expect(card.process(bytes("FF860000050100046000")) == bytes("6300"), "halted")
        card.powerOn()
        #expect(card.process(bytes("FF860000050100046000")) == Self.ok)
        #expect(card.process(bytes("FFB0000410")) == [UInt8](repeating: 0, count: 16) + Self.ok)
        // Authentication covers one sector only.
        #expect(card.process(bytes("FFB0000810")) == bytes("6300"))
    }

    @Test("value block condition 110 with key A: decrement allowed, increment and write refused")
    func valueConditions() {
        var card = card()
        _ = card.process(bytes("FF82000006FFFFFFFFFFFF"))
        _ = card.process(bytes("FF860000050100046000"))
        // Store 100 in block 5 (ACS FF D7 op 00), then sector 1: block 1 condition 110, trailer 011.
        #expect(card.process(bytes("FFD7000505 0000000064")) == Self.ok)
        #expect(card.blocks[5] == bytes("64000000 9BFFFFFF 64000000 05FA05FA"))
        // C1 = 0010, C2 = 1010, C3 = 1000 (block 1: 110, trailer: 011).
        #expect(card.process(bytes("FFD6000710 FFFFFFFFFFFF 5D278A69 FFFFFFFFFFFF")) == Self.ok)
        #expect(card.process(bytes("FFD7000505 0200000001")) == Self.ok)
        #expect(card.process(bytes("FFB1000504")) == bytes("00000063 9000"))
        #expect(card.process(bytes("FFD7000505 0100000001")) == bytes("6300"), "increment needs key B")
        card.powerOn()
        _ = card.process(bytes("FF860000050100046000"))
        #expect(card.process(bytes("FFD6000510 00000000000000000000000000000000")) == bytes("6300"))
    }

    @Test("access bits with disagreeing copies block the sector for good")
    func blockedSector() {
        var card = card()
        _ = card.process(bytes("FF82000006FFFFFFFFFFFF"))
        _ = card.process(bytes("FF860000050100086000"))
        #expect(card.process(bytes("FFD6000B10 FFFFFFFFFFFF FF0781 69 FFFFFFFFFFFF")) == Self.ok)
        #expect(card.blockedSectors == [2])
        card.powerOn()
        #expect(card.process(bytes("FF860000050100086000")) == bytes("6300"))
    }

    @Test("Identiv dialect: LOAD KEYS P2 is the key type, authentication key number 01, no FF D7")
    func identivDialect() {
        var card = card()
        card.placed(onReaderWithVendorID: 0x04E6, productID: 0x5591)
        #expect(card.readerDialect == .identiv)
        #expect(card.process(bytes("FF82000006FFFFFFFFFFFF")) == bytes("6988"))
        #expect(card.process(bytes("FF82006006FFFFFFFFFFFF")) == Self.ok)
        #expect(card.process(bytes("FF860000050100066001")) == Self.ok)
        #expect(card.process(bytes("FFB0000610")) == [UInt8](repeating: 0, count: 16) + Self.ok)
        #expect(card.process(bytes("FFD7000505 0000000064")) == bytes("6D00"))
        #expect(card.process(bytes("FFB0000810")) == bytes("6982"), "not authenticated: PC/SC part 3 status")
    }

    @Test("dialects by USB ID")
    func dialects() {
        #expect(MIFAREClassicReaderDialect(vendorID: 0x072F, productID: 0x2200) == .acs)
        #expect(MIFAREClassicReaderDialect(vendorID: 0x04E6, productID: 0x5790) == .identiv)
        #expect(MIFAREClassicReaderDialect(vendorID: 0x076B, productID: 0x5422) == .omnikey)
        #expect(MIFAREClassicReaderDialect(vendorID: 0x1234, productID: 0x0001) == .generic)
    }

    @Test("4K: 16-block sectors authenticate and read as one condition per five blocks")
    func fourKSectors() {
        var card = card(size: .fourK)
        #expect(card.blocks.count == 256 && card.blocks[255] == SimulatedMIFAREClassicCard.transportTrailer)
        _ = card.process(bytes("FF82000006FFFFFFFFFFFF"))
        #expect(card.process(bytes("FF860000050100F06000")) == Self.ok)
        #expect(card.process(bytes("FFD600F010 0102030405060708090A0B0C0D0E0F10")) == Self.ok)
        #expect(card.process(bytes("FFB000F030")).count == 50)
        #expect(card.process(bytes("FFB000FF10")) == bytes("000000000000 FF078069 FFFFFFFFFFFF 9000"))
    }

    @Test("short and odd frames never trap")
    func oddFrames() {
        var card = card()
        for frame in [
            [], [0xFF], [0xFF, 0x82], bytes("FF820000"), bytes("FF8600000501"), bytes("FFD70005"),
            bytes("FFD7000502 03"), bytes("FFB000"), bytes("FFD6000410 00"), bytes("FFB0FFFF10"),
        ] as [[UInt8]] {
            #expect(card.process(frame).count >= 2)
        }
    }

    @Test("state saved and loaded through a sim: selector's state file")
    func persistence() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("classic-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/card.json"
        let specification = try SimulatorSpecification(parsing: "sim:classic1k,state=\(path)")
        let setup = try await SimulatorSetup(specification: specification)
        var card = try #require(await setup.readers[0].reader.removeCard() as? SimulatedMIFAREClassicCard)
        card.powerOn()
        _ = card.process(bytes("FF82000006FFFFFFFFFFFF"))
        _ = card.process(bytes("FF860000050100046000"))
        #expect(card.process(bytes("FFD6000410 0102030405060708090A0B0C0D0E0F10")) == Self.ok)
        await setup.readers[0].reader.insert(card)
        try await setup.saveCardState()
        let again = try await SimulatorSetup(specification: specification)
        let loaded = try #require(await again.readers[0].reader.card() as? SimulatedMIFAREClassicCard)
        #expect(loaded.blocks[4] == bytes("0102030405060708090A0B0C0D0E0F10"))
        await #expect(throws: SimulatorSetupError.self) {
            _ = try await SimulatorSetup(
                specification: try SimulatorSpecification(parsing: "sim:classic4k,state=\(path)"))
        }
        #expect(try SimulatorSpecification(parsing: "sim:classic4k").cardKind == .classic4k)
    }
}
