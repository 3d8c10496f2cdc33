import CardFlow
import CardFlowNDEF
import CardFlowSimulator
import Testing

@Suite("NDEF on Type 4 tags")
struct Type4TagTests {
    func reader(_ tag: NDEFType4Tag) async -> (Reader, VirtualCCIDReader) {
        let virtual = VirtualCCIDReader()
        await virtual.insert(tag)
        return (Reader.simulated(virtual), virtual)
    }

    @Test func writeThenReadRoundTrips() async throws {
        let (reader, virtual) = await reader(
            NDEFType4Tag(seed: 1, capacity: 2048, maxCommandData: 0x34, maxResponseData: 0x3B))
        let message = (0..<1500).map { UInt8($0 % 253) }
        try await reader.withSession { session in try await Type4Tag(channel: session).writeMessageBytes(message) }
        let back = try await reader.withSession { session in try await Type4Tag(channel: session).readMessageBytes() }
        #expect(back == message)
        let stored = try #require(await virtual.card() as? NDEFType4Tag)
        #expect(stored.message == message)
    }

    @Test func capacityAndReadOnlyAreEnforcedBeforeWriting() async throws {
        let (reader, _) = await reader(NDEFType4Tag(seed: 1, capacity: 64))
        await #expect(throws: NDEFTagError.messageTooLarge(size: 63, capacity: 62)) {
            try await reader.withSession { session in
                try await Type4Tag(channel: session).writeMessageBytes(Array(repeating: 1, count: 63))
            }
        }
        let (locked, _) = await self.reader(NDEFType4Tag(seed: 2, message: [0xD0, 0x00, 0x00], readOnly: true))
        await #expect(throws: NDEFTagError.readOnly) {
            try await locked.withSession { session in
                try await Type4Tag(channel: session).writeMessageBytes([0xD0, 0x00, 0x00])
            }
        }
    }

    @Test func aCardWithoutTheApplicationIsNotAnNDEFTag() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(ISO7816Card(seed: 1))
        await #expect(throws: NDEFTagError.notAnNDEFTag) {
            try await Reader.simulated(virtual).withSession { session in
                try await Type4Tag(channel: session).readMessageBytes()
            }
        }
    }

    @Test func aTagLiftedMidWriteHoldsNoPartialMessage() async throws {
        let (reader, virtual) = await reader(
            NDEFType4Tag(seed: 1, capacity: 1024, message: [0xD0, 0x00, 0x00], maxCommandData: 0x20))
        // SELECT app, SELECT CC, 2 READs of the CC, SELECT NDEF, NLEN=0, then 2 data chunks: lift.
        await virtual.liftCard(afterAPDUs: 8)
        await #expect(throws: (any Error).self) {
            try await reader.withSession { session in
                try await Type4Tag(channel: session).writeMessageBytes(Array(repeating: 0x41, count: 200))
            }
        }
        let lifted = try #require(await virtual.lastKnownCard() as? NDEFType4Tag)
        #expect(lifted.message.isEmpty, "NLEN stays 0 until the whole message is written")
    }
}
