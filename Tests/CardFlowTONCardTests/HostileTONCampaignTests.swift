import CardFlow
import CardFlowSimulator
import CardFlowSimulatorTestSupport
import Testing

@testable import CardFlowTONCard

/// The TON client against seeded hostile cards: a fresh card through activation, an activated
/// card through PIN, signing, the keychain (add, list, get, delete) and
/// recovery data. Every session ends in success or a ``TONError`` (or a channel-level typed
/// error), within its APDU budget.
@Suite("TON client against hostile cards, many seeds")
struct HostileTONCampaignTests {
    static func isExpected(_ error: any Error) -> Bool {
        error is TONError || error is CardChannelError || error is APDUExchangeError
    }

    /// A card activated with vector A (PIN 5555) and one key in its keychain.
    static func activatedCard() async throws -> any VirtualCard {
        let channel = BudgetedCardChannel(card: SimulatedTONCard(seed: 7), budget: 10_000, deadline: .seconds(60))
        let wallet = TONWallet(channel: channel, hmacKeys: TONHmacKeyStore(store: InMemoryKeyStore()))
        _ = try await wallet.turnOnWallet(activation: try VectorA.activation())
        _ = try await wallet.addKey(Array(repeating: 0x42, count: 300))
        return await channel.currentCard
    }

    static func activatedSession(_ channel: any CardChannel, _ seed: UInt64) async throws {
        let wallet = TONWallet(channel: channel, hmacKeys: try await VectorA.keys())
        _ = try await wallet.appletState()
        _ = try await wallet.serialNumber()
        _ = try await wallet.verifyPinAndSignForDefaultPath(
            [0x01, 0x02, UInt8(truncatingIfNeeded: seed)], pin: .default)
        let keys = try await wallet.keychainKeys()
        if let first = keys.first { _ = try await wallet.key(hmac: first.hmac) }
        let id = try await wallet.addKey((0..<(1 + Int(seed % 400))).map { UInt8(truncatingIfNeeded: $0) })
        _ = try await wallet.keychainInfo()
        _ = try await wallet.deleteKey(hmac: id)
        try await wallet.addRecoveryData(Array(repeating: 0x33, count: 1 + Int(seed % 600)))
        _ = try await wallet.recoveryData()
        _ = try await wallet.coinManager.remainingPinTries()
    }

    static func activationSession(_ channel: any CardChannel, _ seed: UInt64) async throws {
        let wallet = TONWallet(channel: channel, hmacKeys: TONHmacKeyStore(store: InMemoryKeyStore()))
        _ = try await wallet.generateSeedAndGetHashes()
        _ = try await wallet.turnOnWallet(activation: try VectorA.activation())
        _ = try await wallet.numberOfKeys()
    }

    @Test(arguments: [5, 25])
    func activatedCardWithSpoiledAnswers(hostilePercent: Int) async throws {
        let card = try await Self.activatedCard()
        let campaign = HostileCampaign(
            name: "TON activated, \(hostilePercent) % hostile", sessions: HostileCampaign.sessionCount(default: 600),
            firstSeed: UInt64(hostilePercent) << 32, budget: 4_000)
        let report = await campaign.run(
            spoiling: hostilePercent, of: { _ in card },
            isExpected: Self.isExpected, session: Self.activatedSession)
        print(report.summaryLine)
        #expect(report.failureCount == 0, "\(report)")
    }

    @Test func activationWithSpoiledAnswers() async throws {
        let campaign = HostileCampaign(
            name: "TON activation, 10 % hostile", sessions: HostileCampaign.sessionCount(default: 600),
            firstSeed: 1 << 40)
        let report = await campaign.run(
            spoiling: 10, of: { seed in SimulatedTONCard(seed: seed) },
            isExpected: Self.isExpected, session: Self.activationSession)
        print(report.summaryLine)
        #expect(report.failureCount == 0, "\(report)")
    }

    @Test func cardsThatOnlyMisbehave() async throws {
        let campaign = HostileCampaign(
            name: "TON, all hostile", sessions: HostileCampaign.sessionCount(default: 600), firstSeed: 1 << 41)
        let report = await campaign.runAgainstHostileCardsOnly(
            isExpected: Self.isExpected, session: Self.activatedSession)
        print(report.summaryLine)
        #expect(report.failureCount == 0, "\(report)")
    }

    /// Control: with nothing spoiled every session succeeds, so the sessions above reach deep
    /// into the client before the hostile answers end them.
    @Test func wellBehavedCardsSucceed() async throws {
        let card = try await Self.activatedCard()
        let activated = HostileCampaign(name: "TON activated, well-behaved", sessions: 30, budget: 4_000)
        let report = await activated.run(
            spoiling: 0, of: { _ in card },
            isExpected: { _ in false }, session: Self.activatedSession)
        #expect(report.successes == 30, "\(report)")
        let fresh = HostileCampaign(name: "TON activation, well-behaved", sessions: 30, budget: 4_000)
        let activation = await fresh.run(
            spoiling: 0, of: { seed in SimulatedTONCard(seed: seed) },
            isExpected: { _ in false }, session: Self.activationSession)
        #expect(activation.successes == 30, "\(activation)")
    }
}
