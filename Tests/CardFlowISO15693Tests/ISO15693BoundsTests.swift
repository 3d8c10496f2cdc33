import CardFlow
import CardFlowISO15693
import CardFlowSimulator
import Testing

/// Block numbers, counts and sizes from callers (cardctl options, flows) or from the tag: ISO
/// 15693 addresses blocks with one byte (0...255), and each of these once trapped on `UInt8(_:)`,
/// a reversed range or a division by zero instead of throwing.
@Suite("ISO 15693 block numbers and counts out of range")
struct ISO15693BoundsTests {
    /// A 256-block tag, so every block a valid request names exists.
    func withTag<T: Sendable>(_ body: @escaping @Sendable (CardFlowISO15693.ISO15693Tag) async throws -> T) async throws
        -> T
    {
        let virtual = VirtualCCIDReader()
        await virtual.insert(SimulatedISO15693Tag(seed: 3, blockSize: 4, blockCount: 256))
        return try await Reader.simulated(virtual).withSession { session in
            try await body(CardFlowISO15693.ISO15693Tag(channel: session))
        }
    }

    @Test(arguments: [(0, -1), (-1, 1), (250, 10), (256, 1), (300, 1), (Int.max, 2), (0, Int.max)])
    func readBlocksOutsideTheAddressRange(_ first: Int, _ count: Int) async throws {
        await #expect(throws: ISO15693Error.blockOutOfRange(first: first, count: count)) {
            try await withTag { tag in try await tag.readBlocks(first, count: count, blockSize: 4) }
        }
    }

    @Test func readingNoBlocksReadsNothing() async throws {
        #expect(try await withTag { tag in try await tag.readBlocks(255, count: 0, blockSize: 4) } == [])
        #expect(try await withTag { tag in try await tag.readBlocks(255, count: 1, blockSize: 4) }.count == 4)
    }

    @Test(arguments: [(300, 4), (-1, 4), (254, 12), (256, 4)])
    func writeBlocksOutsideTheAddressRange(_ first: Int, _ length: Int) async throws {
        await #expect(throws: ISO15693Error.blockOutOfRange(first: first, count: length / 4)) {
            try await withTag { tag in
                try await tag.writeBlocks(first, data: Array(repeating: 1, count: length), blockSize: 4)
            }
        }
    }

    @Test(arguments: [0, -4])
    func blockSizesBelowOneAreRefused(_ size: Int) async throws {
        await #expect(throws: ISO15693Error.invalidBlockSize(size)) {
            try await withTag { tag in try await tag.writeBlocks(0, data: [1, 2, 3, 4], blockSize: size) }
        }
        await #expect(throws: ISO15693Error.invalidBlockSize(size)) {
            try await withTag { tag in try await tag.readBlocks(0, count: 1, blockSize: size) }
        }
    }

    @Test func directCommandsCheckBlockNumbers() async throws {
        await #expect(throws: ISO15693Error.blockOutOfRange(first: -1, count: 1)) {
            try await withTag { tag in try await tag.readMultipleBlocks(-1, count: 1, blockSize: 4) }
        }
        await #expect(throws: ISO15693Error.blockOutOfRange(first: 256, count: 1)) {
            try await withTag { tag in try await tag.writeBlockDirectly(256, data: [1, 2, 3, 4]) }
        }
        await #expect(throws: ISO15693Error.blockOutOfRange(first: -1, count: 1)) {
            try await withTag { tag in try await tag.lockBlock(-1) }
        }
    }

    @Test func overlongTransparentRequestIsRefused() async throws {
        await #expect(throws: ISO15693Error.requestTooLong(300)) {
            try await withTag { tag in try await tag.transceive(Array(repeating: 0, count: 300)) }
        }
    }

    /// The exchange flow's first block past the tag's end used to make a negative count.
    @Test func exchangeStartingPastTheEnd() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(SimulatedISO15693Tag(seed: 3, blockSize: 4, blockCount: 28))
        let reader = Reader.simulated(virtual)
        for flow in [
            ISO15693Exchange.flow(firstBlock: 40) { $0 }, ISO15693Exchange.flow(firstBlock: 0, blockCount: -3) { $0 },
        ] {
            do {
                _ = try await reader.run(flow).value
                Issue.record("the exchange ran")
            } catch let error as FlowError {
                #expect(error.underlying is ISO15693Error, "\(error)")
            }
        }
    }
}
