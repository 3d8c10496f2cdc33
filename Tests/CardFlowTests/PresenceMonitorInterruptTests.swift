import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import Synchronization
import Testing

/// A reader may send interrupt messages CardFlow does not know, or cut short: card-presence
/// monitoring logs them, asks the reader, and goes on (pcsc-lite does the same).
@Suite("Presence monitor and odd interrupt messages")
struct PresenceMonitorInterruptTests {
    /// Collects a presence stream in the background until ``stop()``.
    final class PresenceRecorder: Sendable {
        private let seen = Mutex<[CardPresence]>([])
        private let ended = Atomic<Bool>(false)
        private let task = Mutex<Task<Void, Never>?>(nil)

        init(_ stream: AsyncStream<CardPresence>) {
            let consumer = Task { [self] in
                for await presence in stream { seen.withLock { $0.append(presence) } }
                ended.store(true, ordering: .releasing)
            }
            task.withLock { $0 = consumer }
        }

        func stop() {
            task.withLock { $0?.cancel() }
        }

        var values: [CardPresence] { seen.withLock { $0 } }
        var hasEnded: Bool { ended.load(ordering: .acquiring) }

        /// Waits (real time, bounded) until `count` values arrived or the stream ended.
        func waitFor(count: Int, within limit: Duration = .seconds(60)) async -> [CardPresence] {
            let deadline = ContinuousClock.now + limit
            while values.count < count && !hasEnded && ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(5))
            }
            return values
        }
    }

    @Test(
        "unknown and short interrupt messages: logged, the reader is asked, monitoring goes on",
        arguments: [
            [ReaderFault.unknownInterruptMessage], [.shortInterruptMessage],
            [.unknownInterruptMessage, .shortInterruptMessage, .unknownInterruptMessage],
        ])
    func oddMessagesDoNotStopMonitoring(faults: [ReaderFault]) async throws {
        let log = CapturedLog()
        let virtual = VirtualCCIDReader(configuration: VirtualReaderConfiguration())
        await virtual.insert(ISO7816Card(seed: 1))
        let reader = Reader.simulated(virtual, logger: log.logger())
        let recorder = PresenceRecorder(await reader.cardPresence())
        #expect(await recorder.waitFor(count: 1) == [.present])
        // Queued in order: the odd messages come before the removal's NotifySlotChange.
        for fault in faults { await virtual.inject(fault) }
        await virtual.removeCard()
        #expect(await recorder.waitFor(count: 2) == [.present, .absent])
        await virtual.insert(ISO7816Card(seed: 2))
        #expect(await recorder.waitFor(count: 3) == [.present, .absent, .present])
        #expect(!recorder.hasEnded, "monitoring stopped")
        let warnings = log.all.filter { $0.level == .warning && $0.message.contains("unexpected presence notice") }
        #expect(warnings.count == 1, "one warning, then debug: \(log.all)")
        recorder.stop()
    }

    /// A card taken away and another put down before the monitor asks the reader reads present
    /// → present in the slot status; the removal's NotifySlotChange still says the card left,
    /// and the stream must report it, or the new card is never handled (the soak's stalls).
    @Test func aFastSwapIsReportedAsRemovalAndArrival() async throws {
        let virtual = VirtualCCIDReader(configuration: VirtualReaderConfiguration())
        await virtual.insert(ISO7816Card(seed: 1))
        let reader = Reader.simulated(virtual)
        let recorder = PresenceRecorder(await reader.cardPresence())
        #expect(await recorder.waitFor(count: 1) == [.present])
        for seed in 2...4 {
            await virtual.removeCard()
            await virtual.insert(ISO7816Card(seed: UInt64(seed)))
        }
        let seen = await recorder.waitFor(count: 7)
        #expect(seen == [.present, .absent, .present, .absent, .present, .absent, .present], "\(seen)")
        recorder.stop()
    }

    /// Notifications queued while nobody watched are older than the status read that starts
    /// monitoring: a removal among them must not report the card now on the reader twice.
    @Test func notificationsQueuedBeforeMonitoringAreNotReplayed() async throws {
        let virtual = VirtualCCIDReader(configuration: VirtualReaderConfiguration())
        await virtual.insert(ISO7816Card(seed: 1))
        await virtual.removeCard()
        await virtual.insert(ISO7816Card(seed: 2))
        let reader = Reader.simulated(virtual)
        let recorder = PresenceRecorder(await reader.cardPresence())
        #expect(await recorder.waitFor(count: 1) == [.present])
        // Long enough for the monitor to have read anything still queued.
        try await Task.sleep(for: .milliseconds(300))
        #expect(recorder.values == [.present])
        await virtual.removeCard()
        #expect(await recorder.waitFor(count: 2) == [.present, .absent])
        recorder.stop()
    }
}

/// The simulated reader's transport with an interrupt pipe that fails once (stall, overflow…).
final class FailingInterruptTransport: USBTransport {
    let inner: InMemoryUSBTransport
    let failure: USBTransportError
    let failed = Atomic<Bool>(false)

    init(inner: InMemoryUSBTransport, failure: USBTransportError) {
        self.inner = inner
        self.failure = failure
    }

    func bulkOut(_ data: [UInt8], timeout: Duration) async throws(USBTransportError) {
        try await inner.bulkOut(data, timeout: timeout)
    }

    func bulkIn(maxLength: Int, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
        try await inner.bulkIn(maxLength: maxLength, timeout: timeout)
    }

    func interruptIn(maxLength: Int, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
        if !failed.exchange(true, ordering: .relaxed) { throw failure }
        return try await inner.interruptIn(maxLength: maxLength, timeout: timeout)
    }

    func control(_ request: USBControlRequest, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
        try await inner.control(request, timeout: timeout)
    }
}

extension PresenceMonitorInterruptTests {
    @Test(
        "a failing interrupt pipe: the monitor polls instead and still sees the card leave",
        arguments: [
            USBTransportError.stall(endpoint: "interrupt-IN"), .overflow(endpoint: "interrupt-IN"), .io("EPROTO"),
        ])
    func failingInterruptPipeFallsBackToPolling(failure: USBTransportError) async throws {
        let log = CapturedLog()
        let virtual = VirtualCCIDReader(configuration: VirtualReaderConfiguration())
        await virtual.insert(ISO7816Card(seed: 1))
        let configuration = virtual.configuration
        let transport = FailingInterruptTransport(inner: InMemoryUSBTransport(reader: virtual), failure: failure)
        let driver = CCIDDriver(transport: transport, descriptor: configuration.descriptor)
        let reader = Reader(
            info: ReaderInfo(
                id: "sim:0", name: configuration.name, vendorID: configuration.vendorID,
                productID: configuration.productID, descriptor: configuration.descriptor),
            driver: driver, logger: log.logger())
        let recorder = PresenceRecorder(await reader.cardPresence())
        #expect(await recorder.waitFor(count: 1) == [.present])
        await virtual.removeCard()
        #expect(await recorder.waitFor(count: 2) == [.present, .absent])
        #expect(!recorder.hasEnded, "monitoring stopped")
        #expect(log.all.contains { $0.level == .warning && $0.message.contains("polling instead") })
        recorder.stop()
    }
}
