import CardFlow
import CardFlowNDEF
import CardFlowSimulator
import Testing

@Suite("NDEF on Type 2 tags")
struct Type2TagTests {
    func reader(_ tag: NDEFType2Tag) async -> (Reader, VirtualCCIDReader) {
        let virtual = VirtualCCIDReader()
        await virtual.insert(tag)
        return (Reader.simulated(virtual), virtual)
    }

    @Test("write then read round trips, short and long TLV lengths", arguments: [0, 5, 100, 300])
    func roundTrip(_ count: Int) async throws {
        let (reader, _) = await reader(NDEFType2Tag(seed: 1, dataAreaSize: 496))
        let message = (0..<count).map { UInt8(($0 * 7) % 256) }
        try await reader.withSession { session in try await Type2Tag(channel: session).writeMessageBytes(message) }
        let back = try await reader.withSession { session in try await Type2Tag(channel: session).readMessageBytes() }
        #expect(back == message)
    }

    @Test func capacityAndReadOnly() async throws {
        let (reader, _) = await reader(NDEFType2Tag(seed: 1, dataAreaSize: 48))
        await #expect(throws: NDEFTagError.messageTooLarge(size: 47, capacity: 46)) {
            try await reader.withSession { session in
                try await Type2Tag(channel: session).writeMessageBytes(Array(repeating: 1, count: 47))
            }
        }
        let (locked, _) = await self.reader(NDEFType2Tag(seed: 2, message: [0xD0, 0x00, 0x00], readOnly: true))
        await #expect(throws: NDEFTagError.readOnly) {
            try await locked.withSession { session in
                try await Type2Tag(channel: session).writeMessageBytes([0xD0, 0x00, 0x00])
            }
        }
        #expect(
            try await locked.withSession { session in try await Type2Tag(channel: session).readMessageBytes() } == [
                0xD0, 0x00, 0x00,
            ])
    }

    @Test func aTagLiftedMidWriteHoldsAnEmptyMessage() async throws {
        let (reader, virtual) = await reader(NDEFType2Tag(seed: 1, dataAreaSize: 144, message: [0xD0, 0x00, 0x00]))
        // CC read, 9 data-area reads, emptied header page, then 3 message pages: lift.
        await virtual.liftCard(afterAPDUs: 14)
        await #expect(throws: (any Error).self) {
            try await reader.withSession { session in
                try await Type2Tag(channel: session).writeMessageBytes(Array(repeating: 0x41, count: 60))
            }
        }
        let lifted = try #require(await virtual.lastKnownCard() as? NDEFType2Tag)
        #expect(lifted.memory[16] == 0x03 && lifted.memory[17] == 0x00, "the NDEF TLV length stays 0 until the end")
    }
}
