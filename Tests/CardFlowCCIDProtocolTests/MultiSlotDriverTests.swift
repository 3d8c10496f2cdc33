import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import Logging
import Testing

/// A card that takes `delay` (on the reader's clock) for every APDU and echoes its data.
struct SlowEchoCard: VirtualCard {
    let delay: Duration
    var kind: String { "slow-echo" }
    var technology: ContactlessTechnology { .desfireTypeA }
    var uid: [UInt8] { [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06] }
    mutating func powerOn() {}
    func processingTime(for command: [UInt8]) -> Duration { delay }
    mutating func process(_ command: [UInt8]) -> [UInt8] {
        var echo = EchoCard()
        return echo.process(command)
    }
}

/// A multi-slot simulated reader on a manual clock, wired to one driver.
struct MultiSlotHarness {
    let clock = ManualClock()
    let reader: VirtualCCIDReader
    let driver: CCIDDriver

    init(
        busySlots: UInt8, cards: [any VirtualCard], level: CCIDExchangeLevel = .shortAPDU,
        transport: ((VirtualCCIDReader) -> any USBTransport)? = nil, exchangeTimeLimit: Duration? = nil,
        logger: Logger = Logger(label: "test.multislot")
    ) async {
        var configuration = VirtualReaderConfiguration.level(level)
        configuration.descriptor.maxSlotIndex = UInt8(cards.count - 1)
        configuration.descriptor.maxBusySlots = busySlots
        reader = VirtualCCIDReader(configuration: configuration, clock: clock)
        for (slot, card) in cards.enumerated() { await reader.insert(card, slot: slot) }
        var driverConfiguration = CCIDDriverConfiguration()
        driverConfiguration.readTimeout = .seconds(10)
        driverConfiguration.abortTimeout = .seconds(1)
        if let exchangeTimeLimit { driverConfiguration.exchangeTimeLimit = exchangeTimeLimit }
        driver = CCIDDriver(
            transport: transport?(reader) ?? InMemoryUSBTransport(reader: reader),
            descriptor: configuration.descriptor, configuration: driverConfiguration,
            timeSource: ElapsedClockTimeSource(clock), logger: logger)
    }

    /// Waits (real time, bounded) until the cards have received `count` APDUs in all.
    func waitUntilCardsReceived(_ count: Int) async throws {
        try await waitUntil("the cards received \(count) APDUs") { await reader.apdusProcessed >= count }
    }

    /// Waits (real time, bounded) until `count` commands wait for one of the device's busy slots:
    /// the gate before moving the clock past a command that must queue (its operation clock
    /// starts when it enters the driver, which a loaded machine can delay past any fixed wait).
    func waitUntilCommandsWaitForABusySlot(_ count: Int) async throws {
        try await waitUntil("\(count) commands wait for a busy slot") {
            await driver.commandsWaitingForABusySlot >= count
        }
    }

    /// Gives other tasks every chance to run (real time, a little).
    func settle() async throws {
        for _ in 0..<20 { await Task.yield() }
        try await Task.sleep(for: .milliseconds(50))
    }
}

/// Records the order in which concurrent operations finished.
actor CompletionOrder {
    private(set) var order: [Int] = []
    func note(_ value: Int) { order.append(value) }

    /// Waits (real time, bounded) until `count` operations have finished.
    func waitUntilNoted(_ count: Int) async throws {
        try await waitUntil("\(count) operations finished") { await self.order.count >= count }
    }
}

/// Polls `condition` (real time, every 2 ms) until it holds; records an issue saying `what` was
/// awaited when it does not within 60 s.
func waitUntil(_ what: String, _ condition: @Sendable () async -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(60)
    while await !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("waited 60 s in vain until \(what)")
            return
        }
        try await Task.sleep(for: .milliseconds(2))
    }
}

private func echo(_ marker: UInt8) -> [UInt8] { [0x80, 0x10, 0x00, 0x00, 0x02, marker, marker, 0x00] }

@Suite("CCID driver with multi-slot readers")
struct MultiSlotDriverTests {
    // The time limit ends a driver that holds slot 1 behind slot 0 (it would wait for ever on the
    // manual clock) as a failure; a real-time deadline instead also failed a correct driver on a
    // machine busy for 30 s.
    @Test("bMaxCCIDBusySlots 2: a slow card in slot 0 does not delay slot 1's exchange", .timeLimit(.minutes(1)))
    func slotsExchangeSideBySide() async throws {
        let harness = await MultiSlotHarness(busySlots: 2, cards: [SlowEchoCard(delay: .seconds(2)), EchoCard()])
        #expect(harness.driver.concurrentSlotLimit == 2)
        _ = try await harness.driver.powerOn(slot: 0)
        _ = try await harness.driver.powerOn(slot: 1)
        let slow = Task { try await harness.driver.transmit(echo(0xA0), slot: 0) }
        try await harness.waitUntilCardsReceived(1)
        let fast = try await harness.driver.transmit(echo(0xB1), slot: 1)
        let finishedAt = harness.clock.now()
        #expect(fast == [0xB1, 0xB1, 0x90, 0x00])
        #expect(finishedAt == .zero, "slot 1 waited for slot 0's card")
        await harness.clock.advance(by: .seconds(2))
        #expect(try await slow.value == [0xA0, 0xA0, 0x90, 0x00])
        #expect(await harness.reader.slotBusyRefusals == 0)
    }

    @Test("bMaxCCIDBusySlots 1: slots take turns, and CMD_SLOT_BUSY never reaches the caller")
    func oneBusySlotSerialises() async throws {
        let harness = await MultiSlotHarness(busySlots: 1, cards: [SlowEchoCard(delay: .seconds(2)), EchoCard()])
        #expect(harness.driver.concurrentSlotLimit == 1)
        _ = try await harness.driver.powerOn(slot: 0)
        _ = try await harness.driver.powerOn(slot: 1)
        let order = CompletionOrder()
        let slow = Task {
            let answer = try await harness.driver.transmit(echo(0xA0), slot: 0)
            await order.note(0)
            return answer
        }
        try await harness.waitUntilCardsReceived(1)
        let fast = Task {
            let answer = try await harness.driver.transmit(echo(0xB1), slot: 1)
            await order.note(1)
            return answer
        }
        try await harness.waitUntilCommandsWaitForABusySlot(1)
        try await harness.settle()
        // Slot 1's command must wait: the reader works on one slot at a time.
        #expect(await harness.reader.apdusProcessed == 1, "slot 1's command went out while slot 0's was outstanding")
        #expect(await order.order.isEmpty)
        await harness.clock.advance(by: .seconds(2))
        #expect(try await slow.value == [0xA0, 0xA0, 0x90, 0x00])
        #expect(try await fast.value == [0xB1, 0xB1, 0x90, 0x00])
        #expect(await order.order == [0, 1])
        #expect(await harness.reader.slotBusyRefusals == 0)
    }

    @Test("answers come back as the cards finish, each to the slot that asked", arguments: [UInt8(3), UInt8(2)])
    func framesRoutedBySlot(busySlots: UInt8) async throws {
        let delays: [Duration] = [.seconds(4), .seconds(1), .seconds(2)]
        let harness = await MultiSlotHarness(busySlots: busySlots, cards: delays.map { SlowEchoCard(delay: $0) })
        for slot in 0..<3 { _ = try await harness.driver.powerOn(slot: UInt8(slot)) }
        let order = CompletionOrder()
        var tasks: [Task<[UInt8], any Error>] = []
        for slot in 0..<3 {
            tasks.append(
                Task {
                    let answer = try await harness.driver.transmit(echo(0xC0 + UInt8(slot)), slot: UInt8(slot))
                    await order.note(slot)
                    return answer
                })
            // One at a time, so the commands reach the driver in slot order.
            if slot < Int(busySlots) {
                try await harness.waitUntilCardsReceived(slot + 1)
            } else {
                try await harness.waitUntilCommandsWaitForABusySlot(slot + 1 - Int(busySlots))
            }
        }
        #expect(
            await harness.reader.apdusProcessed == Int(busySlots), "more commands outstanding than bMaxCCIDBusySlots")
        // Gates instead of fixed waits: each second of the clock moves only once what was due by
        // then has happened (answers noted; with two busy slots, slot 2's command out at 1 s).
        let finishedBy: [Int: Int] = [1: 1, 3: 2, 4: 3]
        for second in 1...5 {
            await harness.clock.advance(by: .seconds(1))
            if let count = finishedBy[second] { try await order.waitUntilNoted(count) }
            if second == 1 { try await harness.waitUntilCardsReceived(3) }
        }
        for slot in 0..<3 {
            let marker = 0xC0 + UInt8(slot)
            #expect(try await tasks[slot].value == [marker, marker, 0x90, 0x00])
        }
        // Slot 1 (1 s) first, then slot 2 (2 s; with two busy slots it starts when slot 1 is
        // done and ends at 3 s), then slot 0 (4 s).
        #expect(await order.order == [1, 2, 0])
        #expect(await harness.reader.slotBusyRefusals == 0)
    }

    @Test("frames for a slot nobody waits on are discarded; the waiting slot gets its own answer")
    func strayFramesAreDiscarded() async throws {
        let log = CCIDLogCapture()
        // Two answers to slot 2, which has no exchange, come before slot 1's.
        let stray = [2, 2].map { slot in
            CCIDResponse(
                slot: UInt8(slot), sequence: 0x77, state: .init(icc: .presentActive, command: .processed),
                kind: .dataBlock(chainParameter: 0, data: [0xEE])
            ).encoded()
        }
        let injected = FrameInjection(frames: stray)
        let harness = await MultiSlotHarness(
            busySlots: 3, cards: [EchoCard(), EchoCard(), EchoCard()],
            transport: { InjectingTransport(inner: InMemoryUSBTransport(reader: $0), injection: injected) },
            logger: log.logger())
        _ = try await harness.driver.powerOn(slot: 1)
        await injected.arm()
        #expect(try await harness.driver.transmit(echo(0xD1), slot: 1) == [0xD1, 0xD1, 0x90, 0x00])
        #expect(await injected.remaining == 0)
        let discarded = log.all.filter {
            $0.message.contains("discarding CCID frame") || $0.message.contains("for no waiting slot")
        }
        #expect(discarded.count >= 2, "\(log.all.map(\.message))")
    }

    @Test("cancelling slot 0's exchange aborts it and leaves slot 1's exchange intact")
    func cancellationIsPerSlot() async throws {
        let harness = await MultiSlotHarness(
            busySlots: 2, cards: [SlowEchoCard(delay: .seconds(2)), SlowEchoCard(delay: .seconds(2))])
        _ = try await harness.driver.powerOn(slot: 0)
        _ = try await harness.driver.powerOn(slot: 1)
        let first = Task { try await harness.driver.transmit(echo(0xE0), slot: 0) }
        let second = Task { try await harness.driver.transmit(echo(0xE1), slot: 1) }
        try await harness.waitUntilCardsReceived(2)
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        // The abort went through without the clock moving; slot 1 still waits for its card.
        try await harness.settle()
        #expect(harness.clock.now() == .zero)
        await harness.clock.advance(by: .seconds(2))
        #expect(try await second.value == [0xE1, 0xE1, 0x90, 0x00])
        // Slot 0 is usable again.
        let again = Task { try await harness.driver.transmit(echo(0xE2), slot: 0) }
        try await harness.waitUntilCardsReceived(3)
        await harness.clock.advance(by: .seconds(2))
        #expect(try await again.value == [0xE2, 0xE2, 0x90, 0x00])
    }

    // The time limit ends a driver that holds slot 1 behind slot 0's storm as a failure (see
    // slotsExchangeSideBySide).
    @Test(
        "a time-extension storm on slot 0 ends at slot 0's exchange time limit; slot 1 exchanges meanwhile",
        .timeLimit(.minutes(2)))
    func exchangeTimeLimitPerSlot() async throws {
        let harness = await MultiSlotHarness(
            busySlots: 2, cards: [EchoCard(), EchoCard()], exchangeTimeLimit: .seconds(60))
        _ = try await harness.driver.powerOn(slot: 0)
        _ = try await harness.driver.powerOn(slot: 1)
        await harness.reader.inject(.timeExtensionStorm(interval: .seconds(2), multiplier: 1))
        let ended = CompletionOrder()
        let stormy = Task {
            // The clock is read when the exchange ends, not when the noting task gets to run.
            defer {
                let endedAt = Int(harness.clock.now() / .milliseconds(1))
                Task { await ended.note(endedAt) }
            }
            return try await harness.driver.transmit(echo(0xF0), slot: 0)
        }
        try await harness.waitUntilCardsReceived(1)
        // Slot 1 keeps working while slot 0's reader asks for more time, 10 s of clock apart.
        for round in 0..<5 {
            let marker = 0xF1 + UInt8(round)
            #expect(try await harness.driver.transmit(echo(marker), slot: 1) == [marker, marker, 0x90, 0x00])
            for _ in 0..<20 {
                await harness.clock.advance(by: .milliseconds(500))
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        #expect(harness.clock.now() == .seconds(50), "slot 1 waited for slot 0")
        while await ended.order.isEmpty, harness.clock.now() < .seconds(120) {
            await harness.clock.advance(by: .milliseconds(500))
            try await Task.sleep(for: .milliseconds(1))
        }
        await #expect(throws: CCIDDriverError.exchangeTimeLimitExceeded(limit: .seconds(60), during: .xfrBlock)) {
            try await stormy.value
        }
        let endedAt = try #require(await ended.order.first)
        #expect((60_000...70_000).contains(endedAt), "slot 0 held for \(endedAt) ms")
        // Slot 0 is usable again, and nothing was refused as busy.
        #expect(try await harness.driver.transmit(echo(0xF9), slot: 0) == [0xF9, 0xF9, 0x90, 0x00])
        #expect(await harness.reader.slotBusyRefusals == 0)
    }

    // The driver starts an operation's clock with its first message, not on entry; a wait for
    // a busy slot must still count (it is where a slow neighbour holds a caller longest).
    @Test(
        "bMaxCCIDBusySlots 1: the wait for the busy slot counts against the exchange time limit",
        .timeLimit(.minutes(1)))
    func busySlotWaitCountsAgainstTheLimit() async throws {
        let harness = await MultiSlotHarness(
            busySlots: 1, cards: [SlowEchoCard(delay: .seconds(2)), SlowEchoCard(delay: .seconds(2))],
            exchangeTimeLimit: .seconds(3))
        _ = try await harness.driver.powerOn(slot: 0)
        _ = try await harness.driver.powerOn(slot: 1)
        let first = Task { try await harness.driver.transmit(echo(0xA0), slot: 0) }
        try await harness.waitUntilCardsReceived(1)
        let waiting = Task { try await harness.driver.transmit(echo(0xB1), slot: 1) }
        try await harness.waitUntilCommandsWaitForABusySlot(1)
        await harness.clock.advance(by: .seconds(2))
        #expect(try await first.value == [0xA0, 0xA0, 0x90, 0x00])
        // Slot 1 waited 2 s for the busy slot, so 1 s of its 3 s is left for a 2 s card: the
        // limit ends it. Had its clock started with its message, the card's answer (at 4 s)
        // would come within the limit. (The clock keeps moving until the task has ended, so when
        // it ended is not exact on a loaded machine; the outcome is.)
        let outcome = await harness.clock.runAdvancing(by: .milliseconds(500), giveUpAt: .seconds(10)) {
            try await waiting.value
        }
        let result = try #require(outcome, "slot 1's exchange did not end within 10 s of the clock")
        #expect(throws: CCIDDriverError.exchangeTimeLimitExceeded(limit: .seconds(3), during: .xfrBlock)) {
            try result.get()
        }
    }

    @Test(
        "the simulated reader answers CMD_SLOT_BUSY beyond bMaxCCIDBusySlots and to a busy slot",
        arguments: [UInt8(1), UInt8(2)])
    func simulatorEnforcesBusySlots(busySlots: UInt8) async throws {
        let harness = await MultiSlotHarness(
            busySlots: busySlots, cards: [SlowEchoCard(delay: .seconds(2)), EchoCard()])
        _ = try await harness.driver.powerOn(slot: 0)
        _ = try await harness.driver.powerOn(slot: 1)
        let reader = harness.reader
        func send(_ kind: CCIDCommand.Kind, slot: UInt8, sequence: UInt8) async throws {
            try await reader.receiveBulkOut(CCIDCommand(slot: slot, sequence: sequence, kind: kind).encoded())
        }
        func answer() async throws -> CCIDResponse {
            try CCIDResponse(decoding: try await reader.nextBulkIn(maxLength: 1024, timeout: .zero))
        }
        try await send(
            .xfrBlock(blockWaitingTimeMultiplier: 0, levelParameter: 0, data: echo(0x01)), slot: 0, sequence: 0x40)
        // The same slot while it works: refused.
        try await send(.getSlotStatus, slot: 0, sequence: 0x41)
        let sameSlot = try await answer()
        #expect(sameSlot.slot == 0 && sameSlot.sequence == 0x41)
        #expect(sameSlot.state.command == .failed && sameSlot.errorCode == 0xE0)
        // Another slot: refused only when slot 0 already uses the device's one busy slot.
        try await send(.getSlotStatus, slot: 1, sequence: 0x42)
        let otherSlot = try await answer()
        #expect(otherSlot.slot == 1 && otherSlot.sequence == 0x42)
        if busySlots == 1 {
            #expect(otherSlot.state.command == .failed && otherSlot.errorCode == 0xE0)
        } else {
            #expect(otherSlot.state.command == .processed)
        }
        #expect(await reader.slotBusyRefusals == (busySlots == 1 ? 2 : 1))
        await harness.clock.advance(by: .seconds(2))
        let slow = try await answer()
        #expect(slow.slot == 0 && slow.sequence == 0x40 && slow.state.command == .processed)
    }

    @Test("card events per slot: each slot's watcher gets the messages about its slot")
    func interruptsPerSlot() async throws {
        let harness = await MultiSlotHarness(busySlots: 2, cards: [EchoCard(), EchoCard()])
        // The insertions' notices, one per slot.
        #expect(try await harness.driver.readInterrupt(slot: 0, timeout: .zero) != nil)
        #expect(try await harness.driver.readInterrupt(slot: 1, timeout: .zero) != nil)
        let watchSlot0 = Task { try await harness.driver.readInterrupt(slot: 0, timeout: .seconds(30)) }
        let watchSlot1 = Task { try await harness.driver.readInterrupt(slot: 1, timeout: .seconds(30)) }
        try await harness.settle()
        await harness.reader.removeCard(slot: 1)
        let slot1Event = try await watchSlot1.value
        guard case .slotChange(let changes)? = slot1Event else {
            Issue.record("slot 1 got \(String(describing: slot1Event))")
            return
        }
        #expect(changes.contains { $0.slot == 1 && $0.changed && !$0.cardPresent })
        try await harness.settle()
        await harness.reader.removeCard(slot: 0)
        guard case .slotChange(let slot0Changes)? = try await watchSlot0.value else {
            Issue.record("slot 0 got no slot change")
            return
        }
        // Slot 0's watcher did not get slot 1's removal first: its first message is its own.
        #expect(slot0Changes.contains { $0.slot == 0 && $0.changed && !$0.cardPresent })
        #expect(!slot0Changes.contains { $0.slot == 1 && $0.changed })
        #expect(try await harness.driver.readInterrupt(slot: 1, timeout: .zero) == nil)
    }
}

/// Frames to hand out before the real ones, once armed.
actor FrameInjection {
    private var frames: [[UInt8]]
    private var armed = false
    init(frames: [[UInt8]]) { self.frames = frames }
    func arm() { armed = true }
    var remaining: Int { frames.count }
    func take() -> [UInt8]? {
        guard armed, !frames.isEmpty else { return nil }
        return frames.removeFirst()
    }
}

/// A transport that delivers injected bulk-IN frames before the reader's own.
struct InjectingTransport: USBTransport {
    let inner: any USBTransport
    let injection: FrameInjection

    func bulkOut(_ data: [UInt8], timeout: Duration) async throws(USBTransportError) {
        try await inner.bulkOut(data, timeout: timeout)
    }

    func bulkIn(maxLength: Int, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
        if let frame = await injection.take() { return frame }
        return try await inner.bulkIn(maxLength: maxLength, timeout: timeout)
    }

    func interruptIn(maxLength: Int, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
        try await inner.interruptIn(maxLength: maxLength, timeout: timeout)
    }

    func control(_ request: USBControlRequest, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
        try await inner.control(request, timeout: timeout)
    }
}
