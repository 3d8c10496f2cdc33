import CardFlow
import CardFlowSimulator
import Testing

@testable import CardFlowStorageCards

/// `classic ndef format` on a card where one sector has another key A (issue 35, item 12):
/// nothing is written, so no MAD claims sectors that were never formatted.
@Suite("Classic NDEF format authenticates every sector first")
struct ClassicNDEFFormatPreflightTests {
    @Test("a sector with another key A: the format fails before the MAD is written")
    func preflight() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(SimulatedMIFAREClassicCard(seed: 12))
        let reader = Reader.simulated(virtual)
        let otherKey = try ClassicKey(bytes("A1A2A3A4A5A6"))
        // Sector 9 gets another key A (transport access bits, key B unchanged).
        try await reader.withSession { session in
            let card = try await ClassicClient.open(on: session)
            try await card.authenticate(sector: 9, keyType: .a, key: .transport)
            try await card.writeTrailer(
                ClassicSectorTrailer(
                    keyA: otherKey, accessBits: .transport, generalPurposeByte: 0x69, keyB: .transport),
                sector: 9)
        }
        let failure = await #expect(throws: StorageCardError.self) {
            try await reader.withSession { session in
                try await ClassicClient.open(on: session).formatForNDEF(keyB: .transport)
            }
        }
        guard case .authenticationFailed(let block, _, _, _) = failure else {
            Issue.record("expected authenticationFailed, got \(String(describing: failure))")
            return
        }
        #expect(block == 36)
        let stored = try #require(await virtual.card() as? SimulatedMIFAREClassicCard)
        #expect(stored.blocks[1] == [UInt8](repeating: 0, count: 16), "the MAD was written")
        #expect(stored.blocks[3] == ClassicSectorTrailer.transport.block, "sector 0's trailer changed")
        #expect(stored.blocks[4] == [UInt8](repeating: 0, count: 16), "the first NDEF block was written")
    }
}
