import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import CardFlowSimulatorTestSupport
import Testing

/// ISO 7816-4 exchanges (`send` with its bounded GET RESPONSE and Le correction) against seeded
/// hostile cards: straight to the card, and through the whole stack (CardSession, CCID driver,
/// virtual reader). Every session ends in success or a typed error within its APDU budget.
@Suite("ISO 7816 channel against hostile cards, many seeds")
struct HostileISO7816CampaignTests {
    static func isExpected(_ error: any Error) -> Bool {
        error is CardStatusError || error is APDUExchangeError || error is CardChannelError
    }

    /// SELECT by name, READ BINARY with Le 256 and with extended Le, a case 4 command, a record read,
    /// GET DATA.
    static func exchanges(_ channel: any CardChannel) async throws {
        let commands = [
            try CommandAPDU(
                cla: 0x00, ins: 0xA4, p1: 0x04, p2: 0x00, data: [0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01], le: 256),
            try CommandAPDU(cla: 0x00, ins: 0xB0, p1: 0x81, p2: 0x00, le: 256),
            try CommandAPDU(cla: 0x00, ins: 0xB0, p1: 0x81, p2: 0x00, le: 4_096),
            try CommandAPDU(cla: 0x00, ins: 0x88, p1: 0x00, p2: 0x00, data: [1, 2, 3, 4, 5, 6, 7, 8], le: 256),
            try CommandAPDU(cla: 0x00, ins: 0xB2, p1: 0x01, p2: 0x0C, le: 256),
            try CommandAPDU(cla: 0x00, ins: 0xCA, p1: 0x9F, p2: 0x7F, le: 256),
        ]
        // Any final status word is an answer; what must hold is that each exchange ends.
        for command in commands { _ = try await channel.send(command) }
    }

    @Test(arguments: [0, 10, 50, 100])
    func channelStraightToTheCard(hostilePercent: Int) async throws {
        let campaign = HostileCampaign(
            name: "ISO 7816 channel, \(hostilePercent) % hostile",
            sessions: HostileCampaign.sessionCount(default: 2_000),
            firstSeed: UInt64(hostilePercent) << 32, budget: 500)
        let report = await campaign.run(
            card: { seed in
                HostileCard(
                    configuration: .init(
                        seed: seed, hostilePercent: hostilePercent, stickyPercent: hostilePercent == 0 ? 0 : 5,
                        maxResponseLength: 70_000),
                    wrapping: ISO7816Card(seed: seed))
            },
            isExpected: Self.isExpected
        ) { channel, _ in try await Self.exchanges(channel) }
        print(report.summaryLine)
        #expect(report.failureCount == 0, "\(report)")
        // Control: a well-behaved card completes every session.
        if hostilePercent == 0 { #expect(report.successes == campaign.sessions, "\(report)") }
    }

    /// The same through `CardSession` and the CCID driver on a virtual reader (fewer sessions:
    /// each builds a reader).
    @Test func throughTheSessionAndDriver() async throws {
        let sessions = HostileCampaign.sessionCount(default: 2_000) / 10
        var failures: [String] = []
        var outcomes: [String: Int] = [:]
        for index in 0..<sessions {
            let seed = UInt64(index) + (1 << 45)
            let hostilePercent = index % 10 == 0 ? 0 : 30
            let virtual = VirtualCCIDReader()
            await virtual.insert(
                HostileCard(
                    configuration: .init(
                        seed: seed, hostilePercent: hostilePercent, stickyPercent: hostilePercent == 0 ? 0 : 5,
                        maxResponseLength: 70_000),
                    wrapping: ISO7816Card(seed: seed)))
            var policy = SessionPolicy()
            policy.apduTimeout = .seconds(5)
            let counter = CountingChannel(budget: 500)
            do {
                try await Reader.simulated(virtual).withSession(policy: policy) { session in
                    await counter.attach(session)
                    try await Self.exchanges(counter)
                }
                outcomes["success", default: 0] += 1
            } catch {
                if hostilePercent == 0 { failures.append("seed \(seed), well-behaved card: \(error)") }
                if await counter.exceeded || !(Self.isExpected(error) || error is CCIDDriverError) {
                    failures.append("seed \(seed): \(type(of: error)) \(error)")
                }
                outcomes[String(describing: type(of: error)), default: 0] += 1
            }
        }
        print("ISO 7816 through CardSession and driver: \(sessions) sessions, \(outcomes)")
        #expect(failures.isEmpty, "\(failures.prefix(10))")
    }
}

/// Forwards to a session and counts APDUs, refusing more than `budget`.
actor CountingChannel: CardChannel {
    struct BudgetExceeded: Error {}
    private let budget: Int
    private var base: (any CardChannel)?
    private var count = 0
    private(set) var exceeded = false

    init(budget: Int) { self.budget = budget }

    func attach(_ base: any CardChannel) { self.base = base }

    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        count += 1
        guard count <= budget, let base else {
            exceeded = true
            throw BudgetExceeded()
        }
        return try await base.transmit(command)
    }
}
