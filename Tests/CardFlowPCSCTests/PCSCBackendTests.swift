import CardFlowPCSCLite
import Foundation
import Testing

/// PCSCContext, PCSCReaderMonitor and PCSCCardConnection against the real pcscd + libccid,
/// driving CardFlow's simulated USB reader (Scripts/pcsc-backend-check.sh). Serialized: a reset
/// or an exclusive connection in one test would disturb the others' connections.
@Suite(.serialized, .pcscContextsReleased, .enabled(if: PCSCTestEnvironment.hasPCSCD, PCSCTestEnvironment.skipReason))
struct PCSCBackendTests {
    typealias Environment = PCSCTestEnvironment

    @Test func listsTheSimulatedReader() async throws {
        let context = try await Environment.context()
        let reader = try await Environment.simulatedReader(context)
        #expect(try await context.readers().contains(reader))
    }

    @Test func readerChangesStartWithTheReadersPresent() async throws {
        let context = try await Environment.context()
        let reader = try await Environment.simulatedReader(context)
        let listed = try await context.readers()
        let first = try await Environment.within(.seconds(10), "an arrival for each reader listed") {
            try await Environment.watching(context.watchReaderChanges()) { events in
                var first: [PCSCReaderEvent] = []
                while first.count < listed.count, let event = try await events.next() { first.append(event) }
                return first
            }
        }
        #expect(Set(first) == Set(listed.map { PCSCReaderEvent.arrived($0) }))
        #expect(first.contains(.arrived(reader)))
    }

    @Test func presenceReportsTheSimulatedCard() async throws {
        let context = try await Environment.context()
        let reader = try await Environment.simulatedReader(context)
        let first = try await Environment.within(.seconds(10), "the first presence event") {
            try await Environment.watching(PCSCReaderMonitor(reader: reader, logger: Environment.logger).watch()) {
                try await $0.next()
            }
        }
        #expect(first == .present(atr: Environment.simulatedATR))
    }

    @Test func connectGivesTheSimulatedCardsATR() async throws {
        let context = try await Environment.context()
        let card = try await context.connect(reader: try await Environment.simulatedReader(context))
        let status = try await card.status()
        #expect(status.atr == Environment.simulatedATR)
        let activeProtocol = await card.activeProtocol
        #expect(status.activeProtocol == activeProtocol)
        try await card.disconnect()
    }

    @Test func transmitsAllFourAPDUCases() async throws {
        let context = try await Environment.context()
        let card = try await context.connect(reader: try await Environment.simulatedReader(context))
        // Case 1: no data either way.
        #expect(try await card.transmit(SimulatedCard.selectMasterFile) == SimulatedCard.ok)
        // Case 3: command data, no answer data.
        #expect(try await card.transmit(SimulatedCard.selectApplicationNoFCI) == SimulatedCard.ok)
        // Case 4: command data and answer data.
        #expect(
            try await card.transmit(SimulatedCard.selectApplication) == SimulatedCard.applicationFCI + SimulatedCard.ok)
        // Case 2: answer data only.
        #expect(try await card.transmit(SimulatedCard.selectFile(0x01)) == SimulatedCard.ok)
        #expect(
            try await card.transmit(SimulatedCard.readBinary(0x20)) == (0..<32).map { UInt8($0) } + SimulatedCard.ok)
        try await card.disconnect()
    }

    @Test func transmitsA256ByteAnswer() async throws {
        let context = try await Environment.context()
        let card = try await context.connect(reader: try await Environment.simulatedReader(context))
        #expect(try await card.transmit(SimulatedCard.selectApplication).suffix(2) == [0x90, 0x00])
        #expect(try await card.transmit(SimulatedCard.selectFile(0x02)) == SimulatedCard.ok)
        let answer = try await card.transmit(SimulatedCard.readBinary(0x00))
        #expect(answer.count == 258)
        #expect(answer == (0..<256).map { UInt8($0 % 251) } + SimulatedCard.ok)
        try await card.disconnect()
    }

    @Test func reconnectWithResetClearsTheCardsState() async throws {
        let context = try await Environment.context()
        let card = try await context.connect(reader: try await Environment.simulatedReader(context))
        #expect(try await card.transmit(SimulatedCard.selectApplication).suffix(2) == [0x90, 0x00])
        #expect(try await card.transmit(SimulatedCard.selectFile(0x01)) == SimulatedCard.ok)
        #expect(try await card.transmit(SimulatedCard.readBinary(0x01)) == [0x00, 0x90, 0x00])
        try await card.reconnect(initialization: .reset)
        #expect(try await card.status().atr == Environment.simulatedATR)
        // A reset card has no current EF: 69 86.
        #expect(try await card.transmit(SimulatedCard.readBinary(0x01)) == [0x69, 0x86])
        try await card.disconnect(.unpower)
    }

    @Test func aDisconnectedConnectionThrowsClosed() async throws {
        let context = try await Environment.context()
        let card = try await context.connect(reader: try await Environment.simulatedReader(context))
        try await card.disconnect()
        try await card.disconnect() // twice: nothing
        await #expect(throws: PCSCError.closed(.transmit)) { try await card.transmit(SimulatedCard.selectMasterFile) }
        await #expect(throws: PCSCError.closed(.status)) { try await card.status() }
    }

    @Test func anExclusiveConnectionKeepsOthersOut() async throws {
        let context = try await Environment.context()
        let reader = try await Environment.simulatedReader(context)
        let exclusive = try await context.connect(reader: reader, share: .exclusive)
        let other = try await Environment.context()
        await #expect(throws: PCSCError.failed(.connect, .sharingViolation)) { try await other.connect(reader: reader) }
        try await exclusive.disconnect()
        let shared = try await other.connect(reader: reader)
        try await shared.disconnect()
    }

    @Test func aMissingReaderIsATypedError() async throws {
        let context = try await Environment.context()
        let missing = "CardFlow No Such Reader 00 00"
        await #expect(throws: PCSCError.failed(.connect, .unknownReader)) { try await context.connect(reader: missing) }
        await #expect(throws: PCSCError.failed(.getStatusChange, .unknownReader)) {
            try await Environment.within(.seconds(10), "the unknown reader's presence") {
                try await Environment.watching(PCSCReaderMonitor(reader: missing, logger: Environment.logger).watch()) {
                    while try await $0.next() != nil {}
                }
            }
        }
        await #expect(
            throws: PCSCError.invalidArgument(
                .connect, reason: "a reader name must be non-empty and contain no NUL byte")
        ) {
            try await context.connect(reader: "Card\0Flow")
        }
    }

    @Test func cancellingAPresenceWaitEndsItPromptlyWithSCardCancel() async throws {
        let context = try await Environment.context()
        let reader = try await Environment.simulatedReader(context)
        let watch = PCSCReaderMonitor(reader: reader, logger: Environment.logger).watch()
        var events = watch.updates.makeAsyncIterator()
        #expect(try await events.next() == .present(atr: Environment.simulatedATR))
        // Let the monitor enter its next SCardGetStatusChange (no timeout: only SCardCancel ends it).
        try await Task.sleep(for: .milliseconds(300))
        let start = ContinuousClock.now
        // stop() returns once the wait has left libpcsclite and the watch's context is released.
        try await Environment.within(.seconds(5), "the cancelled presence wait") { await watch.stop() }
        let elapsed = ContinuousClock.now - start
        #expect(elapsed < .milliseconds(500), "the wait took \(elapsed) to end after cancellation")
    }

    /// More presence watches than Swift's cooperative pool has threads (one per core): each
    /// blocks in `SCardGetStatusChange` on a thread of its own, never on the pool, so the rest of
    /// the process keeps running. Before, the waits ran on the pool and `cardctl --reader pcsc
    /// list` hung with two readers on a 2-core machine. A starved pool cannot run this test's own
    /// time-out either, so a watchdog thread ends the process with the reason instead of a hang.
    @Test func presenceWatchesLeaveSwiftsThreadPoolFree() async throws {
        let context = try await Environment.context()
        let reader = try await Environment.simulatedReader(context)
        let count = ProcessInfo.processInfo.activeProcessorCount + 2
        let watches = (0..<count).map { _ in PCSCReaderMonitor(reader: reader, logger: Environment.logger).watch() }
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            if finished.wait(timeout: .now() + .seconds(60)) == .timedOut {
                fatalError("\(count) presence watches starved Swift's cooperative thread pool")
            }
        }
        for watch in watches {
            var updates = watch.updates.makeAsyncIterator()
            #expect(try await updates.next() == .present(atr: Environment.simulatedATR))
        }
        // Every watch is (or is about to be) in its next wait: no change will end it.
        try await Task.sleep(for: .milliseconds(300))
        let pool = try await Environment.within(.seconds(5), "a task on the pool beside the watches") {
            await Task.detached { ProcessInfo.processInfo.activeProcessorCount }.value
        }
        #expect(pool == count - 2)
        for watch in watches { await watch.stop() }
        finished.signal()
    }

    @Test func aTransmitCancelledBeforeItStartsThrowsCancellationError() async throws {
        let context = try await Environment.context()
        let card = try await context.connect(reader: try await Environment.simulatedReader(context))
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await card.transmit(SimulatedCard.selectMasterFile)
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        // The connection is still in step with the card.
        #expect(try await card.transmit(SimulatedCard.selectMasterFile) == SimulatedCard.ok)
        try await card.disconnect()
    }
}
