import CardFlow
import CardFlowISO15693
import CardFlowSimulator
import CardFlowSimulatorTestSupport
import Testing

/// The ISO 15693 client (UID, system information, block reads and writes, direct commands)
/// against seeded hostile tags: success or a typed error, within budget, for every seed.
@Suite("ISO 15693 client against hostile tags, many seeds")
struct HostileISO15693CampaignTests {
    static func isExpected(_ error: any Error) -> Bool {
        error is ISO15693Error || error is CardStatusError || error is APDUExchangeError || error is CardChannelError
    }

    static func session(_ channel: any CardChannel, _ seed: UInt64) async throws {
        let tag = CardFlowISO15693.ISO15693Tag(
            channel: channel, byteOrder: seed & 1 == 0 ? .asStored : .reversedPerBlock)
        _ = try await tag.uid()
        let info = try await tag.systemInformation()
        // Numbers from the tag drive the rest, as cardctl's read-everything does.
        let first = Int(seed % UInt64(info.blockCount))
        let data = try await tag.readBlocks(first, count: info.blockCount - first, blockSize: info.blockSize)
        try await tag.writeBlocks(first, data: Array(data.prefix(info.blockSize * 2)), blockSize: info.blockSize)
        _ = try await tag.readMultipleBlocks(
            first, count: min(4, info.blockCount - first), blockSize: info.blockSize, uid: info.uid)
        try await tag.writeBlockDirectly(first, data: Array(repeating: 0x5A, count: info.blockSize), uid: info.uid)
    }

    static func wrapped(_ seed: UInt64) -> any VirtualCard {
        SimulatedISO15693Tag(
            seed: seed, blockSize: 1 + Int(seed % 32), blockCount: 1 + Int(seed % 256),
            multipleBlockWrite: seed & 2 == 0, lockedBlocks: seed % 5 == 0 ? [1, 2] : [])
    }

    @Test(arguments: [5, 25, 100])
    func tagsWithSpoiledAnswers(hostilePercent: Int) async throws {
        let campaign = HostileCampaign(
            name: "ISO 15693, \(hostilePercent) % hostile", sessions: HostileCampaign.sessionCount(default: 1_000),
            firstSeed: UInt64(hostilePercent) << 32)
        let report = await campaign.run(
            spoiling: hostilePercent, of: Self.wrapped,
            isExpected: Self.isExpected, session: Self.session)
        print(report.summaryLine)
        #expect(report.failureCount == 0, "\(report)")
    }

    /// Control: with nothing spoiled every session succeeds, so the sessions above reach deep
    /// into the client before the hostile answers end them.
    @Test func wellBehavedCardsSucceed() async throws {
        let campaign = HostileCampaign(name: "ISO 15693, well-behaved", sessions: 50, budget: 3_000)
        let report = await campaign.run(
            spoiling: 0, of: Self.wrapped,
            isExpected: { _ in false }, session: Self.session)
        #expect(report.successes == 50, "\(report)")
    }
}
