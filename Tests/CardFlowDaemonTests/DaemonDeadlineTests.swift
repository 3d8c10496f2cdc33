import CardFlow
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowDaemonFlows
import CardFlowDaemonTestSupport
import CardFlowSimulator
import Foundation
import Testing

/// cardd's per-APDU and per-step deadlines: a card that never finishes fails its job with a
/// recorded timeout, and the reader goes on to serve the next card.
@Suite("cardd deadlines", .serialized)
struct DaemonDeadlineTests {
    @Test func defaultsBoundEveryAPDUAndStep() throws {
        let policy = ReaderFleet.policy(for: DaemonConfiguration())
        #expect(policy.apduTimeout == .seconds(30))
        #expect(policy.stepTimeout == .seconds(120))
        let decoded = try DaemonFlowKinds.standard.decoder().decode(
            DaemonConfiguration.self, from: Data(#"{"rules": []}"#.utf8))
        #expect(ReaderFleet.policy(for: decoded).apduTimeout == .seconds(30))
        let configured = try DaemonFlowKinds.standard.decoder().decode(
            DaemonConfiguration.self,
            from: Data(
                #"{"apduTimeoutMilliseconds": 250, "stepTimeoutMilliseconds": 4000}"#.utf8))
        #expect(ReaderFleet.policy(for: configured).apduTimeout == .milliseconds(250))
        #expect(ReaderFleet.policy(for: configured).stepTimeout == .seconds(4))
    }

    @Test(arguments: [
        #"{"apduTimeoutMilliseconds": 0}"#, #"{"stepTimeoutMilliseconds": -5}"#,
        #"{"apduTimeoutMilliseconds": 3600001}"#,
    ])
    func deadlinesCannotBeTurnedOff(_ json: String) {
        #expect(throws: DecodingError.self) {
            try DaemonFlowKinds.standard.decoder().decode(DaemonConfiguration.self, from: Data(json.utf8))
        }
    }

    /// A card that takes 2.5 s per APDU (within the driver's own 3 s read timeout, so nothing
    /// below cardd stops it) and a script of 1024 APDUs: 40 minutes without cardd's deadlines.
    /// The deadlines are short of the slow card but long enough that the next card's job, under
    /// the same deadlines, meets them on a loaded machine.
    @Test(.timeLimit(.minutes(1))) func aCardThatNeverAnswersInTimeFailsWithATimeoutAndTheNextCardIsServed()
        async throws
    {
        var configuration = DaemonConfiguration(readers: [], rules: Self.slowScriptRules)
        configuration.apduTimeoutMilliseconds = 2_000
        try await runTwoCards(
            configuration: configuration, slowCard: SlowCard(perAPDU: .milliseconds(2_500)),
            expectedError: "APDU")
    }

    /// A card that answers every APDU in 150 ms, well inside the APDU deadline, but whose step
    /// would take 150 s: the step deadline ends it.
    @Test(.timeLimit(.minutes(1))) func aStepThatNeverFinishesFailsWithATimeoutAndTheNextCardIsServed() async throws {
        var configuration = DaemonConfiguration(readers: [], rules: Self.slowScriptRules)
        configuration.stepTimeoutMilliseconds = 5_000
        try await runTwoCards(
            configuration: configuration, slowCard: SlowCard(perAPDU: .milliseconds(150)),
            expectedError: "step 2 (apdus)")
    }

    /// Slow cards (recognised by their ATR history) get a script of 1024 SELECTs; others a report.
    static let slowScriptRules = [
        CardRule(
            name: "slow", match: CardMatch(atrPrefix: SlowCard.atrPrefix),
            flow: .apdus(
                Array(
                    repeating: [0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01],
                    count: 1024), expect: nil)),
        CardRule(name: "report", flow: .report),
    ]

    private func runTwoCards(configuration: DaemonConfiguration, slowCard: SlowCard, expectedError: String) async throws
    {
        let virtual = VirtualCCIDReader(configuration: .level(.extendedAPDU))
        let capture = LogCapture()
        let reader = Reader.simulated(virtual, id: "sim:0", logger: capture.logger(label: "reader"))
        try await DaemonHarness.run(configuration: configuration, simulatedReaders: [reader], logger: capture.logger())
        { harness in
            await virtual.insert(slowCard)
            let slow: JobRecord
            do {
                slow = try await harness.waitForJob(within: .seconds(20)) { $0.rule == "slow" && $0.state != .running }
            } catch {
                // Say what the log holds: a job still running is the hang this test is about.
                let jobs = try await harness.daemon.jobLog?.jobs() ?? []
                Issue.record(
                    "jobs: \(jobs.map { "\($0.rule ?? "-") \($0.state) \($0.cardATR ?? "-") \($0.error ?? "")" })")
                throw error
            }
            #expect(slow.state == .failed)
            #expect(slow.error?.contains("timed out") == true, "\(slow.error ?? "no error")")
            #expect(slow.error?.contains(expectedError) == true, "\(slow.error ?? "no error")")
            #expect(slow.finishedAt != nil)
            // The daemon must see the reader empty before the next card (a swap with no gap is one
            // presence change, not two).
            let events = await harness.daemon.bus.subscribe()
            await virtual.removeCard()
            for await event in events { if case .cardLeft = event { break } }
            await virtual.insert(ISO7816Card(seed: 7))
            let next: JobRecord
            do {
                next = try await harness.waitForJob(within: .seconds(20)) {
                    $0.rule == "report" && $0.state != .running
                }
            } catch {
                let jobs = try await harness.daemon.jobLog?.jobs() ?? []
                Issue.record(
                    "jobs: \(jobs.map { "\($0.rule ?? "-") \($0.state) \($0.cardATR ?? "-") \($0.error ?? "")" })")
                print(
                    capture.text.split(separator: "\n").filter { !$0.hasPrefix("trace") }.suffix(60).joined(
                        separator: "\n"))
                throw error
            }
            #expect(next.state == .succeeded, "\(next.error ?? "")")
            #expect(next.id > slow.id)
        }
    }
}

/// An ISO 7816 card that takes `perAPDU` for every APDU (a card stuck in a long computation).
struct SlowCard: VirtualCard {
    /// `3B 83 80 01 'SLW' TCK`: the type A ATR with the ATS's historical bytes.
    static let atrPrefix: [UInt8] = [0x3B, 0x83, 0x80, 0x01, 0x53, 0x4C, 0x57]
    var inner = ISO7816Card(seed: 99)
    let perAPDU: Duration

    init(perAPDU: Duration) { self.perAPDU = perAPDU }

    var kind: String { "slow" }
    var technology: ContactlessTechnology { .isoDepTypeA(ats: [0x08, 0x78, 0x80, 0x70, 0x02, 0x53, 0x4C, 0x57]) }
    var uid: [UInt8] { inner.uid }
    mutating func powerOn() { inner.powerOn() }
    mutating func process(_ command: [UInt8]) -> [UInt8] { inner.process(command) }
    func processingTime(for command: [UInt8]) -> Duration { perAPDU }
}
