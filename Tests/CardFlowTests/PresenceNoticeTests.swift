import CardFlow
import Testing

/// A reader that announces its card events from a script, and whose slot is empty whenever it is
/// asked: every card of the script came and went before the monitor's check.
private actor ScriptedNoticeDriver: ReaderDriver {
    private var script: [PresenceNotice]

    init(script: [PresenceNotice]) {
        self.script = script
    }

    func powerOn(protocol cardProtocol: CardProtocol?) async throws -> [UInt8] { [0x3B, 0x00] }
    func powerOff() async throws {}
    func transmit(_ command: [UInt8]) async throws -> [UInt8] { [0x90, 0x00] }
    func presence() async throws -> CardPresence { .absent }

    func nextPresenceNotice(timeout: Duration) async throws -> PresenceNotice {
        // The first (zero-timeout) reads at the monitor's start find nothing queued.
        if timeout == .zero || script.isEmpty {
            if timeout > .zero { try await Task.sleep(for: .seconds(3600)) }
            return .quiet
        }
        return script.removeFirst()
    }
}

@Suite("Presence notices")
struct PresenceNoticeTests {
    /// Cards put down and lifted faster than the monitor asks: each announced arrival is
    /// reported though the slot reads empty at every check (a regression: arrivals were only
    /// `.changed`, the check found nothing, and the cards were never reported).
    @Test func everyAnnouncedArrivalIsReported() async throws {
        let driver = ScriptedNoticeDriver(script: [.arrived, .removed, .arrived, .removed])
        let reader = Reader(info: ReaderInfo(id: "script:0", name: "Scripted", backend: "script"), driver: driver)
        var states = await reader.cardPresence().makeAsyncIterator()
        var seen: [CardPresence] = []
        for _ in 0..<5 {
            guard let state = await states.next() else { break }
            seen.append(state)
        }
        #expect(seen == [.absent, .present, .absent, .present, .absent])
    }
}
