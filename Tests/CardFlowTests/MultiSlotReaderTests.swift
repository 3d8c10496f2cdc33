import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import Testing

/// A card that takes `delay` on the reader's clock for every APDU and answers 90 00.
private struct SlowCard: VirtualCard {
    let delay: Duration
    var kind: String { "slow" }
    var technology: ContactlessTechnology { .desfireTypeA }
    var uid: [UInt8] { [0x04, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F] }
    mutating func powerOn() {}
    func processingTime(for command: [UInt8]) -> Duration { delay }
    mutating func process(_ command: [UInt8]) -> [UInt8] { [0x90, 0x00] }
}

/// Waits (real time, bounded) until `condition` holds.
private func eventually(
    _ what: String, within limit: Duration = .seconds(60),
    _ condition: @Sendable () async -> Bool
) async throws {
    let deadline = ContinuousClock.now + limit
    while await !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("timed out waiting for \(what)")
            return
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}

@Suite("Multi-slot readers in CardFlow")
struct MultiSlotReaderTests {
    static let select = try! CommandAPDU(hex: "00A4040007A0000002471001")

    @Test("sim:…,slots=3: one Reader per slot, ids sim:0/N, names with the slot, a session on each")
    func simulatorSlotsBecomeReaders() async throws {
        let setup = try await SimulatorSetup(
            specification: try SimulatorSpecification(parsing: "sim:iso7816,slots=3,busy-slots=2"))
        #expect(setup.readers.count == 1)
        #expect(setup.readers[0].descriptor.slotCount == 3)
        #expect(setup.readers[0].descriptor.maxBusySlots == 2)
        let readers = setup.cardFlowReaders()
        #expect(readers.map(\.info.id) == ["sim:0/0", "sim:0/1", "sim:0/2"])
        #expect(readers.map { $0.ccid?.slot } == [0, 1, 2])
        #expect(readers.allSatisfy { $0.ccid?.driver === readers[0].ccid?.driver }, "the slots share one driver")
        for (slot, reader) in readers.enumerated() {
            #expect(reader.info.name.hasSuffix("slot \(slot)"), "\(reader.info.name)")
            let statusWord = try await reader.withSession { session in
                try await session.send(Self.select).statusWord.rawValue
            }
            #expect(statusWord == 0x9000)
        }
        // Each slot holds its own card.
        let uids = await (0..<3).asyncMap { await setup.readers[0].reader.card(slot: $0)?.uid ?? [] }
        #expect(Set(uids).count == 3)
    }

    @Test("a single-slot reader keeps its id and name")
    func singleSlotUnchanged() async throws {
        let setup = try await SimulatorSetup(specification: try SimulatorSpecification(parsing: "sim:iso7816"))
        let readers = setup.cardFlowReaders()
        #expect(readers.map(\.info.id) == ["sim:0"])
        #expect(readers[0].info.name == setup.readers[0].name)
    }

    @Test("slots= and busy-slots= are checked")
    func slotOptionsValidated() {
        #expect(throws: SimulatorSpecificationError.self) { try SimulatorSpecification(parsing: "sim,slots=0") }
        #expect(throws: SimulatorSpecificationError.self) { try SimulatorSpecification(parsing: "sim,slots=9") }
        #expect(throws: SimulatorSpecificationError.self) {
            try SimulatorSpecification(parsing: "sim,slots=2,busy-slots=3")
        }
        #expect(throws: SimulatorSpecificationError.self) {
            try SimulatorSpecification(parsing: "sim,profile=x.txt,slots=2")
        }
        #expect((try? SimulatorSpecification(parsing: "sim,slots=4,busy-slots=1"))?.busySlots == 1)
    }

    @Test("two slots' sessions run side by side: slot 1 is not held by a slow card in slot 0")
    func sessionsOnTwoSlots() async throws {
        let clock = ManualClock()
        var configuration = VirtualReaderConfiguration()
        configuration.descriptor.maxSlotIndex = 1
        configuration.descriptor.maxBusySlots = 2
        let virtual = VirtualCCIDReader(configuration: configuration, clock: clock)
        await virtual.insert(SlowCard(delay: .seconds(2)), slot: 0)
        await virtual.insert(ISO7816Card(seed: 7), slot: 1)
        // The reader runs on the manual clock, the driver's own timers on real time: a long read
        // time-out keeps a busy machine (the whole suite in parallel) from timing out a wait
        // that the manual clock has not reached.
        var driverConfiguration = CCIDDriverConfiguration()
        driverConfiguration.readTimeout = .seconds(60)
        let readers = Reader.simulatedSlots(virtual, driverConfiguration: driverConfiguration)
        #expect(readers.map(\.info.id) == ["sim:0/0", "sim:0/1"])
        let slow = Task {
            try await readers[0].withSession { session in try await session.send(Self.select).statusWord.rawValue }
        }
        // The slow card has the APDU (session set-up goes to the reader, not the card).
        try await eventually("slot 0's APDU at the card") { await virtual.apdusProcessed >= 1 }
        // Only if slot 1 is held (the bug) does this let slot 0's card finish, so the test ends
        // and fails instead of hanging; generous, because a busy CI machine can take seconds for
        // slot 1's session. Two seconds is the slow card's time, under the 3 s read time-out.
        let unstick = Task {
            try await Task.sleep(for: .seconds(30))
            await clock.advance(by: .seconds(2))
        }
        let fast = try await readers[1].withSession { session in try await session.send(Self.select).statusWord.rawValue
        }
        let finishedAt = clock.now()
        unstick.cancel()
        #expect(fast == 0x9000)
        #expect(finishedAt == .zero, "slot 1's session waited for slot 0's card")
        await clock.advance(by: .seconds(2))
        #expect(try await slow.value == 0x9000)
    }

    @Test("presence per slot: a card leaving slot 1 is reported by slot 1's reader only")
    func presencePerSlot() async throws {
        let setup = try await SimulatorSetup(specification: try SimulatorSpecification(parsing: "sim:iso7816,slots=2"))
        let virtual = setup.readers[0].reader
        let readers = setup.cardFlowReaders()
        let slot0 = PresenceLog(await readers[0].cardPresence())
        let slot1 = PresenceLog(await readers[1].cardPresence())
        // 25 s: under the full parallel suite the first status reads have taken over 10 s (two
        // cores shared with every other suite); a monitor stuck behind the other slot's 30 s
        // interrupt read would still fail it.
        try await eventually("both slots present", within: .seconds(25)) {
            let first = await slot0.values
            let second = await slot1.values
            return first == [.present] && second == [.present]
        }
        await virtual.removeCard(slot: 1)
        try await eventually("slot 1 empty") { await slot1.values == [.present, .absent] }
        await virtual.insert(ISO7816Card(seed: 9), slot: 1)
        try await eventually("slot 1 full again") { await slot1.values == [.present, .absent, .present] }
        await virtual.removeCard(slot: 0)
        try await eventually("slot 0 empty") { await slot0.values == [.present, .absent] }
        // Slot 0 never saw slot 1's card come and go, nor slot 1 slot 0's.
        #expect(await slot0.values == [.present, .absent])
        #expect(await slot1.values == [.present, .absent, .present])
        #expect(try await readers[1].currentPresence() == .present)
        #expect(try await readers[0].currentPresence() == .absent)
        slot0.stop()
        slot1.stop()
    }
}

/// Collects a presence stream in the background.
private final class PresenceLog: Sendable {
    private let store = PresenceStore()
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<CardPresence>) {
        let store = self.store
        task = Task {
            for await presence in stream { await store.append(presence) }
        }
    }

    var values: [CardPresence] { get async { await store.values } }

    func stop() { task.cancel() }
}

private actor PresenceStore {
    private(set) var values: [CardPresence] = []
    func append(_ presence: CardPresence) { values.append(presence) }
}

extension Range where Bound == Int {
    fileprivate func asyncMap<T>(_ transform: (Int) async -> T) async -> [T] {
        var results: [T] = []
        for value in self { results.append(await transform(value)) }
        return results
    }
}
