import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import Testing

@testable import CardFlow

let selectApp = try! CommandAPDU(hex: "00A4040007A0000002471001")
let readFirstFile = try! CommandAPDU(hex: "00B0810020")
let firstFileContents = (0..<32).map { UInt8($0) }

/// A reader with a card on it, simulated, for session and flow tests.
func simulatedReader(
    card: (any VirtualCard)? = ISO7816Card(seed: 1), latency: Duration = .zero,
    clock: any ElapsedClock = RealClock()
) async -> (Reader, VirtualCCIDReader) {
    var configuration = VirtualReaderConfiguration()
    configuration.timing.extraLatency = latency
    let virtual = VirtualCCIDReader(configuration: configuration, clock: clock)
    if let card { await virtual.insert(card) }
    var driver = CCIDDriverConfiguration()
    driver.readTimeout = .seconds(60)
    return (Reader.simulated(virtual, driverConfiguration: driver), virtual)
}

@Suite("Reader and CardSession")
struct SessionTests {
    @Test func plainAsyncAwaitSession() async throws {
        let (reader, _) = await simulatedReader()
        let data = try await reader.withSession { session in
            _ = try await session.send(selectApp)
            return try await session.send(readFirstFile).data
        }
        #expect(data == firstFileContents)
    }

    @Test func sessionKnowsTheCardIdentity() async throws {
        let (reader, _) = await simulatedReader(card: ISO7816Card(seed: 9))
        let identity = try await reader.withSession { session in await session.identity }
        #expect(identity.uid == ISO7816Card.uid(fromSeed: 9))
        #expect(identity.atr == [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80])
        #expect(identity.key == identity.uid)
    }

    @Test func aCardAnsweringGetDataWithNoiseIsRecognisedByItsATR() async throws {
        // A hostile or odd card whose `FF CA` answer is not an anti-collision UID (here 12 bytes;
        // it could vary at every reset) must not make a returning card look like another one.
        struct NoisyUIDCard: VirtualCard {
            var inner = ISO7816Card(seed: 3)
            var kind: String { inner.kind }
            var technology: ContactlessTechnology { inner.technology }
            var uid: [UInt8] { Array(0..<12) }
            mutating func powerOn() { inner.powerOn() }
            mutating func process(_ command: [UInt8]) -> [UInt8] { inner.process(command) }
        }
        let (reader, _) = await simulatedReader(card: NoisyUIDCard())
        let identity = try await reader.withSession { session in await session.identity }
        #expect(identity.uid == nil)
        #expect(identity.key == identity.atr)
        #expect(CardIdentity.isAnticollisionUID([1, 2, 3, 4]))
        #expect(CardIdentity.isAnticollisionUID(Array(repeating: 1, count: 10)))
        #expect(!CardIdentity.isAnticollisionUID([]))
        #expect(!CardIdentity.isAnticollisionUID(Array(repeating: 1, count: 256)))
    }

    @Test func presenceStreamStartsWithTheCurrentState() async throws {
        let (reader, virtual) = await simulatedReader(card: nil)
        var events = await reader.cardPresence().makeAsyncIterator()
        #expect(await events.next() == .absent)
        await virtual.insert(ISO7816Card(seed: 2))
        #expect(await events.next() == .present)
        await virtual.removeCard()
        #expect(await events.next() == .absent)
    }

    @Test func connectWaitsForACard() async throws {
        let (reader, virtual) = await simulatedReader(card: nil)
        let session = Task { try await reader.withSession { session in await session.identity.uid } }
        try await Task.sleep(for: .milliseconds(50))
        await virtual.insert(ISO7816Card(seed: 4))
        #expect(try await session.value == ISO7816Card.uid(fromSeed: 4))
    }

    @Test func connectGivesUpAfterItsTimeout() async throws {
        let clock = ManualClock()
        let (reader, _) = await simulatedReader(card: nil)
        var policy = SessionPolicy()
        policy.connectTimeout = .seconds(5)
        policy.clock = clock
        let attempt = Task { try await reader.withSession(policy: policy) { _ in () } }
        while await clock.sleeperCount == 0 { await Task.yield() }
        await clock.advance(by: .seconds(5))
        await #expect(throws: SessionError.noCard(waited: .seconds(5))) { try await attempt.value }
    }

    @Test func cooldownSeparatesSessions() async throws {
        let clock = ManualClock()
        let (reader, _) = await simulatedReader()
        var policy = SessionPolicy()
        policy.cooldown = .seconds(5)
        policy.clock = clock
        try await reader.withSession(policy: policy) { _ in () }
        let second = Task { try await reader.withSession(policy: policy) { _ in "second" } }
        while await clock.sleeperCount == 0 { await Task.yield() }
        await clock.advance(by: .seconds(4))
        #expect(await clock.sleeperCount == 1, "still cooling down after 4 s")
        await clock.advance(by: .seconds(1))
        #expect(try await second.value == "second")
    }

    @Test func cancellingASessionMidAPDUReturnsAndFreesTheReader() async throws {
        // Card exchanges take 20 s of a manual clock that never advances: only cancellation can
        // end the session.
        let clock = ManualClock()
        let (reader, _) = await simulatedReader(latency: .seconds(20), clock: clock)
        let pending = Task { try await reader.withSession { session in try await session.send(selectApp) } }
        while await clock.sleeperCount == 0 { await Task.yield() }
        pending.cancel()
        await #expect(throws: CancellationError.self) { try await pending.value }
        // The abort handshake left the reader usable: the slot answers, a new session opens.
        #expect(try await reader.ccid!.driver.slotStatus().icc != .absent)
        let next = Task { try await reader.withSession { session in await session.identity.atr } }
        while await clock.sleeperCount == 0 { await Task.yield() }
        await clock.advance(by: .seconds(20))
        #expect(try await next.value == [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80])
    }

    @Test func apduTimeoutIsTyped() async throws {
        let (reader, virtual) = await simulatedReader()
        var policy = SessionPolicy()
        policy.apduTimeout = .milliseconds(100)
        await #expect(throws: SessionError.timedOut(what: "APDU INS A4", after: .milliseconds(100))) {
            try await reader.withSession(policy: policy) { session in
                await virtual.inject(.noResponse)
                return try await session.send(selectApp)
            }
        }
    }

    @Test func sessionsOnOneReaderAreServedInSubmissionOrder() async throws {
        let (reader, _) = await simulatedReader()
        let order = OrderLog()
        // Hold the reader so that all 100 requests queue up before any runs.
        let gate = try await reader.connect()
        var tasks: [Task<Void, any Error>] = []
        for index in 0..<100 {
            tasks.append(
                Task {
                    try await reader.withSession { session in
                        _ = try await session.send(selectApp)
                        await order.append(index)
                    }
                })
            // Each task is in the queue before the next is created (a gate, not a pause: a 1 ms
            // pause let a task overtake its predecessor on a loaded machine).
            let deadline = ContinuousClock.now + .seconds(30)
            while await reader.sessionsWaiting < index + 1, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(1))
            }
            #expect(await reader.sessionsWaiting == index + 1)
        }
        await gate.close()
        for task in tasks { try await task.value }
        #expect(await order.values == Array(0..<100))
    }

    @Test func eightReadersRunInParallel() async throws {
        // All eight readers share a manual clock and answer after 1 s of simulated time. If the
        // sessions ran one after another, at most one reader would be waiting on the clock at
        // a time; in parallel all eight wait together.
        let clock = ManualClock()
        var readers: [Reader] = []
        for _ in 0..<8 { readers.append(await simulatedReader(latency: .seconds(1), clock: clock).0) }
        let sessions = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for reader in readers {
                    group.addTask { _ = try await reader.withSession { session in try await session.send(selectApp) } }
                }
                try await group.waitForAll()
            }
        }
        // Two card exchanges per session (FF CA for the identity, then SELECT).
        for _ in 0..<2 {
            let waitStarted = ContinuousClock.now
            // Generous: in the parallel suite's first seconds every task may wait for a thread.
            while await clock.sleeperCount < 8, ContinuousClock.now - waitStarted < .seconds(60) {
                try await Task.sleep(for: .milliseconds(2))
            }
            // On failure the sessions stay asleep on the manual clock: end them, do not hang.
            guard await clock.sleeperCount == 8 else {
                Issue.record("\(await clock.sleeperCount) of 8 readers reached the card's latency")
                sessions.cancel()
                return
            }
            await clock.advance(by: .seconds(1))
        }
        try await sessions.value
    }
}

actor OrderLog {
    private(set) var values: [Int] = []
    func append(_ value: Int) { values.append(value) }
}

extension SessionTests {
    @Test func twoCardsInTheFieldGiveATypedError() async throws {
        let (reader, virtual) = await simulatedReader()
        await virtual.setExtraCardsInField(1)
        await #expect(throws: SessionError.cardNotActivated) { try await reader.withSession { _ in () } }
        // One card again: sessions work.
        await virtual.setExtraCardsInField(0)
        #expect(try await reader.withSession { session in try await session.send(selectApp).statusWord } == .success)
    }
}
