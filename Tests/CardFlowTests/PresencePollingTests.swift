import CardFlow
import Testing

/// A reader that announces nothing (a uFR, vpcd or PC/SC reader): the only way to learn of its
/// card is to ask, and every ask is counted.
private actor PolledReaderDriver: ReaderDriver {
    private(set) var asks = 0
    private var cardPresent = false

    func place() { cardPresent = true }

    func powerOn(protocol cardProtocol: CardProtocol?) async throws -> [UInt8] { [0x3B, 0x00] }
    func powerOff() async throws {}
    func transmit(_ command: [UInt8]) async throws -> [UInt8] { [0x90, 0x00] }

    func presence() async throws -> CardPresence {
        asks += 1
        return cardPresent ? .present : .absent
    }

    func nextPresenceNotice(timeout: Duration) async throws -> PresenceNotice { .unsupported }
}

/// The presence monitor of a reader that must be polled: one ask per interval on the reader's
/// clock and none in between (no busy loop: a uFR reader's idle CPU is this loop), and none
/// once nobody watches. Time moves only when the test moves it, so the counts are exact.
@Suite("Presence polling on the reader's clock")
struct PresencePollingTests {
    /// Waits (by yielding, not by time) until the monitor sleeps on `clock`.
    private func monitorSleeps(on clock: ManualClock) async throws {
        for _ in 0..<100_000 {
            if await clock.sleeperCount == 1 { return }
            await Task.yield()
        }
        Issue.record("the monitor never slept on the reader's clock")
        throw CancellationError()
    }

    /// A polled reader on a manual clock.
    private func polledReader(interval: Duration) -> (PolledReaderDriver, ManualClock, Reader) {
        let driver = PolledReaderDriver()
        let clock = ManualClock()
        let reader = Reader(
            info: ReaderInfo(id: "poll:0", name: "Polled", backend: "poll"), driver: driver,
            presencePollInterval: interval, presenceClock: clock)
        return (driver, clock, reader)
    }

    @Test func oneAskPerIntervalAndNoneBetween() async throws {
        let (driver, clock, reader) = polledReader(interval: .milliseconds(400))
        let stream = await reader.cardPresence()
        var states = stream.makeAsyncIterator()
        try await monitorSleeps(on: clock)
        #expect(await driver.asks == 1)
        #expect(await states.next() == .absent)

        // However long the test lets the monitor run, it does not ask again before its time.
        for _ in 0..<1_000 { await Task.yield() }
        #expect(await driver.asks == 1, "the monitor asked without waiting for its interval")

        await clock.advance(by: .milliseconds(399))
        for _ in 0..<1_000 { await Task.yield() }
        #expect(await driver.asks == 1, "asked before the interval was up")

        // Each interval: exactly one more ask.
        for round in 2...5 {
            await clock.advance(by: round == 2 ? .milliseconds(1) : .milliseconds(400))
            try await monitorSleeps(on: clock)
            #expect(await driver.asks == round)
        }

        // A card put down is reported at the next ask.
        await driver.place()
        await clock.advance(by: .milliseconds(400))
        #expect(await states.next() == .present)
        #expect(await driver.asks == 6)
    }

    @Test func nobodyWatchingStopsTheAsks() async throws {
        let (driver, clock, reader) = polledReader(interval: .milliseconds(100))
        var stream: AsyncStream<CardPresence>? = await reader.cardPresence()
        try await monitorSleeps(on: clock)
        #expect(await driver.asks == 1)
        #expect(stream != nil)

        // The last watcher leaves: the monitor's sleep is cancelled and it asks no more.
        stream = nil
        for _ in 0..<100_000 {
            if await clock.sleeperCount == 0 { break }
            await Task.yield()
        }
        #expect(await clock.sleeperCount == 0, "the monitor still waits on the clock with nobody watching")
        await clock.advance(by: .seconds(10))
        for _ in 0..<1_000 { await Task.yield() }
        #expect(await driver.asks == 1, "the monitor asked with nobody watching")
    }
}
