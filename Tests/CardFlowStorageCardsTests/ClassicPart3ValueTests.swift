import CardFlow
import CardFlowSimulator
import CardFlowSimulatorCards
import Testing

@testable import CardFlowStorageCards

/// PC/SC part 3's increment/decrement (`FF C2 00 03`) on readers without the ACS value commands
/// (issue 35, item 11): a decrement with key A where the access bits allow it but no write
/// (conditions 110 and 001) works on an Identiv and a generic reader, where read-modify-write
/// could not; a reader without the command keeps read-modify-write.
@Suite("MIFARE Classic value operations through PC/SC part 3")
struct ClassicPart3ValueTests {
    @Test("Identiv's published example encodes byte for byte")
    func identivVector() throws {
        // uTrust 3720F / CLOUD 47x0 F reference manuals, PAPDU_MIFARE_VALUE_BLK_NEW: block 5 up by 100.
        let command = try PCSCStorageCommand.part3ValueOperation(.increment, block: 5, amount: 100)
        #expect(
            command.encoded() == [
                0xFF, 0xC2, 0x00, 0x03, 0x0B, 0xA0, 0x09, 0x80, 0x01, 0x05, 0x81, 0x04, 0x64, 0x00, 0x00, 0x00, 0x00,
            ])
        let decrement = try PCSCStorageCommand.part3ValueOperation(.decrement, block: 4, amount: 0x0102_0304)
        #expect(Array(decrement.encoded()[5...6]) == [0xA1, 0x09])
        #expect(Array(decrement.encoded()[12...15]) == [0x04, 0x03, 0x02, 0x01])
        #expect(throws: StorageCardError.self) {
            try PCSCStorageCommand.part3ValueOperation(.store, block: 4, amount: 1)
        }
        #expect(throws: StorageCardError.self) {
            try PCSCStorageCommand.part3ValueOperation(.decrement, block: 4, amount: -1)
        }
        #expect(
            StorageReaderVariant.identiv.part3ValueOperations && StorageReaderVariant.genericPart3.part3ValueOperations)
        #expect(!StorageReaderVariant.omnikey.part3ValueOperations && !StorageReaderVariant.acs.part3ValueOperations)
    }

    /// Sector 3 with value block 12 holding `balance`, data blocks under `condition` (C1C2C3),
    /// the trailer under 011 (key B writes it), key A the transport key.
    static func purse(_ reader: Reader, balance: Int32, condition: UInt8) async throws {
        try await reader.withSession { session in
            let card = try await ClassicClient.open(on: session)
            try await card.authenticate(sector: 3, keyType: .a, key: .transport)
            try await card.writeValue(balance, block: 12)
            let data = try #require(ClassicAccessCondition(rawValue: condition))
            try await card.writeTrailer(
                ClassicSectorTrailer(
                    keyA: .transport,
                    accessBits: try ClassicAccessBits(
                        dataBlocks: [data, data, data], trailer: #require(ClassicAccessCondition(rawValue: 0b011))),
                    generalPurposeByte: 0x69, keyB: try ClassicKey([0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5])),
                sector: 3)
        }
    }

    static func withKeyA<T: Sendable>(_ reader: Reader, _ body: @Sendable (ClassicClient) async throws -> T)
        async throws -> T
    {
        try await reader.withSession { session in
            let card = try await ClassicClient.open(on: session)
            try await card.authenticate(sector: 3, keyType: .a, key: .transport)
            return try await body(card)
        }
    }

    static func genericReader() async -> Reader {
        // A vendor the reader-family table does not list: PC/SC part 3 as written.
        let virtual = VirtualCCIDReader(configuration: VirtualReaderConfiguration(vendorID: 0x1C34, productID: 0x7241))
        await virtual.insert(SimulatedMIFAREClassicCard(seed: 35, size: .oneK))
        return Reader.simulated(virtual, id: "sim:0")
    }

    @Test("key A decrements under 001 and 110 on an Identiv and a generic reader; increment stays refused")
    func decrementWithKeyA() async throws {
        let identiv = try await ClassicSimulatedReaders.open(profile: ClassicSimulatedReaders.identivProfile).0
        for (name, reader) in [("Identiv", identiv), ("generic", await Self.genericReader())] {
            for condition: UInt8 in [0b001, 0b110] {
                try await Self.purse(reader, balance: 500, condition: condition)
                let variant = try await Self.withKeyA(reader) { card in
                    try await card.decrement(block: 12, by: 20)
                    return card.variant
                }
                #expect(variant.part3ValueOperations, "\(name)")
                #expect(
                    try await Self.withKeyA(reader) { try await $0.readValue(block: 12) } == 480, "\(name) \(condition)"
                )
                await #expect(throws: StorageCardError.self, "\(name) \(condition): increment with key A") {
                    try await Self.withKeyA(reader) { try await $0.increment(block: 12, by: 1) }
                }
                #expect(try await Self.withKeyA(reader) { try await $0.readValue(block: 12) } == 480)
                // Back to the transport configuration for the next condition (key B may write the trailer).
                try await reader.withSession { session in
                    let card = try await ClassicClient.open(on: session)
                    try await card.authenticate(
                        sector: 3, keyType: .b, key: try ClassicKey([0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5]))
                    try await card.writeTrailer(
                        ClassicSectorTrailer(
                            keyA: .transport, accessBits: .transport, generalPurposeByte: 0x69, keyB: .transport),
                        sector: 3)
                }
            }
        }
    }

    @Test("an OMNIKEY keeps read-modify-write: its decrement under 001 needs a write the bits deny")
    func omnikeyReadModifyWrite() async throws {
        let reader = try await ClassicSimulatedReaders.open(profile: ClassicSimulatedReaders.omnikeyProfile).0
        try await Self.purse(reader, balance: 500, condition: 0b001)
        await #expect(throws: StorageCardError.self) {
            try await Self.withKeyA(reader) { try await $0.decrement(block: 12, by: 20) }
        }
        #expect(try await Self.withKeyA(reader) { try await $0.readValue(block: 12) } == 500)
    }
}
