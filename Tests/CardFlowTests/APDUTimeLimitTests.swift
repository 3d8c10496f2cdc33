import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import Synchronization
import Testing

/// A session's APDU timeout reaches the backend as a time limit
/// (`ReaderDriver.transmit(_:timeLimit:clock:)`): the CCID driver holds the exchange to it with
/// its own transfer timeouts, other backends race a timer; either way the caller gets
/// `SessionError.timedOut` and the reader answers the next APDU.
@Suite("APDU time limits")
struct APDUTimeLimitTests {
    /// Real time, counting the waits that go through it: a timer raced against an exchange
    /// waits on the session's clock, the CCID driver's own limit does not.
    final class CountingRealClock: ElapsedClock {
        private let clock = RealClock()
        private let waits = Atomic<Int>(0)

        var waitCount: Int { waits.load(ordering: .acquiring) }

        func now() -> Duration { clock.now() }

        func suspend(until deadline: Duration) async throws {
            waits.add(1, ordering: .acquiringAndReleasing)
            try await clock.suspend(until: deadline)
        }

        var measuresRealTime: Bool { true }
    }

    /// A backend whose card never answers until the exchange is cancelled; it records that.
    actor StallingBackend: ReaderDriver {
        private(set) var cancelledExchanges = 0

        func powerOn(protocol cardProtocol: CardProtocol?) async throws -> [UInt8] { [0x3B, 0x00] }
        func powerOff() async throws {}

        func transmit(_ command: [UInt8]) async throws -> [UInt8] {
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                cancelledExchanges += 1
                throw error
            }
            return [0x90, 0x00]
        }

        func presence() async throws -> CardPresence { .present }
        func nextPresenceNotice(timeout: Duration) async throws -> PresenceNotice { .unsupported }
    }

    /// A backend that bounds exchanges itself: it records the limit it was given and reports it
    /// passed.
    actor SelfTimingBackend: ReaderDriver {
        private(set) var limits: [Duration] = []

        func powerOn(protocol cardProtocol: CardProtocol?) async throws -> [UInt8] { [0x3B, 0x00] }
        func powerOff() async throws {}
        func transmit(_ command: [UInt8]) async throws -> [UInt8] { [0x90, 0x00] }

        func transmit(_ command: consuming [UInt8], timeLimit: Duration, clock: any ElapsedClock) async throws
            -> [UInt8]
        {
            limits.append(timeLimit)
            throw ReaderExchangeTimedOut(limit: timeLimit)
        }

        func presence() async throws -> CardPresence { .present }
        func nextPresenceNotice(timeout: Duration) async throws -> PresenceNotice { .unsupported }
    }

    @Test("the CCID driver holds an APDU to the session's timeout itself, aborts it, and answers the next")
    func ccidDriverBoundsTheExchange() async throws {
        let (reader, virtual) = await simulatedReader()
        let clock = CountingRealClock()
        var policy = SessionPolicy()
        policy.clock = clock
        policy.apduTimeout = .milliseconds(150)
        let (timedOut, waits) = try await reader.withSession(policy: policy) { session in
            await virtual.inject(.noResponse)
            let before = clock.waitCount
            do {
                _ = try await session.send(selectApp)
                return (false, clock.waitCount - before)
            } catch {
                return (
                    error as? SessionError == .timedOut(what: "APDU INS A4", after: .milliseconds(150)),
                    clock.waitCount - before
                )
            }
        }
        #expect(timedOut)
        #expect(waits == 0, "no timer raced the exchange on the session's clock")
        let counters = try #require(await reader.ccid?.driver.counters)
        #expect(counters.aborts == 1, "the command was aborted as on cancellation")
        // The next APDUs go through the driver's own limit too, but one a loaded machine cannot
        // overrun: 150 ms from the call to the answer can pass before the command is even out.
        var patient = policy
        patient.apduTimeout = .seconds(60)
        let answer = try await reader.withSession(policy: patient) { session in
            _ = try await session.send(selectApp)
            return try await session.send(readFirstFile).data
        }
        #expect(answer == firstFileContents)
    }

    @Test("on a clock that is not real time the CCID reader races a timer on that clock instead")
    func anotherClockRacesATimer() async throws {
        // The reader keeps real time (its answers need no manual steps); the session's clock is manual.
        let clock = ManualClock()
        let (reader, virtual) = await simulatedReader()
        var policy = SessionPolicy()
        policy.clock = clock
        policy.apduTimeout = .seconds(2)
        let outcome = await clock.runAdvancing(by: .milliseconds(500), giveUpAt: .seconds(600)) { [policy] in
            try await reader.withSession(policy: policy) { session in
                await virtual.inject(.noResponse)
                return try await session.send(selectApp)
            }
        }
        guard case .failure(let error)? = outcome else {
            Issue.record("no timeout: \(String(describing: outcome))")
            return
        }
        #expect(error as? SessionError == .timedOut(what: "APDU INS A4", after: .seconds(2)))
        #expect(try #require(await reader.ccid?.driver.counters).aborts == 1, "cancelled, so aborted")
    }

    @Test("a backend without its own limit is cancelled by the raced timer")
    func defaultRacesATimerAndCancels() async throws {
        let backend = StallingBackend()
        let reader = Reader(info: ReaderInfo(id: "stall:0", name: "Stalling", backend: "stall"), driver: backend)
        let clock = ManualClock()
        var policy = SessionPolicy()
        policy.clock = clock
        policy.apduTimeout = .milliseconds(500)
        let outcome = await clock.runAdvancing(by: .milliseconds(100), giveUpAt: .seconds(600)) { [policy] in
            try await reader.withSession(policy: policy) { session in
                try await session.send(try CommandAPDU(hex: "00B0000001"))
            }
        }
        guard case .failure(let error)? = outcome else {
            Issue.record("no timeout: \(String(describing: outcome))")
            return
        }
        #expect(error as? SessionError == .timedOut(what: "APDU INS B0", after: .milliseconds(500)))
        #expect(await backend.cancelledExchanges == 1, "the exchange was cancelled, not left running")
    }

    @Test("the session hands its timeout to a backend that bounds exchanges itself")
    func sessionPassesItsTimeout() async throws {
        let backend = SelfTimingBackend()
        let reader = Reader(info: ReaderInfo(id: "self:0", name: "Self-timing", backend: "self"), driver: backend)
        var policy = SessionPolicy()
        policy.apduTimeout = .milliseconds(700)
        await #expect(throws: SessionError.timedOut(what: "APDU INS B0", after: .milliseconds(700))) {
            try await reader.withSession(policy: policy) { session in
                try await session.send(try CommandAPDU(hex: "00B0000001"))
            }
        }
        #expect(await backend.limits == [.milliseconds(700)])
        // Without a timeout the plain exchange is used.
        let answer = try await reader.withSession { session in
            try await session.send(try CommandAPDU(hex: "00B0000001"))
        }
        #expect(answer.statusWord == .success)
        #expect(await backend.limits.count == 1)
    }
}
