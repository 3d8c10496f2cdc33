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

    /// The value block of `value` at `address` (MF1S50 §8.6.2.1).
    static func valueBlock(_ value: Int32, address: UInt8) -> [UInt8] {
        let raw = withUnsafeBytes(of: value.littleEndian) { Array($0) }
        return raw + raw.map { ~$0 } + raw + [address, ~address, address, ~address]
    }

    @Test(
        "INCREMENT, DECREMENT and RESTORE fill the value register; only TRANSFER writes it, under the access conditions"
    )
    func valueCommands() throws {
        var chip = SimulatedPN532()
        let card = Self.classic()
        var field: (any VirtualCard)? = card
        let done: [UInt8] = [0xD5, 0x41, 0x00]
        let refused: [UInt8] = [0xD5, 0x41, 0x14]
        func list() { _ = chip.answer([0xD4, 0x4A, 0x01, 0x00], field: &field) }
        func send(_ data: [UInt8]) -> [UInt8]? { chip.answer([0xD4, 0x40, 0x01] + data, field: &field) }
        func blocks() throws -> [[UInt8]] { try #require(field as? SimulatedMIFAREClassicCard).blocks }
        list()
        #expect(send([0x60, 0x04] + Self.transportKey + card.uid) == done)
        #expect(send([0xA0, 0x05] + Self.valueBlock(100, address: 5)) == done)
        // Increment by 0x0102 (operand least significant byte first): the block waits for TRANSFER.
        #expect(send([0xC1, 0x05, 0x02, 0x01, 0x00, 0x00]) == done)
        #expect(try blocks()[5] == Self.valueBlock(100, address: 5))
        #expect(send([0xB0, 0x05]) == done)
        #expect(try blocks()[5] == Self.valueBlock(100 + 0x0102, address: 5))
        // Decrement into block 6 (a transfer to another block of the sector keeps the address byte).
        #expect(send([0xC0, 0x05, 0x10, 0x00, 0x00, 0x00]) == done)
        #expect(send([0xB0, 0x06]) == done)
        #expect(try blocks()[6] == Self.valueBlock(100 + 0x0102 - 0x10, address: 5))
        // RESTORE then TRANSFER copies block 6 back into block 5.
        #expect(send([0xC2, 0x06, 0x00, 0x00, 0x00, 0x00]) == done)
        #expect(send([0xB0, 0x05]) == done)
        let copied = try blocks()
        #expect(copied[5] == copied[6])
        // Block 4 holds no value block: INCREMENT is NAKed (14) and the card halts.
        #expect(send([0xC1, 0x04, 0x01, 0x00, 0x00, 0x00]) == refused)
        #expect(send([0x30, 0x05]) == refused)
        // A TRANSFER with nothing in the register (after a new authentication) is NAKed.
        list()
        #expect(send([0x60, 0x04] + Self.transportKey + card.uid) == done)
        #expect(send([0xB0, 0x05]) == refused)
        // Wrong lengths are the PN532's syntax error, not a card command.
        list()
        #expect(send([0x60, 0x04] + Self.transportKey + card.uid) == done)
        #expect(chip.answer([0xD4, 0x40, 0x01, 0xC1, 0x05, 0x01], field: &field) != done)
        // Access conditions: block 8 of sector 2 with C1C2C3 110 (increment with key B only,
        // decrement with key A or B); trailer 011, new keys A 0A..., B 0B....
        let keyA = [UInt8](repeating: 0x0A, count: 6)
        let keyB = [UInt8](repeating: 0x0B, count: 6)
        list()
        #expect(send([0x60, 0x08] + Self.transportKey + card.uid) == done)
        #expect(send([0xA0, 0x08] + Self.valueBlock(500, address: 8)) == done)
        #expect(send([0xA0, 0x0B] + keyA + [0x6E, 0x17, 0x89, 0x69] + keyB) == done)
        list()
        #expect(send([0x60, 0x08] + keyA + card.uid) == done)
        #expect(send([0xC0, 0x08, 0x14, 0x00, 0x00, 0x00]) == done)
        #expect(send([0xB0, 0x08]) == done)
        #expect(try blocks()[8] == Self.valueBlock(480, address: 8))
        #expect(send([0xC1, 0x08, 0x14, 0x00, 0x00, 0x00]) == refused)
        list()
        #expect(send([0x61, 0x08] + keyB + card.uid) == done)
        #expect(send([0xC1, 0x08, 0x14, 0x00, 0x00, 0x00]) == done)
        #expect(send([0xB0, 0x08]) == done)
        #expect(try blocks()[8] == Self.valueBlock(500, address: 8))
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
