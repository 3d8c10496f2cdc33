import Synchronization
import Testing

@testable import CardFlowCCIDProtocol

@Suite("USB card events")
struct USBCardEventSourceTests {
    /// An interrupt endpoint that plays a script, then waits until cancelled.
    final class ScriptedInterruptTransport: USBTransport {
        private let script: Mutex<[Result<[UInt8], USBTransportError>]>
        private let cancellationSeen = Atomic<Bool>(false)
        private let readCount = Atomic<Int>(0)
        var sawCancellation: Bool { cancellationSeen.load(ordering: .relaxed) }
        var reads: Int { readCount.load(ordering: .relaxed) }

        init(_ script: [Result<[UInt8], USBTransportError>]) {
            self.script = Mutex(script)
        }

        func interruptIn(maxLength: Int, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
            readCount.add(1, ordering: .relaxed)
            while true {
                if let next = script.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return try next.get() }
                do {
                    try await Task.sleep(for: .milliseconds(2))
                } catch {
                    cancellationSeen.store(true, ordering: .relaxed)
                    throw .cancelled
                }
            }
        }

        func bulkOut(_ data: [UInt8], timeout: Duration) async throws(USBTransportError) {}
        func bulkIn(maxLength: Int, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
            throw .timeout(endpoint: "bulk-IN", after: timeout)
        }
        func control(_ request: USBControlRequest, timeout: Duration) async throws(USBTransportError) -> [UInt8] { [] }
    }

    /// Answers of a slot-status closure, in order; the last one repeats.
    final class StatusScript: Sendable {
        private let answers: Mutex<[Result<Bool, any Error>]>
        init(_ answers: [Result<Bool, any Error>]) { self.answers = Mutex(answers) }
        func next(_ slot: UInt8) throws -> Bool {
            try answers.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] }.get()
        }
    }

    static func change(_ present: Bool, changed: Bool) -> CCIDInterruptMessage {
        .slotChange([.init(slot: 0, cardPresent: present, changed: changed)])
    }

    static func collect(_ stream: AsyncStream<CCIDInterruptMessage>) async -> [CCIDInterruptMessage] {
        var messages: [CCIDInterruptMessage] = []
        for await message in stream { messages.append(message) }
        return messages
    }

    @Test func interruptMessagesUntilUnplug() async {
        let transport = ScriptedInterruptTransport([
            .success([0x50, 0x03]),
            .failure(.timeout(endpoint: "interrupt-IN", after: .seconds(1))),
            .success([0x99]), // unknown: the reader is asked
            .success([0x51, 0x00, 0x07, 0x01]),
            .success([0x50, 0x02]),
            .failure(.noDevice),
        ])
        // Empty at the start; the reader, asked after the unknown message, agrees with the
        // NotifySlotChange before it, so nothing is reported for it.
        let status = StatusScript([.success(false), .success(true)])
        let source = USBCardEventSource(transport: transport, interruptPacketLength: 8) { try status.next($0) }
        let messages = await Self.collect(source.events())
        #expect(
            messages == [
                Self.change(false, changed: false),
                Self.change(true, changed: true),
                .hardwareError(slot: 0, sequence: 7, code: 1),
                Self.change(false, changed: true),
            ])
    }

    @Test func pollingWithoutInterruptEndpointUntilUnplug() async {
        let transport = ScriptedInterruptTransport([])
        let status = StatusScript([
            .success(false), .success(false), .success(true), .success(true),
            .failure(
                CCIDDriverError.transport(.timeout(endpoint: "bulk-IN", after: .seconds(3)), during: .getSlotStatus)),
            .success(false),
            .failure(CCIDDriverError.transport(.noDevice, during: .getSlotStatus)),
        ])
        let source = USBCardEventSource(
            transport: transport, interruptPacketLength: nil, pollInterval: .milliseconds(5)
        ) {
            try status.next($0)
        }
        let messages = await Self.collect(source.events())
        #expect(
            messages == [
                Self.change(false, changed: false),
                Self.change(true, changed: true),
                Self.change(false, changed: true),
            ])
        #expect(transport.reads == 0)
    }

    @Test func multiSlotPollingReportsWhichSlotChanged() async {
        let transport = ScriptedInterruptTransport([])
        let answers = Mutex<[[Bool]]>([[false, true], [true, true], [true, true]])
        let source = USBCardEventSource(
            transport: transport, slotCount: 2, interruptPacketLength: nil,
            pollInterval: .milliseconds(5)
        ) { slot in
            let round = answers.withLock { rounds -> [Bool]? in
                guard !rounds.isEmpty else { return nil }
                let round = rounds[0]
                if slot == 1 { rounds.removeFirst() }
                return round
            }
            guard let round else { throw USBTransportError.noDevice }
            return round[Int(slot)]
        }
        let messages = await Self.collect(source.events())
        #expect(
            messages == [
                .slotChange([
                    .init(slot: 0, cardPresent: false, changed: false),
                    .init(slot: 1, cardPresent: true, changed: false),
                ]),
                .slotChange([
                    .init(slot: 0, cardPresent: true, changed: true), .init(slot: 1, cardPresent: true, changed: false),
                ]),
            ])
    }

    @Test func stoppingTheConsumerCancelsThePendingRead() async throws {
        let transport = ScriptedInterruptTransport([.success([0x50, 0x03])])
        let source = USBCardEventSource(transport: transport, interruptPacketLength: 8) { _ in false }
        let consumer = Task {
            var first: [CCIDInterruptMessage] = []
            for await message in source.events() {
                first.append(message)
                if first.count == 2 { break }
            }
            return first
        }
        #expect(await consumer.value == [Self.change(false, changed: false), Self.change(true, changed: true)])
        // The watch task notices the termination and its pending read is cancelled (bounded in
        // real time, generously: a loaded machine can stall the pool for a second or more).
        let deadline = ContinuousClock.now + .seconds(60)
        while !transport.sawCancellation, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(transport.sawCancellation)
    }

    @Test func unplugDetection() {
        #expect(USBCardEventSource.isUnplug(USBTransportError.noDevice))
        #expect(USBCardEventSource.isUnplug(CCIDDriverError.transport(.noDevice, during: .xfrBlock)))
        #expect(!USBCardEventSource.isUnplug(USBTransportError.cancelled))
        #expect(!USBCardEventSource.isUnplug(CCIDDriverError.noCard))
    }
}
