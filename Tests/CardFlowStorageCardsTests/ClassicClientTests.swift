import CardFlow
import CardFlowNDEF
import CardFlowSimulator
import Testing

@testable import CardFlowStorageCards

/// The client end to end against the simulated MIFARE Classic card, on readers of each family.
@Suite("MIFARE Classic client against the simulated card")
struct ClassicClientTests {
    static let profiles: [(String, StorageReaderFamily)] = [
        (ClassicSimulatedReaders.acsProfile, .acs),
        (ClassicSimulatedReaders.identivProfile, .identiv),
        (ClassicSimulatedReaders.omnikeyProfile, .omnikey),
    ]

    @Test(
        "blocks, values and NDEF on each reader family's profile",
        arguments: [
            ClassicSimulatedReaders.acsProfile, ClassicSimulatedReaders.identivProfile,
            ClassicSimulatedReaders.omnikeyProfile,
        ])
    func endToEnd(profile: String) async throws {
        let family = try #require(Self.profiles.first { $0.0 == profile }?.1)
        let (reader, virtual) = try await ClassicSimulatedReaders.open(profile: profile)
        let text = try TextRecord("Grüße from \(family)", language: "de")
        let keyB = try ClassicKey([0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
        let (read, value, restored) = try await reader.withSession { session in
            let card = try await ClassicClient.open(on: session)
            #expect(card.variant.family == family && card.layout == .oneK)
            try await card.authenticate(sector: 1, keyType: .a, key: .transport)
            let data = (0..<16).map { UInt8($0 * 3) }
            try await card.writeBlock(4, data: data)
            #expect(try await card.readBlock(4) == data)
            try await card.writeValue(100, block: 5)
            try await card.increment(block: 5, by: 5)
            try await card.decrement(block: 5, by: 3)
            try await card.restore(from: 5, to: 6)
            let value = try await card.readValue(block: 5)
            let restored = try await card.readValueBlock(6)
            try await card.formatForNDEF(keyB: keyB)
            try await card.writeNDEFMessage(NDEFMessage([text.record]))
            return (try await card.readNDEFMessage(), value, restored)
        }
        #expect(value == 102)
        #expect(restored.value == 102)
        #expect(read.records.count == 1)
        #expect(try TextRecord(read.records[0], mode: .strict) == text)
        let stored = try #require(await virtual.card() as? SimulatedMIFAREClassicCard)
        #expect(stored.blocks[1][0...3] == [0x14, 0x01, 0x03, 0xE1], "MAD1 with 15 NDEF sectors, CRC 14")
        #expect(stored.blocks[3][6...9] == [0x78, 0x77, 0x88, 0xC1])
        #expect(stored.blocks[7] == bytes("D3F7D3F7D3F7 7F0788 40") + keyB.bytes)
        #expect(stored.blocks[4][0] == 0x03)
    }

    @Test("NDEF on a 4K card: MAD2 in sector 16, 16-block sectors")
    func fourK() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(SimulatedMIFAREClassicCard(seed: 4, size: .fourK))
        let reader = Reader.simulated(virtual)
        let long = [UInt8](repeating: 0x5A, count: 1500)
        let message = NDEFMessage([NDEFRecord(tnf: .media, type: Array("application/octet-stream".utf8), payload: long)]
        )
        let read = try await reader.withSession { session in
            let card = try await ClassicClient.open(on: session)
            #expect(card.layout == .fourK)
            try await card.formatForNDEF(keyB: .transport)
            let mad = try await card.readMAD()
            #expect(mad.version == 2 && mad.sectors(for: .ndef).count == 38)
            try await card.writeNDEFMessage(message)
            return try await card.readNDEFMessage()
        }
        #expect(read == message)
    }

    @Test("a wrong key is a typed error naming the likely cause; retry works after reconnecting")
    func wrongKey() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(SimulatedMIFAREClassicCard(seed: 1))
        let reader = Reader.simulated(virtual)
        try await reader.withSession { session in
            let card = try await ClassicClient.open(on: session)
            let wrong = try ClassicKey([1, 2, 3, 4, 5, 6])
            await #expect(
                throws: StorageCardError.authenticationFailed(
                    block: 4, keyType: .a, statusWord: StatusWord(0x6300), likelyCause: StorageCardError.wrongKeyOrSlot)
            ) {
                try await card.authenticate(sector: 1, keyType: .a, key: wrong)
            }
            // The card left the selected state: even the right key fails until re-activation.
            await #expect(throws: StorageCardError.self) {
                try await card.authenticate(sector: 1, keyType: .a, key: .transport)
            }
            try await session.reconnect()
            try await card.authenticate(sector: 1, keyType: .a, key: .transport)
            #expect(try await card.readBlock(4) == [UInt8](repeating: 0, count: 16))
        }
    }

    @Test("the wrong key slot for the family fails the same way")
    func wrongSlot() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(SimulatedMIFAREClassicCard(seed: 1))
        try await Reader.simulated(virtual).withSession { session in
            let card = try await ClassicClient.open(on: session)
            try await card.loadKey(.transport, keyType: .a, slot: 1)
            do {
                try await card.authenticate(block: 4, keyType: .a, slot: 0)
                Issue.record("authentication with an empty slot succeeded")
            } catch let StorageCardError.authenticationFailed(_, _, statusWord, cause) {
                #expect(statusWord == StatusWord(0x6300) && cause == StorageCardError.wrongKeyOrSlot)
            }
        }
    }

    @Test("a write the access bits forbid is a typed error; reads outside the authenticated sector are refused")
    func forbiddenWrite() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(SimulatedMIFAREClassicCard(seed: 2))
        let reader = Reader.simulated(virtual)
        try await reader.withSession { session in
            let card = try await ClassicClient.open(on: session)
            try await card.authenticate(sector: 2, keyType: .a, key: .transport)
            // Data blocks read-only (010), trailer still writable with key A (001).
            let readOnly = try ClassicAccessBits(
                dataBlocks: Array(repeating: ClassicAccessCondition(rawValue: 0b010)!, count: 3),
                trailer: ClassicAccessCondition(rawValue: 0b001)!)
            try await card.writeTrailer(
                ClassicSectorTrailer(
                    keyA: .transport, accessBits: readOnly, generalPurposeByte: 0x69, keyB: .transport),
                sector: 2)
            await #expect(throws: StorageCardError.notAuthenticated(block: 4)) { try await card.readBlock(4) }
            do {
                try await card.writeBlock(8, data: [UInt8](repeating: 1, count: 16))
                Issue.record("write to a read-only block succeeded")
            } catch let StorageCardError.operationRefused(instruction, block, statusWord, _) {
                #expect(instruction == 0xD6 && block == 8 && statusWord == StatusWord(0x6300))
            }
            await #expect(throws: StorageCardError.plainWriteRefused(block: 0, reason: "the manufacturer block")) {
                try await card.writeBlock(0, data: [UInt8](repeating: 0, count: 16))
            }
            await #expect(throws: StorageCardError.self) {
                try await card.writeBlock(7, data: [UInt8](repeating: 0, count: 16))
            }
        }
        let stored = try #require(await virtual.card() as? SimulatedMIFAREClassicCard)
        #expect(stored.blocks[8] == [UInt8](repeating: 0, count: 16))
    }

    @Test("a trailer that would lock the sector is refused unless forced")
    func lockingTrailer() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(SimulatedMIFAREClassicCard(seed: 3))
        let frozen = try ClassicAccessBits(
            dataBlocks: Array(repeating: ClassicAccessCondition(rawValue: 0b000)!, count: 3),
            trailer: ClassicAccessCondition(rawValue: 0b111)!)
        let trailer = ClassicSectorTrailer(
            keyA: .transport, accessBits: frozen, generalPurposeByte: 0, keyB: .transport)
        try await Reader.simulated(virtual).withSession { session in
            let card = try await ClassicClient.open(on: session)
            try await card.authenticate(sector: 3, keyType: .a, key: .transport)
            await #expect(throws: StorageCardError.trailerWouldLockSector(sector: 3)) {
                try await card.writeTrailer(trailer, sector: 3)
            }
            let untouched = try #require(await virtual.card() as? SimulatedMIFAREClassicCard)
            #expect(untouched.blocks[15] == SimulatedMIFAREClassicCard.transportTrailer)
            try await card.writeTrailer(trailer, sector: 3, force: true)
            // Now no key can write the trailer: the card refuses.
            await #expect(throws: StorageCardError.self) {
                try await card.writeTrailer(.transport, sector: 3, force: true)
            }
        }
        let stored = try #require(await virtual.card() as? SimulatedMIFAREClassicCard)
        #expect(stored.blocks[15][6...8] == [0x77, 0x87, 0x88])
    }

    @Test("value operations refuse a malformed value block: the client when it reads the block, the card otherwise")
    func malformedValueBlock() async throws {
        // OMNIKEY: read-modify-write, so the client sees the malformed block itself.
        let omnikey = VirtualCCIDReader(configuration: VirtualReaderConfiguration(vendorID: 0x076B, productID: 0x5422))
        await omnikey.insert(SimulatedMIFAREClassicCard(seed: 5))
        try await Reader.simulated(omnikey).withSession { session in
            let card = try await ClassicClient.open(on: session)
            #expect(card.variant == .omnikey)
            try await card.authenticate(sector: 1, keyType: .a, key: .transport)
            try await card.writeBlock(5, data: [UInt8](repeating: 7, count: 16))
            await #expect(throws: StorageCardError.notAValueBlock(block: 5)) {
                try await card.increment(block: 5, by: 1)
            }
        }
        // Identiv: PC/SC part 3's increment, which the card refuses (its value block check).
        let identiv = VirtualCCIDReader(configuration: VirtualReaderConfiguration(vendorID: 0x04E6, productID: 0x5591))
        await identiv.insert(SimulatedMIFAREClassicCard(seed: 5))
        try await Reader.simulated(identiv).withSession { session in
            let card = try await ClassicClient.open(on: session)
            #expect(card.variant == .identiv)
            try await card.authenticate(sector: 1, keyType: .a, key: .transport)
            try await card.writeBlock(5, data: [UInt8](repeating: 7, count: 16))
            let error = await #expect(throws: StorageCardError.self) { try await card.increment(block: 5, by: 1) }
            guard case .operationRefused(let instruction, let block, _, let cause)? = error else {
                Issue.record("not a refusal: \(String(describing: error))")
                return
            }
            #expect(instruction == 0xC2 && block == 5 && cause.contains("no value block"))
        }
        let stored = try #require(await identiv.card() as? SimulatedMIFAREClassicCard)
        #expect(stored.blocks[5] == [UInt8](repeating: 7, count: 16))
    }

    @Test("a card lifted mid-write is a typed card-lost error")
    func liftedMidWrite() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(SimulatedMIFAREClassicCard(seed: 6))
        // LOAD KEYS and GENERAL AUTHENTICATE reach the card; it leaves before the write.
        await virtual.liftCard(afterAPDUs: 2)
        let reader = Reader.simulated(virtual)
        await #expect {
            try await reader.withSession { session in
                let card = try await ClassicClient.open(on: session)
                try await card.authenticate(sector: 1, keyType: .a, key: .transport)
                try await card.writeBlock(4, data: [UInt8](repeating: 9, count: 16))
            }
        } throws: { error in
            guard case .cardLost = error as? StorageCardError else { return false }
            return error.meansCardLost
        }
        let lifted = try #require(await virtual.lastKnownCard() as? SimulatedMIFAREClassicCard)
        #expect(lifted.blocks[4] == [UInt8](repeating: 0, count: 16))
    }

    @Test("a card that is no MIFARE Classic is refused by open")
    func notClassic() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(SimulatedISO15693Tag(seed: 1))
        await #expect(throws: StorageCardError.self) {
            try await Reader.simulated(virtual).withSession { session in
                _ = try await ClassicClient.open(on: session)
            }
        }
    }
}
