import CardFlow
import CardFlowCCID
import CardFlowSimulator
import Logging
import Testing

@testable import CardFlowCCIDProtocol

/// Seeded sessions of the real driver against character-level readers whose card slips on the
/// I/O line (``CharacterLineFault``: lost, extra and garbled T=0 procedure bytes, NULL floods,
/// wrong ACKs, truncated status words; T=1 blocks with a corrupted EDC, a lost byte or a wrong
/// LEN). Every operation must end in success or a typed ``CCIDDriverError`` within a budget of
/// CCID commands and virtual time, the whole campaign within a real-time deadline, and the
/// session after a faulty one must work exactly.
///
/// Run apart from the rest (Scripts/test.sh runs suites matching `Campaign` one at a time).
@Suite("Character-level fault campaign")
struct CharacterLevelCampaignTests {
    struct Lane: Sendable {
        let name: String
        let configuration: VirtualReaderConfiguration
        let contact: ContactInterface
        /// T=1 lanes draw T=1 faults, T=0 lanes T=0 faults.
        let t1: Bool
    }

    struct Tally: Sendable {
        var sessions = 0
        var faultySessions = 0
        var operations = 0
        /// Commands that succeeded with an answer other than the fault-free one.
        var wrongAnswers = 0
        /// The first few wrong answers: session, command, the fault injected before it.
        var wrongAnswerDetails: [String] = []
        var typedErrors: [String: Int] = [:]
        var faultsShown: [String: Int] = [:]
        var failures: [String] = []
        var maxCommandsPerSession = 0
    }

    static let seed: UInt64 = 0xC4A2_0019
    static let sessionsPerLane = 120
    /// The share of commands that meet an injected fault.
    static let faultRate: UInt64 = 30

    static func lanes() -> [Lane] {
        func character(_ configure: (inout VirtualReaderConfiguration) -> Void = { _ in }) -> VirtualReaderConfiguration
        {
            var configuration = VirtualReaderConfiguration.level(.character)
            configuration.descriptor.protocols = [.t0, .t1]
            configure(&configuration)
            return configuration
        }
        return [
            Lane(name: "T=0", configuration: character(), contact: .t0Only(ta1: nil), t1: false),
            Lane(
                name: "T=0, NULLs and one-byte ACKs, 138-byte messages",
                configuration: character {
                    $0.descriptor.maxMessageLength = 138
                    $0.characterLine = CharacterLineBehaviour(nullBytes: 2, oneByteAtATime: true)
                }, contact: .t0Only(ta1: nil), t1: false),
            Lane(name: "T=1 LRC", configuration: character(), contact: .t1Only(ta1: nil), t1: true),
            Lane(
                name: "T=1 CRC, IFSC 16, IFSD 24, host PPS",
                configuration: character {
                    $0.descriptor.features = []
                    $0.descriptor.maxIFSD = 24
                }, contact: ContactInterface(protocols: [0, 1], ta1: nil, ifsc: 16, errorDetection: .crc), t1: true),
        ]
    }

    /// The APDUs of a session on the APDU test card: every ISO case, a 61xx answer and its GET
    /// RESPONSE, a 256-byte answer and command data that T=0 sends in parts. (EXACT, the card's
    /// 6Cxx command, has INS 60, which T=0 cannot carry.)
    static let commands: [[UInt8]] = [
        [0x00, 0xA4, 0x04, 0x00, 0x07] + APDUTestCard.applicationID,
        [0x80, 0x10, 0x00, 0x00],
        [0x80, 0x30, 0x00, 0x00, 0x40] + (0..<64).map { UInt8($0) },
        [0x80, 0x32, 0x00, 0x00, 0x04],
        [0x80, 0x20, 0x05, 0x00, 0x00],
        [0x80, 0x20, 0x00, 0x00, 0x10],
        [0x80, 0x50, 0x00, 0x00, 0x20] + (0..<32).map { UInt8($0 * 5) },
        [0x00, 0xC0, 0x00, 0x00, 0x20],
    ]

    /// The check after a faulty session: power-on and answers known from the card's definition
    /// (PATTERN of 256 bytes from 7; DEFERRED with 4 bytes, 61 04, then GET RESPONSE: them
    /// reversed).
    static func probe(_ driver: CCIDDriver) async throws -> String? {
        _ = try await driver.powerOn()
        let pattern = try await driver.transmit([0x80, 0x20, 0x07, 0x00, 0x00])
        let deferred = try await driver.transmit([0x80, 0x50, 0x00, 0x00, 0x04, 1, 2, 3, 4])
        let fetched = try await driver.transmit([0x00, 0xC0, 0x00, 0x00, 0x04])
        try await driver.powerOff()
        let good =
            pattern == APDUTestCard.pattern(count: 256, start: 7) + [0x90, 0x00] && deferred == [0x61, 0x04]
            && fetched == [4, 3, 2, 1, 0x90, 0x00]
        return good
            ? nil
            : "PATTERN \(pattern.count) bytes ending \(pattern.suffix(2)), DEFERRED \(deferred), GET RESPONSE \(fetched)"
    }

    static func runLane(_ lane: Lane, seed: UInt64) async -> Tally {
        var random = SeededRandom(seed: seed)
        let clock = SkippingClock()
        let reader = VirtualCCIDReader(configuration: lane.configuration, clock: clock)
        await reader.insert(APDUTestCard(seed: seed, contactInterface: lane.contact))
        var logger = Logger(label: "cardflow.ccid.character-campaign")
        logger.logLevel = .critical
        var driverConfiguration = CCIDDriverConfiguration()
        driverConfiguration.maxT1Blocks = 256
        let driver = CCIDDriver(
            transport: InMemoryUSBTransport(reader: reader), descriptor: lane.configuration.descriptor,
            configuration: driverConfiguration, timeSource: ElapsedClockTimeSource(clock), logger: logger)
        // A NULL flood of 1 000 bytes read two at a time, T=1 runs of maxT1Blocks, per operation.
        let commandBudget = (commands.count + 2) * (1_000 + 2 * driverConfiguration.maxT1Blocks + 64)
        let timeBudget =
            (driverConfiguration.exchangeTimeLimit + driverConfiguration.abortTimeout * 16) * (commands.count + 2)
        var tally = Tally()
        // The answers of a fault-free session, to hold the others against.
        var reference: [[UInt8]] = []
        do {
            _ = try await driver.powerOn()
            for command in commands { reference.append(try await driver.transmit(command)) }
        } catch {
            tally.failures.append("\(lane.name): the fault-free session failed: \(error)")
            return tally
        }
        for index in 0..<sessionsPerLane {
            let label = "\(lane.name) seed \(seed) session \(index)"
            let commandsBefore = await reader.commandsReceived
            let startedAt = clock.now()
            var injected = 0
            var lastFault: ReaderFault?
            func attempt(_ body: () async throws -> Void) async {
                tally.operations += 1
                do {
                    try await body()
                } catch let error as CCIDDriverError {
                    tally.typedErrors[ChaosCampaignTests.kind(of: error), default: 0] += 1
                } catch {
                    tally.failures.append("\(label): untyped error \(type(of: error)): \(error)")
                }
            }
            await attempt { _ = try await driver.powerOn() }
            for (position, command) in commands.enumerated() {
                if random.next() % 100 < faultRate {
                    var menu =
                        lane.t1
                        ? CharacterLineFault.t1Faults(using: &random).map(ReaderFault.characterLine) + [.corruptT1Block]
                        : CharacterLineFault.t0Faults(using: &random).map(ReaderFault.characterLine)
                    if random.next() % 8 == 0 { menu = [.iccMute] }
                    let fault = menu[Int(random.next() % UInt64(menu.count))]
                    await reader.inject(fault)
                    lastFault = fault
                    injected += 1
                }
                await attempt {
                    let answer = try await driver.transmit(command)
                    if answer != reference[position] {
                        tally.wrongAnswers += 1
                        if tally.wrongAnswerDetails.count < 5 {
                            tally.wrongAnswerDetails.append(
                                "\(label) command \(position) after \(lastFault.map { "\($0)" } ?? "no fault"): "
                                    + "\(answer.count) bytes, ending \(answer.suffix(2))")
                        }
                    }
                }
            }
            await attempt { try await driver.powerOff() }
            let commands = await reader.commandsReceived - commandsBefore
            tally.maxCommandsPerSession = max(tally.maxCommandsPerSession, commands)
            if commands > commandBudget {
                tally.failures.append("\(label): \(commands) CCID commands, budget \(commandBudget)")
            }
            if clock.now() - startedAt > timeBudget {
                tally.failures.append("\(label): \(clock.now() - startedAt) of virtual time")
            }
            tally.sessions += 1
            guard injected > 0 else { continue }
            tally.faultySessions += 1
            // A fault still queued (no XfrBlock followed its injection) belongs to this session,
            // not to the probe.
            for _ in 0..<8 {
                guard await reader.pendingFaultCount > 0 else { break }
                _ = try? await driver.powerOn()
                _ = try? await driver.transmit([0x80, 0x10, 0x00, 0x00])
            }
            do {
                if let wrong = try await probe(driver) {
                    tally.failures.append("\(label): the next session got wrong answers: \(wrong)")
                }
            } catch {
                tally.failures.append("\(label): the next session failed: \(error)")
            }
        }
        tally.faultsShown = await reader.characterLineFaultsShown
        return tally
    }

    /// Sessions of every lane, two lanes at a time; nil when they did not all end by `deadline`
    /// (real time): a hang.
    static func campaign(seed: UInt64, deadline: Duration) async -> [String: Tally]? {
        let results = CampaignResults()
        let work = Task {
            await withTaskGroup(of: (String, Tally).self) { group in
                var pending = lanes().enumerated().makeIterator()
                for _ in 0..<2 {
                    if let (index, lane) = pending.next() {
                        group.addTask { (lane.name, await runLane(lane, seed: seed &+ UInt64(index))) }
                    }
                }
                for await (name, tally) in group {
                    await results.record(name, tally)
                    if let (index, lane) = pending.next() {
                        group.addTask { (lane.name, await runLane(lane, seed: seed &+ UInt64(index))) }
                    }
                }
            }
            await results.finish()
        }
        let clock = ContinuousClock()
        let end = clock.now + deadline
        while clock.now < end {
            if let done = await results.finished { return done }
            try? await Task.sleep(for: .milliseconds(50))
        }
        work.cancel()
        return nil
    }

    actor CampaignResults {
        private var tallies: [String: Tally] = [:]
        private(set) var finished: [String: Tally]?
        func record(_ name: String, _ tally: Tally) { tallies[name] = tally }
        func finish() { finished = tallies }
    }

    @Test("faults on the I/O line end in success or a typed error, within budget, and the next session works")
    func campaign() async throws {
        let started = ContinuousClock.now
        let tallies = try #require(
            await Self.campaign(seed: Self.seed, deadline: .seconds(120)),
            "the campaign did not end within 120 s: a hang")
        var shown: [String: Int] = [:]
        for lane in Self.lanes() {
            let tally = try #require(tallies[lane.name])
            let errors = tally.typedErrors.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
                separator: " ")
            let faults = tally.faultsShown.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
                separator: " ")
            print(
                "character campaign \(lane.name): \(tally.sessions) sessions (\(tally.faultySessions) with faults), "
                    + "\(tally.operations) operations, \(tally.wrongAnswers) wrong answers, "
                    + "max \(tally.maxCommandsPerSession) CCID commands per session; "
                    + "typed errors: \(errors); faults shown: \(faults)")
            #expect(tally.sessions == Self.sessionsPerLane, "\(lane.name)")
            #expect(
                tally.failures.isEmpty,
                "\(lane.name): \(tally.failures.count) failures, first: \(tally.failures.prefix(10))")
            #expect(tally.faultySessions > Self.sessionsPerLane / 2, "\(lane.name)")
            if lane.t1 {
                // T=1 error recovery (ISO/IEC 7816-3 §11.6) makes up for one slip per block:
                // every command gets its fault-free answer, except where a spoiled block passes
                // the EDC by chance (about 1 in 256 with LRC, 1 in 65 536 with CRC), which the
                // driver reports when the stub is no response APDU.
                let chance = lane.contact.errorDetection == .crc ? 0 : tally.faultsShown.values.reduce(0, +) / 100
                let unrecovered = tally.typedErrors.filter { $0.key != "responseTooShort" }
                #expect(unrecovered.isEmpty, "\(lane.name)")
                #expect(
                    tally.wrongAnswers + tally.typedErrors.values.reduce(0, +) <= chance,
                    "\(lane.name): \(tally.wrongAnswerDetails)")
            } else {
                // T=0 has no recovery: slips end commands in typed errors (or, where a slip looks
                // like valid characters, in a wrong answer, which T=0 cannot notice).
                #expect(!tally.typedErrors.isEmpty, "\(lane.name)")
            }
            shown.merge(tally.faultsShown, uniquingKeysWith: +)
        }
        // Every kind of slip reached the driver at least once.
        var random = SeededRandom(seed: 0)
        let kinds = Set(
            (CharacterLineFault.t0Faults(using: &random) + CharacterLineFault.t1Faults(using: &random)).map(\.name)
        )
        .union(["corruptT1Block"])
        #expect(kinds.subtracting(shown.keys).isEmpty, "never shown: \(kinds.subtracting(shown.keys).sorted())")
        print("character campaign: \(ContinuousClock.now - started)")
    }

    @Test("reader chaos on a character-level reader draws I/O line faults, which end typed")
    func readerChaosOnACharacterLevelReader() async throws {
        var configuration = VirtualReaderConfiguration.level(.character)
        configuration.descriptor.protocols = [.t0, .t1]
        let clock = SkippingClock()
        var shown: [String: Int] = [:]
        var failures: [String] = []
        for contact in [
            ContactInterface.t0Only(ta1: nil), ContactInterface(protocols: [1], ta1: nil, errorDetection: .crc),
        ] {
            configuration.chaos = ReaderChaos(seed: Self.seed, rate: 0.2)
            let reader = VirtualCCIDReader(configuration: configuration, clock: clock)
            await reader.insert(APDUTestCard(seed: 1, contactInterface: contact))
            var logger = Logger(label: "cardflow.ccid.character-chaos")
            logger.logLevel = .critical
            let driver = CCIDDriver(
                transport: InMemoryUSBTransport(reader: reader), descriptor: configuration.descriptor,
                configuration: ChaosCampaignTests.driverConfiguration, timeSource: ElapsedClockTimeSource(clock),
                logger: logger)
            for _ in 0..<60 {
                for operation in [nil] + Self.commands.map(Optional.some) {
                    do {
                        if let operation {
                            _ = try await driver.transmit(operation)
                        } else {
                            _ = try await driver.powerOn()
                        }
                    } catch is CCIDDriverError {
                    } catch {
                        failures.append("untyped \(error)")
                    }
                }
            }
            shown.merge(await reader.characterLineFaultsShown, uniquingKeysWith: +)
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        #expect(shown.count >= 4, "\(shown)")
    }
}
