import CardFlow
import CardFlowISO15693

/// The ISO 15693 operations of `bench ops` over the plan's block range: GET SYSTEM
/// INFORMATION, one block per READ BINARY (`FF B0`), the whole range block by block, the
/// whole range in one READ MULTIPLE BLOCKS (transparent exchange) and, with
/// ``OperationsPlan/allowWrite``, one block per UPDATE BINARY writing back the bytes read.
struct ISO15693Operations {
    let plan: OperationsPlan

    static let systemInformationRow = "get system information"
    static let readBlockRow = "read block"
    static let writeBlockRow = "write block (same bytes)"

    func rangeName(_ blocks: ClosedRange<Int>) -> String { "\(blocks.lowerBound)-\(blocks.upperBound)" }

    /// The rows after GET SYSTEM INFORMATION: one block, the range block by block, the range in
    /// one request, the write.
    func rows(_ blocks: ClosedRange<Int>) -> [String] {
        [
            Self.readBlockRow, "read blocks \(rangeName(blocks)) (one READ BINARY each)",
            "read multiple blocks \(rangeName(blocks))", Self.writeBlockRow,
        ]
    }

    /// Rows the run produces, for progress.
    var plannedOperations: Int { 5 }

    func run(_ recorder: inout OperationsRecorder) async throws {
        let tag = ISO15693Tag(channel: recorder.channel)
        var information: ISO15693SystemInformation?
        try await recorder.measure(Self.systemInformationRow) { _ in information = try await tag.systemInformation() }
        var blocks = plan.iso15693Blocks
        guard let blockSize = plan.iso15693BlockSize ?? information?.blockSize else {
            recorder.skip(
                rows(blocks), reason: "the block size is unknown: the tag did not give its system information")
            return
        }
        if let count = information?.blockCount {
            guard blocks.lowerBound < count else {
                recorder.skip(rows(blocks), reason: "the tag has \(count) blocks, none in \(rangeName(blocks))")
                return
            }
            blocks = blocks.clamped(to: 0...(count - 1))
        }
        let readRangeRow = rows(blocks)[1]
        let readMultipleRow = rows(blocks)[2]
        let first = blocks.lowerBound
        let count = blocks.count
        try await recorder.measure(Self.readBlockRow, bytes: blockSize) { run in
            _ = try await tag.readBlocks(first + run % count, count: 1, blockSize: blockSize)
        }
        try await recorder.measure(readRangeRow, bytes: blockSize * count) { _ in
            _ = try await tag.readBlocks(first, count: count, blockSize: blockSize)
        }
        try await recorder.measure(readMultipleRow, bytes: blockSize * count) { _ in
            _ = try await tag.readMultipleBlocks(first, count: count, blockSize: blockSize)
        }
        guard plan.allowWrite else {
            recorder.skip([Self.writeBlockRow], reason: "needs --allow-write (writes back the bytes it read)")
            return
        }
        guard
            let original = try await recorder.prepare(
                "reading blocks \(rangeName(blocks))", dependents: [Self.writeBlockRow],
                { try await tag.readBlocks(first, count: count, blockSize: blockSize) })
        else { return }
        try await recorder.measure(Self.writeBlockRow, bytes: blockSize, writes: true) { run in
            let index = run % count
            try await tag.writeBlocks(
                first + index, data: Array(original[index * blockSize..<(index + 1) * blockSize]), blockSize: blockSize)
        }
    }
}
