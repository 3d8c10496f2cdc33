import CardFlow
import CardFlowRelay
import CardFlowSimulator
import CardFlowSimulatorTestSupport
import Testing

/// The relay's gate (SELECT of the configured applications) against seeded hostile cards, through
/// the session and driver: every sync ends with a ``RelayError`` (refused card, card error, or —
/// when the card got in — the unreachable service), never a crash or a hang.
@Suite("Relay gate against hostile cards, many seeds")
struct RelayGateCampaignTests {
    @Test(arguments: [30, 100])
    func gateOnHostileCards(hostilePercent: Int) async throws {
        let sessions = HostileCampaign.sessionCount(default: 1_000) / 10
        var outcomes: [String: Int] = [:]
        var failures: [String] = []
        // Port 1 on loopback refuses at once: an admitted card ends at the connection.
        var configuration = RelayConfiguration(url: "ws://127.0.0.1:1/sync")
        configuration.aids = [RelayConfiguration.defaultAID, [0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]]
        let client = RelayClient(configuration: configuration)
        var policy = SessionPolicy()
        policy.apduTimeout = .seconds(5)
        // A card whose UID answers vary looks like a different card each time: the flow then
        // reports wrongCard until this timeout (30 s by default), which is bounded but slow.
        policy.cardReturnTimeout = .seconds(1)
        let started = ContinuousClock.now
        for index in 0..<sessions {
            let seed = UInt64(hostilePercent) << 32 + UInt64(index)
            let virtual = VirtualCCIDReader()
            let wrapped: any VirtualCard = index % 2 == 0 ? NDEFType4Tag(seed: seed) : ISO7816Card(seed: seed)
            await virtual.insert(
                HostileCard(configuration: .init(seed: seed, hostilePercent: hostilePercent), wrapping: wrapped))
            let sessionStart = ContinuousClock.now
            do {
                _ = try await client.run(on: Reader.simulated(virtual), policy: policy)
                failures.append("seed \(seed): a sync completed without a service")
            } catch let error as RelayError {
                let name: String =
                    switch error {
                    case .unsupportedCard: "unsupportedCard"
                    case .card: "card"
                    case .connectionFailed: "connectionFailed"
                    default: "other RelayError"
                    }
                outcomes[name, default: 0] += 1
                if name == "other RelayError" { failures.append("seed \(seed): \(error)") }
            } catch {
                failures.append("seed \(seed): unexpected \(type(of: error)): \(error)")
            }
            // Bounded by the APDU and card-return timeouts; generous for a loaded machine (the
            // first sessions of a long run share it with every other campaign).
            if ContinuousClock.now - sessionStart > .seconds(60) { failures.append("seed \(seed): took over 60 s") }
            // The gate's SELECTs plus the session's own UID reads (the card answers FF CA too),
            // also while waiting for "the same" card: a bounded number, whatever the card answers.
            let processed = await virtual.apdusProcessed
            if processed > 60 { failures.append("seed \(seed): \(processed) APDUs reached the card") }
        }
        print(
            "Relay gate, \(hostilePercent) % hostile: \(sessions) sessions in \(ContinuousClock.now - started): \(outcomes)"
        )
        #expect(failures.isEmpty, "\(failures.prefix(10))")
    }
}
