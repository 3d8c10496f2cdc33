import CardFlowSimulatorCards
import Testing

/// MIFARE Classic through the PN532's InDataExchange (UM0701-02 §7.3.8): the PN532 runs Crypto1,
/// the host sends `60|61 block key uid`, then plain READ `30` and WRITE `A0`; a refusal is
/// status 14 (§7.1) and halts the card (MF1S50 §9) until it is listed again.
@Suite("Simulated ACR122U: MIFARE Classic through the PN532")
struct SimulatedPN532ClassicTests {
    static let transportKey = [UInt8](repeating: 0xFF, count: 6)

    static func classic() -> SimulatedMIFAREClassicCard {
        var card = SimulatedMIFAREClassicCard(seed: 7)
        card.placed(onReaderWithVendorID: 0x072F, productID: 0x2200)
        return card
    }

    /// `D4 40 01 60|61 block key uid`.
    static func authenticate(_ keyType: UInt8, block: UInt8, key: [UInt8], uid: [UInt8]) -> [UInt8] {
        [0xD4, 0x40, 0x01, keyType, block] + key + uid
    }

    @Test("listed, authenticated with the transport key A: READ and WRITE in the sector, the trailer's key A masked")
    func readAndWriteAfterAuthentication() throws {
        var chip = SimulatedPN532()
        let card = Self.classic()
        var field: (any VirtualCard)? = card
        #expect(
            chip.answer([0xD4, 0x4A, 0x01, 0x00], field: &field)
                == [0xD5, 0x4B, 0x01, 0x01, 0x00, 0x04, 0x08, 0x04] + card.uid)
        // Not authenticated yet: the card NAKs READ, the PN532 reports 14, the card halts.
        #expect(chip.answer([0xD4, 0x40, 0x01, 0x30, 0x04], field: &field) == [0xD5, 0x41, 0x14])
        #expect(
            chip.answer(Self.authenticate(0x60, block: 4, key: Self.transportKey, uid: card.uid), field: &field)
                == [0xD5, 0x41, 0x14])
        _ = chip.answer([0xD4, 0x4A, 0x01, 0x00], field: &field)
        #expect(
            chip.answer(Self.authenticate(0x60, block: 4, key: Self.transportKey, uid: card.uid), field: &field)
                == [0xD5, 0x41, 0x00])
        let data: [UInt8] = Array(1...16)
        #expect(chip.answer([0xD4, 0x40, 0x01, 0xA0, 0x05] + data, field: &field) == [0xD5, 0x41, 0x00])
        #expect(chip.answer([0xD4, 0x40, 0x01, 0x30, 0x05], field: &field) == [0xD5, 0x41, 0x00] + data)
        // Transport access bits FF 07 80: key A reads the access bits and key B, never itself.
        #expect(
            chip.answer([0xD4, 0x40, 0x01, 0x30, 0x07], field: &field)
                == [0xD5, 0x41, 0x00] + [UInt8](repeating: 0, count: 6) + [0xFF, 0x07, 0x80, 0x69]
                + Self.transportKey)
        let written = try #require(field as? SimulatedMIFAREClassicCard)
        #expect(written.blocks[5] == data)
        // Block 8 is in sector 2, not authenticated: NAK, status 14, and WRITE changed nothing.
        #expect(chip.answer([0xD4, 0x40, 0x01, 0xA0, 0x08] + data, field: &field) == [0xD5, 0x41, 0x14])
        #expect((field as? SimulatedMIFAREClassicCard)?.blocks[8] == [UInt8](repeating: 0, count: 16))
    }

    @Test("a wrong key, a wrong UID or key B (readable under transport access bits) fail with 14 and halt the card")
    func failedAuthentication() {
        var chip = SimulatedPN532()
        let card = Self.classic()
        var field: (any VirtualCard)? = card
        let attempts: [[UInt8]] = [
            Self.authenticate(0x60, block: 4, key: [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5], uid: card.uid),
            Self.authenticate(0x60, block: 4, key: Self.transportKey, uid: card.uid.map { $0 ^ 0xFF }),
        ]
        for attempt in attempts {
            _ = chip.answer([0xD4, 0x4A, 0x01, 0x00], field: &field)
            #expect(chip.answer(attempt, field: &field) == [0xD5, 0x41, 0x14])
            // Halted: even the right key fails until the card is listed again.
            #expect(
                chip.answer(Self.authenticate(0x60, block: 4, key: Self.transportKey, uid: card.uid), field: &field)
                    == [0xD5, 0x41, 0x14])
        }
        // Key B authenticates, but the card does not use a key B its trailer lets be read.
        _ = chip.answer([0xD4, 0x4A, 0x01, 0x00], field: &field)
        #expect(
            chip.answer(Self.authenticate(0x61, block: 4, key: Self.transportKey, uid: card.uid), field: &field)
                == [0xD5, 0x41, 0x00])
        #expect(chip.answer([0xD4, 0x40, 0x01, 0x30, 0x04], field: &field) == [0xD5, 0x41, 0x14])
    }

    @Test(
        "through the ACR122U's direct transmit: a 7-byte UID in the authentication is the PN532's syntax error (63 7F)")
    func syntaxErrorThroughReader() throws {
        var firmware = ACR122UFirmware()
        let card = Self.classic()
        var field: (any VirtualCard)? = card
        func direct(_ frame: [UInt8]) -> [UInt8] { [0xFF, 0x00, 0x00, 0x00, UInt8(frame.count)] + frame }
        // No InListPassiveTarget: the card the controller polled is target 1.
        #expect(
            firmware.answer(
                direct(Self.authenticate(0x60, block: 0, key: Self.transportKey, uid: card.uid)), field: &field)
                == [0xD5, 0x41, 0x00, 0x90, 0x00])
        #expect(
            firmware.answer(
                direct(Self.authenticate(0x60, block: 0, key: Self.transportKey, uid: card.uid + [1, 2, 3])),
                field: &field) == [0x63, 0x7F])
        let block0 = firmware.answer(direct([0xD4, 0x40, 0x01, 0x30, 0x00]), field: &field)
        let onReader = try #require(field as? SimulatedMIFAREClassicCard)
        #expect(block0 == [0xD5, 0x41, 0x00] + onReader.blocks[0] + [0x90, 0x00])
    }
}
