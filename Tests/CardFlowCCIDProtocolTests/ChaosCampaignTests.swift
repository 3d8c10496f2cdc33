import CardFlow
import CardFlowCCID
import CardFlowSimulator
import Foundation
import Logging
import Synchronization
import Testing

@testable import CardFlowCCIDProtocol

/// Many seeded sessions of the real driver against readers that misbehave at random (see
/// ``ReaderChaos``): every operation must end in success or a typed ``CCIDDriverError``, within a
/// budget of commands and (virtual) time, so a crash, a hang or a loop fails the campaign.
///
/// CI runs a modest number; `CARDFLOW_CAMPAIGN_SESSIONS=N` runs N sessions in all, and
/// `CARDFLOW_CAMPAIGN_SEED=S` moves every lane's seed.
@Suite("Chaos campaign")
struct ChaosCampaignTests {
    /// One kind of reader the campaign drives, with the card on it and the APDUs of a session.
    struct Lane: Sendable {
        let name: String
        let configuration: VirtualReaderConfiguration
        let makeCard: @Sendable () -> any VirtualCard
        let commands: [[UInt8]]
    }

    /// How one session ended.
    enum SessionOutcome: Sendable, Hashable {
        case clean
        /// Typed driver errors: the keys are the error kinds.
        case typed([String])
        case failed(String)
    }

    struct Tally: Sendable {
        var sessions = 0
        var clean = 0
        var operations = 0
        var typedErrors: [String: Int] = [:]
        var failures: [String] = []
        var commands = 0
        var maxCommandsPerSession = 0
        var maxVirtualTimePerSession: Duration = .zero

        mutating func merge(_ other: Tally) {
            sessions += other.sessions
            clean += other.clean
            operations += other.operations
            typedErrors.merge(other.typedErrors, uniquingKeysWith: +)
            failures += other.failures
            commands += other.commands
            maxCommandsPerSession = max(maxCommandsPerSession, other.maxCommandsPerSession)
            maxVirtualTimePerSession = max(maxVirtualTimePerSession, other.maxVirtualTimePerSession)
        }
    }

    static let environment = ProcessInfo.processInfo.environment
    static var sessionCount: Int { environment["CARDFLOW_CAMPAIGN_SESSIONS"].flatMap(Int.init) ?? 12_000 }
    static var baseSeed: UInt64 { environment["CARDFLOW_CAMPAIGN_SEED"].flatMap(UInt64.init) ?? 0xC4A0_5000 }

    /// The driver as shipped, except fewer T=1 blocks per APDU so a T=1 loop costs less to find.
    static var driverConfiguration: CCIDDriverConfiguration {
        var configuration = CCIDDriverConfiguration()
        configuration.maxT1Blocks = 256
        return configuration
    }

    /// Operations per session: power-on, the lane's APDUs, power-off. Each may take up to two
    /// T=1 runs (resynchronisation, then the command), discarded frames and an abort handshake.
    static func commandBudget(_ lane: Lane) -> Int {
        let configuration = driverConfiguration
        let perOperation =
            2 * configuration.maxT1Blocks + 3 * (configuration.maxDiscardedFrames + 2)
            + configuration.maxTimeExtensions + 16
        return (lane.commands.count + 2) * perOperation
    }

    static func timeBudget(_ lane: Lane) -> Duration {
        let configuration = driverConfiguration
        // Each operation ends at its time limit plus its abort handshake (control, Abort, frames).
        let abort = configuration.abortTimeout * (configuration.maxDiscardedFrames + 5)
        return (configuration.exchangeTimeLimit + abort + configuration.writeTimeout) * (lane.commands.count + 2)
    }

    static func lanes() -> [Lane] {
        func configuration(_ level: CCIDExchangeLevel, maxMessageLength: UInt32) -> VirtualReaderConfiguration {
            VirtualReaderConfiguration.level(level, maxMessageLength: maxMessageLength)
        }
        let iso: @Sendable () -> any VirtualCard = { ISO7816Card(seed: 1) }
        let echo: @Sendable () -> any VirtualCard = { EchoCard() }
        return [
            Lane(
                name: "short APDU", configuration: configuration(.shortAPDU, maxMessageLength: 271), makeCard: iso,
                commands: [selectApplication, readEF0101, [0x00, 0x84, 0x00, 0x00, 0x08]]),
            Lane(
                name: "extended APDU, chained", configuration: configuration(.extendedAPDU, maxMessageLength: 271),
                makeCard: echo,
                commands: [
                    extendedEchoCommand(count: 600), [0x00, 0xA4, 0x04, 0x00, 0x00], extendedEchoCommand(count: 40),
                ]),
            Lane(
                name: "extended APDU, absurd descriptor",
                configuration: configuration(.extendedAPDU, maxMessageLength: .max),
                makeCard: echo, commands: [extendedEchoCommand(count: 2_000), extendedEchoCommand(count: 3)]),
            Lane(
                name: "TPDU (T=1)", configuration: configuration(.tpdu, maxMessageLength: 271), makeCard: echo,
                commands: [
                    extendedEchoCommand(count: 300), [0x00, 0xA4, 0x04, 0x00, 0x00], extendedEchoCommand(count: 10),
                ]),
        ]
    }

    static func kind(of error: CCIDDriverError) -> String {
        switch error {
        case .transport(let transport, _):
            switch transport {
            case .timeout: "transport.timeout"
            case .stall: "transport.stall"
            case .overflow: "transport.overflow"
            case .noDevice: "transport.noDevice"
            default: "transport.other"
            }
        case .malformedResponse: "malformedResponse"
        case .sequenceMismatch: "sequenceMismatch"
        case .unexpectedResponse: "unexpectedResponse"
        case .slotError(let slotError, _, _): "slotError.\(slotError)"
        case .noCard: "noCard"
        case .cardMute: "cardMute"
        case .commandTooLong: "commandTooLong"
        case .responseTooLong: "responseTooLong"
        case .timeExtensionLimitExceeded: "timeExtensionLimitExceeded"
        case .exchangeTimeLimitExceeded: "exchangeTimeLimitExceeded"
        case .chainingViolation: "chainingViolation"
        case .t1Failure: "t1Failure"
        case .responseTooShort: "responseTooShort"
        case .invalidATR: "invalidATR"
        case .protocolSelection: "protocolSelection"
        case .ppsFailed: "ppsFailed"
        case .t0Failure: "t0Failure"
        case .extendedLengthNeedsT1: "extendedLengthNeedsT1"
        case .characterLevel: "characterLevel"
        case .unsupportedReader: "unsupportedReader"
        case .noSuchSlot: "noSuchSlot"
        case .cardNotPowered: "cardNotPowered"
        }
    }

    /// One session: power-on, the APDUs (each attempted even after a failure, as a caller
    /// retrying would), power-off.
    static func session(_ driver: CCIDDriver, commands: [[UInt8]]) async -> (outcome: SessionOutcome, operations: Int) {
        var errors: [String] = []
        var operations = 0
        func attempt(_ body: () async throws -> Void) async -> String? {
            operations += 1
            do {
                try await body()
            } catch let error as CCIDDriverError {
                errors.append(kind(of: error))
            } catch {
                return "untyped error \(type(of: error)): \(error)"
            }
            return nil
        }
        if let failure = await attempt({ _ = try await driver.powerOn() }) { return (.failed(failure), operations) }
        for command in commands {
            if let failure = await attempt({ _ = try await driver.transmit(command) }) {
                return (.failed(failure), operations)
            }
        }
        if let failure = await attempt({ try await driver.powerOff() }) { return (.failed(failure), operations) }
        return (errors.isEmpty ? .clean : .typed(errors), operations)
    }

    /// Sessions finished so far by a lane, for its watchdog.
    final class LaneProgress: Sendable {
        let sessions = Atomic<Int>(0)
    }

    /// Runs `count` sessions on one chaotic reader of `lane`. A watchdog checks every second
    /// that sessions keep finishing; one that takes 30 s of real time is reported as a hang
    /// (the lane is then abandoned, not awaited).
    static func run(_ lane: Lane, seed: UInt64, rate: Double, count: Int) async -> Tally {
        let progress = LaneProgress()
        let work = Task { await runSessions(lane, seed: seed, rate: rate, count: count, progress: progress) }
        var lastSeen = -1
        var stalledSince = ContinuousClock.now
        while true {
            // A finished lane answers at once; otherwise look again in a second.
            let finished = await withTaskGroup(of: Tally?.self) { group in
                group.addTask { await work.value }
                group.addTask {
                    try? await Task.sleep(for: .seconds(1))
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            if let finished { return finished }
            let done = progress.sessions.load(ordering: .relaxed)
            if done != lastSeen {
                lastSeen = done
                stalledSince = ContinuousClock.now
            } else if ContinuousClock.now - stalledSince > .seconds(30) {
                work.cancel()
                var tally = Tally()
                tally.failures.append(
                    "\(lane.name) seed \(seed) session \(done): no end within 30 s of real time (hang)")
                return tally
            }
        }
    }

    static func runSessions(_ lane: Lane, seed: UInt64, rate: Double, count: Int, progress: LaneProgress) async -> Tally
    {
        var configuration = lane.configuration
        configuration.chaos = ReaderChaos(seed: seed, rate: rate)
        configuration.seed = seed
        let clock = SkippingClock()
        let reader = VirtualCCIDReader(configuration: configuration, clock: clock)
        await reader.insert(lane.makeCard())
        // Failed abort handshakes are expected here and would only fill the test log.
        var logger = Logger(label: "cardflow.ccid.campaign")
        logger.logLevel = .error
        let driver = CCIDDriver(
            transport: InMemoryUSBTransport(reader: reader), descriptor: configuration.descriptor,
            configuration: driverConfiguration, timeSource: ElapsedClockTimeSource(clock), logger: logger)
        let commandBudget = commandBudget(lane)
        let timeBudget = timeBudget(lane)
        var tally = Tally()
        for index in 0..<count {
            let commandsBefore = await reader.commandsReceived
            let startedAt = clock.now()
            let (outcome, operations) = await session(driver, commands: lane.commands)
            let commands = await reader.commandsReceived - commandsBefore
            let elapsed = clock.now() - startedAt
            let label = "\(lane.name) seed \(seed) session \(index)"
            tally.sessions += 1
            tally.commands += commands
            tally.operations += operations
            tally.maxCommandsPerSession = max(tally.maxCommandsPerSession, commands)
            tally.maxVirtualTimePerSession = max(tally.maxVirtualTimePerSession, elapsed)
            switch outcome {
            case .clean: tally.clean += 1
            case .typed(let kinds): for kind in kinds { tally.typedErrors[kind, default: 0] += 1 }
            case .failed(let reason): tally.failures.append("\(label): \(reason)")
            }
            if commands > commandBudget {
                tally.failures.append("\(label): \(commands) commands, budget \(commandBudget)")
            }
            if elapsed > timeBudget {
                tally.failures.append("\(label): took \(elapsed) of virtual time, budget \(timeBudget)")
            }
            progress.sessions.add(1, ordering: .relaxed)
        }
        // The reader's queues stayed bounded whatever the chaos did.
        if await reader.pendingFaultCount > VirtualCCIDReader.maxQueuedFaults {
            tally.failures.append("\(lane.name) seed \(seed): \(await reader.pendingFaultCount) faults pending")
        }
        return tally
    }

    @Test("every session against chaotic readers ends in success or a typed error, within budget")
    func campaign() async throws {
        let lanes = Self.lanes()
        let total = max(Self.sessionCount, lanes.count)
        // Several seeds per lane kind, two lanes at a time (the machine has two cores).
        let seedsPerLane = max(1, min(8, total / (lanes.count * 250)))
        let perRun = max(1, total / (lanes.count * seedsPerLane))
        let started = ContinuousClock.now
        var tally = Tally()
        await withTaskGroup(of: Tally.self) { group in
            var runs: [(Lane, UInt64)] = []
            for (laneIndex, lane) in lanes.enumerated() {
                for seedIndex in 0..<seedsPerLane {
                    runs.append((lane, Self.baseSeed &+ UInt64(laneIndex * 1_000 + seedIndex)))
                }
            }
            var pending = runs.makeIterator()
            for _ in 0..<2 {
                if let (lane, seed) = pending.next() {
                    group.addTask { await Self.run(lane, seed: seed, rate: 0.2, count: perRun) }
                }
            }
            for await result in group {
                tally.merge(result)
                if let (lane, seed) = pending.next() {
                    group.addTask { await Self.run(lane, seed: seed, rate: 0.2, count: perRun) }
                }
            }
        }
        let seconds =
            Double((ContinuousClock.now - started).components.seconds)
            + Double((ContinuousClock.now - started).components.attoseconds) / 1e18
        let errors = tally.typedErrors.sorted { $0.value > $1.value }.map { "\($0.key)=\($0.value)" }.joined(
            separator: " ")
        print(
            "chaos campaign: \(tally.sessions) sessions, \(tally.operations) operations, \(tally.commands) CCID commands, "
                + "\(tally.clean) clean sessions, \(tally.failures.count) failures, \(String(format: "%.1f", seconds)) s; "
                + "max \(tally.maxCommandsPerSession) commands and \(tally.maxVirtualTimePerSession) virtual time per session; "
                + "typed errors: \(errors)")
        #expect(tally.sessions >= total - lanes.count * seedsPerLane)
        #expect(tally.failures.isEmpty, "\(tally.failures.count) failures, first: \(tally.failures.prefix(20))")
        // The campaign must exercise the failure paths, not only the happy one.
        #expect(tally.clean < tally.sessions)
        #expect(tally.typedErrors.count >= 8, "error kinds seen: \(tally.typedErrors.keys.sorted())")
    }

    @Test("a chaos seed replays the same faults")
    func chaosIsReproducible() async {
        let lane = Self.lanes()[0]
        let first = await Self.run(lane, seed: 77, rate: 0.3, count: 150)
        let second = await Self.run(lane, seed: 77, rate: 0.3, count: 150)
        #expect(first.typedErrors == second.typedErrors)
        #expect(first.commands == second.commands)
        #expect(first.clean == second.clean)
        let other = await Self.run(lane, seed: 78, rate: 0.3, count: 150)
        #expect(other.typedErrors != first.typedErrors || other.commands != first.commands)
    }
}
