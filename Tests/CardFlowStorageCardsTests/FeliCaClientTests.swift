import CardFlow
import CardFlowNDEF
import CardFlowSimulator
import Testing

@testable import CardFlowStorageCards

/// The FeliCa client end to end against the simulated FeliCa Lite-S, on a reader of each family:
/// ACR122U (PN532 route), ACR1252U (ACS direct transmit), uTrust 3700 F and OMNIKEY 5422 (part 3
/// transparent exchange).
@Suite("FeliCa client against the simulated Lite-S")
struct FeliCaClientTests {
    static let profiles = NTAGClientTests.profiles
    static let profileNames = NTAGClientTests.profileNames

    @Test("poll, blocks, memory configuration, NDEF format/write/read on each reader family", arguments: profileNames)
    func endToEnd(profile: String) async throws {
        let route = try #require(Self.profiles.first { $0.0 == profile }?.1)
        let (reader, virtual) = try await ClassicSimulatedReaders.open(card: "felica-lite-s", profile: profile)
        let message = NDEFMessage([try URIRecord("https://example.org/felica/\(route.rawValue)").record])
        let encoded = try message.encoded()
        let (product, idm, uid, blocks, ndef, attributes) = try await reader.withSession { session in
            let card = try await FeliCaClient.open(on: session)
            #expect(card.variant.rawFrameRoute == route)
            let uid = try await StorageCardUID.read(from: session)
            try await card.write(block: 2, [UInt8](repeating: 0x5A, count: 16))
            try await card.write(block: 3, [UInt8](0..<16))
            // Five blocks: two commands (four, then one) on a Lite-S.
            let blocks = try await card.read(blocks: [2, 3, 0x0E, 0x83, 0x85])
            #expect(try await card.memoryConfiguration().ndefEnabled == false)
            // An unformatted card has no valid attribute block.
            await #expect(throws: StorageCardError.self) { try await card.readNDEFMessage() }
            let attributes = try await card.formatNDEF()
            try await card.writeNDEFMessage(encoded)
            let ndef = try await card.readNDEFMessage()
            let answer = try await card.poll(systemCode: FeliCaSystemCode.ndef)
            #expect(answer.systemCode == FeliCaSystemCode.ndef, "NDEF on: the card answers 12FC")
            try await card.finish()
            return (await card.product, await card.idm, uid, blocks, ndef, attributes)
        }
        #expect(product == .liteS)
        #expect(uid == idm, "GET DATA gives the IDm")
        #expect(blocks.count == 80)
        #expect(Array(blocks[0..<16]) == [UInt8](repeating: 0x5A, count: 16))
        #expect(Array(blocks[16..<32]) == [UInt8](0..<16))
        #expect(Array(blocks[48..<56]) == idm, "D_ID starts with the IDm")
        #expect(Array(blocks[64..<66]) == [0x88, 0xB4], "SYS_C")
        #expect(attributes.maximumBlocks == 13 && attributes.blocksPerRead == 4 && attributes.blocksPerWrite == 1)
        #expect(ndef == encoded)
        #expect(try NDEFMessage(decoding: ndef) == message)
        let card = try #require(await virtual.lastKnownCard() as? SimulatedFeliCaLiteSCard)
        #expect(card.memoryConfiguration[3] & 0x01 == 0x01)
    }

    @Test("the card's refusals are typed with both status flags and a likely cause")
    func refusals() async throws {
        let (reader, _) = try await ClassicSimulatedReaders.open(
            card: "felica-lite-s", profile: ClassicSimulatedReaders.omnikeyProfile)
        try await reader.withSession { session in
            let card = try await FeliCaClient.open(on: session)
            // D_ID is read-only; MAC (81) is not a block the model has; five blocks in one write
            // are refused by the client before anything is sent.
            await #expect(
                throws: StorageCardError.feliCaStatus(
                    command: 0x08, flag1: 0x01, flag2: 0xA8, likelyCause: FeliCaFrame.likelyCause(flag2: 0xA8))
            ) { try await card.write(block: 0x83, [UInt8](repeating: 0, count: 16)) }
            await #expect(throws: StorageCardError.self) { try await card.read(block: 0x81) }
            await #expect(throws: StorageCardError.invalidArgument("no block to read")) {
                try await card.read(blocks: [])
            }
            await #expect(throws: StorageCardError.self) { try await card.write(block: 1, [1, 2, 3]) }
            // A write through the read-only service.
            await #expect(throws: StorageCardError.self) {
                try await card.write(block: 1, [UInt8](repeating: 0, count: 16), service: .liteReadOnly)
            }
            // Polling a system the card does not have: no answer.
            await #expect(throws: StorageCardError.rfNoAnswer(command: 0x00, route: .part3TransparentExchange)) {
                try await card.poll(systemCode: 0x0003)
            }
            try await card.finish()
        }
    }

    @Test("a frozen, NDEF-less card cannot be formatted; a read-only attribute block refuses a write")
    func formatRefusals() async throws {
        let (reader, _) = try await ClassicSimulatedReaders.open(
            card: "felica-lite-s", profile: ClassicSimulatedReaders.acsProfile)
        try await reader.withSession { session in
            let card = try await FeliCaClient.open(on: session)
            var configuration = try await card.memoryConfiguration()
            configuration.bytes[2] = 0x00
            try await card.write(block: FeliCaLiteMemoryConfiguration.block, configuration.bytes)
            await #expect(throws: StorageCardError.self) { try await card.formatNDEF() }
            // A read-only attribute block written by hand.
            let readOnly = Type3AttributeBlock(blocksPerRead: 4, blocksPerWrite: 1, maximumBlocks: 13, writable: false)
            try await card.write(block: 0, readOnly.encoded())
            await #expect(throws: StorageCardError.malformedNDEF("the attribute block says read-only")) {
                try await card.writeNDEFMessage([0xD0, 0x00, 0x00])
            }
            // A message larger than 13 blocks is refused before anything is written.
            try await card.write(
                block: 0, Type3AttributeBlock(blocksPerRead: 4, blocksPerWrite: 1, maximumBlocks: 13).encoded())
            let large = [UInt8](repeating: 0x41, count: 209)
            await #expect(throws: StorageCardError.ndefTooLarge(size: 209, capacity: 208)) {
                try await card.writeNDEFMessage(large)
            }
            #expect(try await card.ndefAttributes().writeInProgress == false)
        }
    }

    /// The NDEF write of a 100-byte message sends 9 frames (attribute, 7 data blocks,
    /// attribute) after the open's Polling. Lifted after any of them, the card holds either the
    /// old message or says the write was interrupted — never a cut message read as whole — and
    /// writing again restores it.
    @Test("an NDEF write lifted after any frame", arguments: 1...11)
    func liftedMidWrite(lift: Int) async throws {
        let (reader, virtual) = try await ClassicSimulatedReaders.open(
            card: "felica-lite-s,ndef", profile: ClassicSimulatedReaders.acsProfile)
        let old = try NDEFMessage([try TextRecord("old", language: "en").record]).encoded()
        let new = try NDEFMessage([try TextRecord(String(repeating: "n", count: 90), language: "en").record]).encoded()
        try await reader.withSession { session in
            try await FeliCaClient.open(on: session).writeNDEFMessage(old)
        }
        await virtual.liftCard(afterAPDUs: lift, returnAfter: .milliseconds(30))
        // The write fails with the card gone (how depends on where it left); what matters is
        // what the card holds afterwards.
        _ = try? await reader.withSession { session in
            try await FeliCaClient.open(on: session).writeNDEFMessage(new)
        }
        await virtual.liftCard(afterAPDUs: .max)
        let deadline = ContinuousClock.now + .seconds(10)
        while await virtual.card() == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        do {
            let bytes = try await reader.withSession { session in
                try await FeliCaClient.open(on: session).readNDEFMessage()
            }
            #expect(bytes == old || bytes == new, "lift \(lift): \(bytes.hexString)")
        } catch {
            #expect(error as? StorageCardError == .ndefWriteInterrupted, "lift \(lift): \(error)")
        }
        try await reader.withSession { session in try await FeliCaClient.open(on: session).writeNDEFMessage(new) }
        let final = try await reader.withSession { session in
            try await FeliCaClient.open(on: session).readNDEFMessage()
        }
        #expect(final == new)
    }

    @Test("the NDEF tag of any kind: a FeliCa card is Type 3, an NTAG Type 2, a Classic MAD + NDEF sectors")
    func anyTag() async throws {
        let message = try NDEFMessage([try URIRecord("https://example.org/any").record]).encoded()
        let kinds = [
            "felica-lite-s,ndef": "FeliCa Type 3", "ntag215": "NFC Forum Type 2",
            "classic1k": "MIFARE Classic 1K (MAD, NDEF sectors)",
        ]
        for (card, kind) in kinds {
            let (reader, _) = try await ClassicSimulatedReaders.open(
                card: card, profile: ClassicSimulatedReaders.acsProfile)
            let read = try await reader.withSession { session in
                if card == "classic1k" {
                    try await ClassicClient.open(on: session).formatForNDEF(
                        keyB: ClassicKey([UInt8](repeating: 0x0B, count: 6)))
                }
                let tag = try await StorageNDEFTag.detect(on: session)
                #expect(tag.kind == kind, "\(card)")
                try await tag.writeMessageBytes(message)
                return try await tag.readMessageBytes()
            }
            #expect(read == message, "\(card)")
        }
    }
}
