import CardFlow
import CardFlowISO15693
import CardFlowSimulator
import Testing

@Suite("ISO 15693 client")
struct ISO15693TagClientTests {
    func reader(_ tag: SimulatedISO15693Tag) async -> (Reader, VirtualCCIDReader) {
        let virtual = VirtualCCIDReader()
        await virtual.insert(tag)
        return (Reader.simulated(virtual), virtual)
    }

    @Test func identifiesReadsAndWrites() async throws {
        let (reader, virtual) = await reader(SimulatedISO15693Tag(seed: 3, blockSize: 4, blockCount: 28))
        try await reader.withSession { session in
            let tag = CardFlowISO15693.ISO15693Tag(channel: session)
            let uid = try await tag.uid()
            #expect(uid.first == 0xE0)
            let info = try await tag.systemInformation()
            #expect(info.blockCount == 28 && info.blockSize == 4 && info.uid == uid)
            #expect(try await tag.readBlocks(1, count: 2) == [0x10, 0x11, 0x12, 0x13, 0x20, 0x21, 0x22, 0x23])
            try await tag.writeBlocks(4, data: [1, 2, 3, 4, 5, 6, 7, 8])
            #expect(try await tag.readBlocks(4, count: 2) == [1, 2, 3, 4, 5, 6, 7, 8])
            await #expect(throws: ISO15693Error.notWholeBlocks(length: 3, blockSize: 4)) {
                try await tag.writeBlocks(0, data: [1, 2, 3])
            }
        }
        let stored = try #require(await virtual.card() as? SimulatedISO15693Tag)
        #expect(stored.blocks[4] == [1, 2, 3, 4])
    }

    @Test func reversedByteOrderPerBlock() async throws {
        let (reader, virtual) = await reader(SimulatedISO15693Tag(seed: 3))
        try await reader.withSession { session in
            let tag = CardFlowISO15693.ISO15693Tag(channel: session, byteOrder: .reversedPerBlock)
            #expect(try await tag.readBlocks(1, count: 1) == [0x13, 0x12, 0x11, 0x10])
            try await tag.writeBlocks(2, data: [0xAA, 0xBB, 0xCC, 0xDD])
        }
        let stored = try #require(await virtual.card() as? SimulatedISO15693Tag)
        #expect(stored.blocks[2] == [0xDD, 0xCC, 0xBB, 0xAA])
    }

    @Test func lockedBlocksAndTagErrorsAreTyped() async throws {
        let (reader, _) = await reader(SimulatedISO15693Tag(seed: 3))
        try await reader.withSession { session in
            let tag = CardFlowISO15693.ISO15693Tag(channel: session)
            try await tag.lockBlock(5)
            await #expect(throws: ISO15693Error.blockLocked(5)) {
                try await tag.writeBlocks(5, data: [0, 0, 0, 0], blockSize: 4)
            }
            await #expect(throws: ISO15693Error.tagError(code: 0x11)) { try await tag.lockBlock(5) }
        }
    }
}

extension ISO15693TagClientTests {
    @Test func exchangeWritesTheAnswerBackToTheSameTag() async throws {
        let (reader, virtual) = await reader(SimulatedISO15693Tag(seed: 4, blockSize: 4, blockCount: 8))
        let flow = ISO15693Exchange.flow { data in data.map { $0 ^ 0xFF } }
        let result = try await reader.run(flow).value
        #expect(result.written == result.read.map { $0 ^ 0xFF })
        let stored = try #require(await virtual.card() as? SimulatedISO15693Tag)
        #expect(stored.blocks.flatMap { $0 } == result.written)
    }

    @Test func anotherTagDuringTheServerCallIsNotWritten() async throws {
        let (reader, virtual) = await reader(SimulatedISO15693Tag(seed: 4, blockSize: 4, blockCount: 4))
        let stranger = SimulatedISO15693Tag(seed: 5, blockSize: 4, blockCount: 4)
        let flow = ISO15693Exchange.flow { data in
            // While the "server" works, the tag is swapped for another one.
            _ = await virtual.removeCard()
            await virtual.insert(stranger)
            return data.map { $0 ^ 0xFF }
        }
        var policy = SessionPolicy()
        policy.cardReturnTimeout = .milliseconds(300)
        let run = reader.run(flow, policy: policy)
        let events = Task {
            var all: [FlowEvent] = []; for await event in run.progress { all.append(event) }; return all
        }
        await #expect(throws: SessionError.self) { try await run.value }
        #expect(await events.value.contains { if case .wrongCard = $0 { true } else { false } })
        let onReader = try #require(await virtual.card() as? SimulatedISO15693Tag)
        #expect(onReader.blocks == stranger.blocks, "nothing was written to the other tag")
    }
}

extension ISO15693TagClientTests {
    @Test func readmeExample() async throws {
        let (reader, _) = await reader(SimulatedISO15693Tag(seed: 6))
        let result = try await reader.run(
            ISO15693Exchange.flow(byteOrder: .reversedPerBlock) { data in data.reversed() }
        ).value
        #expect(result.written.count == result.read.count)
    }
}

extension ISO15693TagClientTests {
    @Test func addressedRequestsThroughTheTransparentExchange() async throws {
        let (reader, virtual) = await reader(SimulatedISO15693Tag(seed: 7, blockSize: 4, blockCount: 16))
        try await reader.withSession { session in
            let tag = CardFlowISO15693.ISO15693Tag(channel: session)
            let uid = try await tag.uid()
            #expect(
                try await tag.readMultipleBlocks(1, count: 3, blockSize: 4, uid: uid)
                    == [0x10, 0x11, 0x12, 0x13, 0x20, 0x21, 0x22, 0x23, 0x30, 0x31, 0x32, 0x33])
            try await tag.writeBlockDirectly(9, data: [9, 8, 7, 6], uid: uid)
            #expect(try await tag.readMultipleBlocks(9, count: 1, blockSize: 4) == [9, 8, 7, 6])
            // Addressed to another UID: the tag stays silent.
            await #expect(throws: ISO15693Error.noResponse) {
                try await tag.writeBlockDirectly(9, data: [0, 0, 0, 0], uid: [0xE0, 0x04, 1, 2, 3, 4, 5, 6])
            }
        }
        let stored = try #require(await virtual.card() as? SimulatedISO15693Tag)
        #expect(stored.blocks[9] == [9, 8, 7, 6])
    }
}
