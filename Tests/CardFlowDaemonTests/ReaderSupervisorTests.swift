import CardFlow
import CardFlowDaemon
import CardFlowDaemonFlows
import CardFlowDaemonTestSupport
import CardFlowSimulator
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
        try await DaemonHarness.run(configuration: configuration, simulatedReaders: [reader], logger: capture.logger())
        { harness in
            _ = try await harness.waitForJob { $0.rule == "report" && $0.state != .running }
            await virtual.unplug()
            // From the first end on (how soon it comes after the unplug is up to a loaded machine).
            let deadline = ContinuousClock.now + .seconds(60)
            while !capture.text.contains("card presence monitoring ended"), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
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
            let second = try await harness.waitForJob(within: .seconds(10)) {
                $0.id != first.id && $0.state != .running
            }
            #expect(second.cardUID != first.cardUID, "the second job ran on the new card")
            #expect(second.state == .succeeded)
        }
    }

    /// A reader removed while its job runs and plugged in again at once (the same id): the bus
    /// shows the old reader's last events before readerRemoved, and readerAdded before the new
    /// reader's first card. Before the fix the old job's cardHandled came after readerRemoved,
    /// even after the new reader's cardArrived, and a client counting per reader (the soak's
    /// pacing) took it for the new card's.
    @Test func aReaderPluggedInAgainNeverInterleavesWithItsPreviousSelf() async throws {
        func slowReader(seed: UInt64) async -> (VirtualCCIDReader, Reader) {
            var configuration = VirtualReaderConfiguration(seed: seed)
            configuration.timing.extraLatency = .milliseconds(40)
            let virtual = VirtualCCIDReader(configuration: configuration)
            await virtual.insert(ISO7816Card(seed: seed))
            return (virtual, Reader.simulated(virtual, id: "sim:swap"))
        }
        let configuration = DaemonConfiguration(readers: [], rules: [CardRule(name: "report", flow: .report)])
        try await DaemonHarness.run(configuration: configuration) { harness in
            let events = await harness.daemon.bus.subscribe()
            let registry = ManagedReaderRegistry()
            await harness.daemon.fleet.watch(registry)
            let (_, first) = await slowReader(seed: 1)
            await registry.add(first)
            // Bounded: a lost event ends the collection (and fails the test) instead of hanging it.
            let collector = Task {
                var seen: [String] = []
                var handled = 0
                for await event in events {
                    let name: String
                    switch event {
                    case .readerAdded(let id, _) where id == "sim:swap": name = "readerAdded"
                    case .readerRemoved(let id) where id == "sim:swap": name = "readerRemoved"
                    case .cardArrived(let reader) where reader == "sim:swap": name = "cardArrived"
                    case .cardHandled(let reader, _) where reader == "sim:swap": name = "cardHandled"
                    case .jobStarted(_, let reader, _, _) where reader == "sim:swap": name = "jobStarted"
                    default: continue
                    }
                    seen.append(name)
                    if name == "jobStarted" && handled == 0 {
                        // Mid-job: the reader goes and another comes under the same id.
                        await registry.remove(id: "sim:swap")
                        await registry.add(await slowReader(seed: 2).1)
                    }
                    if name == "cardHandled" {
                        handled += 1
                        if handled == 2 { break }
                    }
                }
                return seen
            }
            let watchdog = Task {
                try await Task.sleep(for: .seconds(20))
                collector.cancel()
            }
            let seen = await collector.value
            watchdog.cancel()
            #expect(
                seen == [
                    "readerAdded", "cardArrived", "jobStarted", "cardHandled", "readerRemoved",
                    "readerAdded", "cardArrived", "jobStarted", "cardHandled",
                ], "\(seen)")
        }
    }
}
