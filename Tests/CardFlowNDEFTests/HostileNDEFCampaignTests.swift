import CardFlow
import CardFlowISO15693
import CardFlowNDEF
import CardFlowSimulator
import CardFlowSimulatorTestSupport
import Testing

/// NDEF detect, read, write and read again against seeded hostile tags: every session must end
/// in success or a typed error, within its APDU budget and deadline. `CARDFLOW_CAMPAIGN_SESSIONS`
/// sets the number of sessions per campaign (CI runs the default).
@Suite("NDEF clients against hostile tags, many seeds")
struct HostileNDEFCampaignTests {
    static func isExpected(_ error: any Error) -> Bool {
        error is NDEFTagError || error is NDEFDecodingError || error is ISO15693Error || error is CardStatusError
            || error is APDUExchangeError || error is CardChannelError
    }

    /// Detect, read, decode when possible, write a message, read it back.
    static func session(_ channel: any CardChannel, _ seed: UInt64) async throws {
        let tag = try await NDEFTag.detect(on: channel)
        let bytes = try await tag.readMessageBytes()
        if !bytes.isEmpty { _ = try? NDEFMessage(decoding: bytes, mode: .lenient) }
        let size = Int(seed % 7) * 5
        try await tag.writeMessageBytes((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        _ = try await tag.readMessageBytes()
    }

    static func wrapped(_ seed: UInt64) -> any VirtualCard {
        switch seed % 4 {
        case 0: NDEFType4Tag(seed: seed, capacity: 64 + Int(seed % 900))
        case 1: NDEFType2Tag(seed: seed, dataAreaSize: 48 + Int(seed % 250) * 8)
        case 2:
            SimulatedISO15693Tag(
                seed: seed, blockSize: 4 * (1 + Int(seed % 8)), blockCount: 16 + Int(seed % 241), ndefFormatted: true)
        default: NDEFType4Tag(seed: seed, capacity: 0x7FFF)
        }
    }

    @Test(arguments: [1, 5, 25])
    func tagsWithSpoiledAnswers(hostilePercent: Int) async throws {
        let campaign = HostileCampaign(
            name: "NDEF, \(hostilePercent) % hostile", sessions: HostileCampaign.sessionCount(default: 1_500),
            firstSeed: UInt64(hostilePercent) << 32)
        let report = await campaign.run(
            spoiling: hostilePercent, of: Self.wrapped,
            isExpected: Self.isExpected, session: Self.session)
        print(report.summaryLine)
        #expect(report.failureCount == 0, "\(report)")
        #expect(report.sessions == campaign.sessions)
    }

    @Test func tagsThatOnlyMisbehave() async throws {
        let campaign = HostileCampaign(
            name: "NDEF, all hostile", sessions: HostileCampaign.sessionCount(default: 1_500), firstSeed: 1 << 40)
        let report = await campaign.runAgainstHostileCardsOnly(isExpected: Self.isExpected, session: Self.session)
        print(report.summaryLine)
        #expect(report.failureCount == 0, "\(report)")
    }

    /// The campaign can fail: a client that loops on the card's answers goes over the budget.
    @Test func aLoopingClientIsCaught() async throws {
        let campaign = HostileCampaign(name: "looping", sessions: 3, budget: 50)
        let report = await campaign.run(
            card: { seed in
                HostileCard(configuration: .init(seed: seed, stickyPercent: 100, stickyModes: [.endlessEmptySuccess]))
            },
            isExpected: Self.isExpected
        ) { channel, _ in
            while true { _ = try await channel.transmit(try CommandAPDU(cla: 0, ins: 0xB0, p1: 0, p2: 0, le: 1)) }
        }
        #expect(report.failureCount == 3)
        #expect(report.failures.first?.reason.contains("more than 50 APDUs") == true, "\(report)")
    }

    /// Control: with nothing spoiled every session succeeds, so the sessions above reach deep
    /// into the client before the hostile answers end them.
    @Test func wellBehavedCardsSucceed() async throws {
        let campaign = HostileCampaign(name: "NDEF, well-behaved", sessions: 50, budget: 3_000)
        let report = await campaign.run(
            spoiling: 0, of: Self.wrapped,
            isExpected: { _ in false }, session: Self.session)
        #expect(report.successes == 50, "\(report)")
    }
}
