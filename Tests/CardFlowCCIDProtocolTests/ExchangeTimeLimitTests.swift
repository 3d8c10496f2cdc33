import CardFlow
import CardFlowSimulator
import Synchronization
import Testing

@testable import CardFlowCCIDProtocol

/// A reader or card that keeps asking for more time must not hold one exchange beyond the
/// driver's exchange time limit, with or without configuration; afterwards the reader answers
/// again. Time is a manual clock shared by the simulated reader and the driver.
@Suite("Exchange time limit")
struct ExchangeTimeLimitTests {
    @Test("endless CCID time extensions end at the default limit, with no configuration at all")
    func endlessTimeExtensionsWithDefaults() async throws {
        let clock = ManualClock()
        // The slowest storm the protocol allows: a frame just before each extended timeout
        // (254 × 3 s; bError 0xFF counts as 1).
        let harness = await SimulatedReaderHarness(clock: clock, driverConfiguration: CCIDDriverConfiguration())
        _ = try await harness.driver.powerOn()
        await harness.reader.inject(.timeExtensionStorm(interval: .seconds(750), multiplier: 254))
        let driver = harness.driver
        let started = clock.now()
        let outcome = await clock.runAdvancing(by: .seconds(10), giveUpAt: .seconds(24 * 3600)) {
            try await driver.transmit(selectApplication)
        }
        let limit = CCIDDriverConfiguration().exchangeTimeLimit
        guard case .failure(let error)? = outcome else {
            Issue.record("the exchange did not end with an error within a day: \(String(describing: outcome))")
            return
        }
        #expect(error as? CCIDDriverError == .exchangeTimeLimitExceeded(limit: limit, during: .xfrBlock))
        #expect(limit <= .seconds(600), "minutes, not hours")
        #expect(clock.now() - started <= limit + .seconds(30), "held for \(clock.now() - started)")
        // The abort handshake left the reader in step: the next APDU is answered.
        #expect(try await harness.driver.transmit(selectApplication).suffix(2) == [0x90, 0x00])
    }

    /// A reader whose exchange limit is `exchangeTimeLimit` and that, once the application is
    /// selected, answers with time extensions every 2 s without end; READ BINARY is sent with
    /// the caller's `timeLimit`. Returns the error it ended with (nil when it did not end within
    /// an hour of the manual clock), when that was, and the reader.
    static func readDuringTimeExtensionStorm(exchangeTimeLimit: Duration, timeLimit: Duration?) async throws
        -> (error: (any Error)?, endedAt: Duration, harness: SimulatedReaderHarness)
    {
        let clock = ManualClock()
        var configuration = CCIDDriverConfiguration()
        configuration.exchangeTimeLimit = exchangeTimeLimit
        configuration.maxTimeExtensions = 100_000
        let harness = await SimulatedReaderHarness(clock: clock, driverConfiguration: configuration)
        _ = try await harness.driver.powerOn()
        #expect(try await harness.driver.transmit(selectApplication).suffix(2) == [0x90, 0x00])
        await harness.reader.inject(.timeExtensionStorm(interval: .seconds(2), multiplier: 1))
        let driver = harness.driver
        let outcome = await clock.runAdvancing(by: .milliseconds(500), giveUpAt: .seconds(3600)) {
            try await driver.transmit(readEF0101, timeLimit: timeLimit)
        }
        guard case .failure(let error)? = outcome else {
            Issue.record("no error within an hour: \(String(describing: outcome))")
            return (nil, clock.now(), harness)
        }
        return (error, clock.now(), harness)
    }

    @Test("a configured limit holds even when the count of extensions would allow more")
    func configuredLimitBeatsTheExtensionCount() async throws {
        let (error, endedAt, harness) = try await Self.readDuringTimeExtensionStorm(
            exchangeTimeLimit: .seconds(60), timeLimit: nil)
        #expect(error as? CCIDDriverError == .exchangeTimeLimitExceeded(limit: .seconds(60), during: .xfrBlock))
        #expect(endedAt <= .seconds(70))
        #expect(try await harness.driver.transmit(readEF0101) == (0..<32).map { UInt8($0) } + [0x90, 0x00])
    }

    @Test("a caller's shorter time limit ends the exchange at that limit, names it, and the reader answers again")
    func callersTimeLimit() async throws {
        let (error, endedAt, harness) = try await Self.readDuringTimeExtensionStorm(
            exchangeTimeLimit: .seconds(60), timeLimit: .seconds(5))
        #expect(error as? CCIDDriverError == .exchangeTimeLimitExceeded(limit: .seconds(5), during: .xfrBlock))
        #expect(endedAt <= .seconds(8), "ended at \(endedAt)")
        #expect(await harness.driver.counters.aborts == 1)
        #expect(try await harness.driver.transmit(readEF0101) == (0..<32).map { UInt8($0) } + [0x90, 0x00])
    }

    @Test("a caller's time limit longer than the exchange time limit leaves the driver's in charge")
    func callersLongerTimeLimit() async throws {
        let (error, endedAt, _) = try await Self.readDuringTimeExtensionStorm(
            exchangeTimeLimit: .seconds(20), timeLimit: .seconds(600))
        #expect(error as? CCIDDriverError == .exchangeTimeLimitExceeded(limit: .seconds(20), during: .xfrBlock))
        #expect(endedAt <= .seconds(25))
    }

    @Test("endless T=1 S(WTX) requests end at the limit; T=1 resynchronises and the card answers again")
    func endlessWaitingTimeExtensions() async throws {
        let clock = ManualClock()
        var configuration = CCIDDriverConfiguration()
        configuration.exchangeTimeLimit = .seconds(90)
        let harness = await SimulatedReaderHarness(
            .level(.tpdu), card: EchoCard(), clock: clock,
            driverConfiguration: configuration)
        _ = try await harness.driver.powerOn()
        await harness.reader.inject(.waitingTimeExtensionStorm(interval: .seconds(2), multiplier: 1))
        let driver = harness.driver
        let command = extendedEchoCommand(count: 20)
        let outcome = await clock.runAdvancing(by: .milliseconds(500), giveUpAt: .seconds(4 * 3600)) {
            try await driver.transmit(command)
        }
        guard case .failure(let error)? = outcome else {
            Issue.record("no error within four hours: \(String(describing: outcome))")
            return
        }
        #expect(error as? CCIDDriverError == .exchangeTimeLimitExceeded(limit: .seconds(90), during: .xfrBlock))
        #expect(clock.now() <= .seconds(100))
        let response = try await harness.driver.transmit(command)
        #expect(Array(response.prefix(20)) == Array(command[7..<27]))
    }

    @Test("the limit bounds a slow trickle of answers over many messages too (extended chaining)")
    func limitCoversAWholeChainedExchange() async throws {
        let clock = ManualClock()
        var configuration = CCIDDriverConfiguration()
        configuration.exchangeTimeLimit = .seconds(10)
        var reader = VirtualReaderConfiguration.level(.extendedAPDU)
        // Every message takes 2 s: each read is well within its own 3 s timeout, but the 30
        // messages of this exchange together are not.
        reader.timing.readerFirmware = .seconds(2)
        let harness = await SimulatedReaderHarness(
            reader, card: EchoCard(), clock: clock, driverConfiguration: configuration)
        let driver = harness.driver
        let powered = await clock.runAdvancing(by: .milliseconds(250), giveUpAt: .seconds(60)) {
            try await driver.powerOn()
        }
        guard case .success? = powered else {
            Issue.record("power-on failed: \(String(describing: powered))")
            return
        }
        let started = clock.now()
        let command = extendedEchoCommand(count: 3_000)
        let outcome = await clock.runAdvancing(by: .milliseconds(250), giveUpAt: started + .seconds(600)) {
            try await driver.transmit(command)
        }
        guard case .failure(let error)? = outcome else {
            Issue.record("no error: \(String(describing: outcome))")
            return
        }
        #expect(error as? CCIDDriverError == .exchangeTimeLimitExceeded(limit: .seconds(10), during: .xfrBlock))
        #expect(clock.now() - started <= .seconds(15))
    }
}
