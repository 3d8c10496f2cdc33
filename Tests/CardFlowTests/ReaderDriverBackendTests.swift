import CardFlow
import Testing

/// A reader backend that is not CCID: an in-test "network reader" whose card answers READ
/// BINARY with its own counter, can be lifted and put back, and announces nothing (so presence
/// is polled). Sessions, flows, recovery and cooldown must work over it exactly as over CCID.
actor LoopbackBackend: ReaderDriver {
    struct Lost: CardLossClassifying {
        let cardLoss: CardLoss?
    }

    private(set) var cardPresent = true
    private(set) var powered = false
    private(set) var transmitted: [[UInt8]] = []
    private(set) var powerOns = 0
    /// Lift the card after this many more APDUs (nil: never).
    var liftAfter: Int?

    func setLiftAfter(_ count: Int?) { liftAfter = count }
    func lift() { cardPresent = false; powered = false }
    func putBack() { cardPresent = true }

    func powerOn(protocol cardProtocol: CardProtocol?) async throws -> [UInt8] {
        guard cardPresent else { throw Lost(cardLoss: .noCard) }
        powered = true
        powerOns += 1
        return [0x3B, 0x80, 0x80, 0x01, 0x01]
    }

    func powerOff() async throws { powered = false }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        if let left = liftAfter {
            if left == 0 { lift(); liftAfter = nil } else { liftAfter = left - 1 }
        }
        guard cardPresent else { throw Lost(cardLoss: .notResponding) }
        guard powered else { throw Lost(cardLoss: .notPowered) }
        transmitted.append(command)
        // GET DATA UID (PC/SC part 3): a fixed 7-byte UID so the card is recognised when it returns.
        if command.starts(with: [0xFF, 0xCA]) { return [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x90, 0x00] }
        return [UInt8(truncatingIfNeeded: transmitted.count), 0x90, 0x00]
    }

    func presence() async throws -> CardPresence { cardPresent ? .present : .absent }

    func nextPresenceNotice(timeout: Duration) async throws -> PresenceNotice { .unsupported }
}

@Suite("Readers over a backend that is not CCID")
struct ReaderDriverBackendTests {
    static func reader(_ backend: LoopbackBackend) -> Reader {
        Reader(info: ReaderInfo(id: "loop:0", name: "Loopback", backend: "loop"), driver: backend)
    }

    @Test func aSessionRunsOverTheProtocolAlone() async throws {
        let backend = LoopbackBackend()
        let reader = Self.reader(backend)
        let answer = try await reader.withSession { session in
            try await session.send(try CommandAPDU(hex: "00B0000001"))
        }
        #expect(answer.statusWord == .success)
        #expect(await backend.transmitted.last == [0x00, 0xB0, 0x00, 0x00, 0x01])
        #expect(await backend.powered == false, "closing the session powers the card off")
        #expect(reader.info.backend == "loop")
    }

    @Test func aFlowRecoversWhenTheCardIsLiftedAndPutBack() async throws {
        let backend = LoopbackBackend()
        let reader = Self.reader(backend)
        var policy = SessionPolicy()
        policy.presencePollInterval = .milliseconds(10)
        policy.cardReturnTimeout = .seconds(30)
        let flow = Flow.start("first") { session in try await session.send(try CommandAPDU(hex: "00B0000001")).data }
            .then("second") { _, session in try await session.send(try CommandAPDU(hex: "00B0000101")).data }
        // The identity read (FF CA) and the first step pass, the second step's APDU finds the card gone.
        await backend.setLiftAfter(2)
        let run = reader.run(flow, policy: policy)
        let putBack = Task {
            while await backend.cardPresent { try await Task.sleep(for: .milliseconds(5)) }
            try await Task.sleep(for: .milliseconds(50))
            await backend.putBack()
        }
        let data = try await run.value
        try await putBack.value
        #expect(data.count == 1)
        #expect(await backend.powerOns >= 2, "the card was powered on again after it came back")
    }

    @Test func noCardWithinTheConnectTimeoutIsTyped() async throws {
        let backend = LoopbackBackend()
        await backend.lift()
        let reader = Self.reader(backend)
        var policy = SessionPolicy()
        policy.connectTimeout = .milliseconds(100)
        policy.presencePollInterval = .milliseconds(10)
        let error = await #expect(throws: SessionError.self) { try await reader.withSession(policy: policy) { _ in } }
        guard case .noCard = error else { Issue.record("expected noCard, got \(String(describing: error))"); return }
    }

    @Test func presenceIsPolledWhenTheBackendAnnouncesNothing() async throws {
        let backend = LoopbackBackend()
        let reader = Self.reader(backend)
        let stream = await reader.cardPresence()
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == .present)
        await backend.lift()
        // The reader polls every 400 ms by default: the removal is seen without any notice.
        #expect(await iterator.next() == .absent)
    }
}
