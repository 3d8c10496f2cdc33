import CardDaemon
import CardFlow
import CardSimulator
import DaemonTestSupport
import Foundation
import Testing

/// How cardd's per-reader supervision behaves when the reader's presence stream keeps ending.
@Suite("cardd reader supervision")
struct ReaderSupervisorTests {
    /// An unplugged reader ends every presence stream at once; the supervisor must back off
    /// (50 ms doubling to 5 s) instead of reopening the stream in a tight loop. Before the fix the
    /// state a reopened stream replays reset the pause, and it restarted about 20 times a second.
    @Test func aPresenceStreamThatKeepsEndingIsReopenedWithBackOff() async throws {
        let virtual = VirtualCCIDReader(configuration: VirtualReaderConfiguration())
        await virtual.insert(ISO7816Card(seed: 5))
        let capture = LogCapture()
        let reader = Reader.simulated(virtual, id: "sim:0", logger: capture.logger(label: "reader"))
        let configuration = DaemonConfiguration(readers: [], rules: [CardRule(name: "report", flow: .report)])
        try await DaemonHarness.run(configuration: configuration, simulatedReaders: [reader], logger: capture.logger()) { harness in
            _ = try await harness.waitForJob { $0.rule == "report" && $0.state != .running }
            await virtual.unplug()
            try await Task.sleep(for: .seconds(2))
            let restarts = capture.text.components(separatedBy: "card presence monitoring ended").count - 1
            // 50 + 100 + 200 + 400 + 800 ms: at most 6 attempts in 2 s (a tight loop made ~40).
            #expect(restarts >= 1, "the stream of an unplugged reader ended, and supervision said so")
            #expect(restarts <= 7, "\(restarts) restarts in 2 s")
        }
    }

    /// A card swapped for another faster than the reader is asked (no absent status read in
    /// between) is still a new card: cardd runs its rule's job for it. Before the fix the
    /// supervisor saw present → present and ignored the new card until another swap happened
    /// to be slow enough (the soak's ~60 s stalled readers).
    @Test func aCardSwappedFasterThanThePollGetsItsOwnJob() async throws {
        let virtual = VirtualCCIDReader(configuration: VirtualReaderConfiguration())
        await virtual.insert(ISO7816Card(seed: 5))
        let reader = Reader.simulated(virtual, id: "sim:0")
        let configuration = DaemonConfiguration(readers: [], rules: [CardRule(name: "report", flow: .report)])
        try await DaemonHarness.run(configuration: configuration, simulatedReaders: [reader]) { harness in
            let first = try await harness.waitForJob { $0.rule == "report" && $0.state != .running }
            await virtual.removeCard()
            await virtual.insert(ISO7816Card(seed: 6))
            let second = try await harness.waitForJob(within: .seconds(10)) { $0.id != first.id && $0.state != .running }
            #expect(second.cardUID != first.cardUID, "the second job ran on the new card")
            #expect(second.state == .succeeded)
        }
    }
}
