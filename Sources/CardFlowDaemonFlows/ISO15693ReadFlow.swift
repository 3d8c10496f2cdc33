import CardFlow
import CardFlowDaemon
import CardFlowISO15693

/// `{"kind": "iso15693-read", "first": 0, "count": 4}`: read `count` blocks from `first` of an
/// ISO 15693 tag.
public struct ISO15693ReadFlow: DaemonFlow, Hashable {
    public static let kind = "iso15693-read"
    public static let writesToCard = false

    /// The first block read.
    public var first: Int
    /// How many blocks are read.
    public var count: Int

    /// - Parameters:
    ///   - first: the first block (0–255).
    ///   - count: how many blocks (the last one at most 255).
    public init(first: Int, count: Int) {
        self.first = first
        self.count = count
    }

    enum CodingKeys: String, CodingKey { case first, count }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        first = try container.decodeIfPresent(Int.self, forKey: .first) ?? 0
        count = try container.decodeIfPresent(Int.self, forKey: .count) ?? 1
        guard (0...255).contains(first), (1...256).contains(count), first + count <= 256 else {
            throw DecodingError.dataCorruptedError(
                forKey: .count, in: container, debugDescription: "blocks from 0 to 255")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(first, forKey: .first)
        try container.encode(count, forKey: .count)
    }

    public func job(_ context: DaemonFlowContext) async throws -> FlowJob {
        let first = self.first
        let count = self.count
        let flow = DaemonFlowSteps.identify.then("iso15693-read") { outcome, session in
            let tag = ISO15693Tag(channel: session)
            var outcome = outcome
            outcome.values["blocks"] = try await tag.readBlocks(first, count: count).hexString
            return outcome
        }
        return FlowJob(flow: flow)
    }
}

extension FlowSpecification {
    /// Read blocks of an ISO 15693 tag (``ISO15693ReadFlow``).
    public static func iso15693Read(first: Int, count: Int) -> FlowSpecification {
        FlowSpecification(ISO15693ReadFlow(first: first, count: count))
    }
}
