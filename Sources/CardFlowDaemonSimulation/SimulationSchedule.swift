import CardFlow
import CardFlowDaemon
import CardFlowSimulator
import Logging

/// The `--simulate` world: virtual readers on which virtual cards of each kind arrive, stay a
/// while, and leave, on a fixed schedule (each reader offset so that they do not move in lockstep).
///
/// Paced by the daemon instead (``SimulationPacing/whenHandled``, the soak), a card leaves as soon
/// as the daemon reported it handled and the next one comes at once, with no sleeping; with a
/// ``SimulationMisbehaviour``, a share of the sessions meets a fault (garbage, lifted cards,
/// stalls, unplugged readers).
///
/// ```swift
/// let schedule = try SimulationSchedule(readerCount: 2, kinds: [.ndef4, .iso7816], dwell: .seconds(2), gap: .seconds(1))
/// try await fleet.start(selectors: [], simulated: schedule.readers)
/// try await schedule.run(clock: RealClock())
/// ```
///
/// As a ``/CardFlowDaemon/ReaderSimulation`` it is what `cardd --simulate` hands the daemon.
public struct SimulationSchedule: ReaderSimulation {
    /// The card kinds the schedule cycles through by default: every kind the simulator has.
    public static var availableKinds: [SimulatedCardKind] {
        SimulatedCardKind.allCases.filter { kind in
            kind != .none && ((try? SimulatorSetup.makeCard(kind, seed: 1)) ?? nil) != nil
        }
    }

    public let virtualReaders: [VirtualCCIDReader]
    public let readers: [Reader]
    public let kinds: [SimulatedCardKind]
    /// How long a card stays on the reader.
    public let dwell: Duration
    /// How long the reader stays empty between cards.
    public let gap: Duration
    /// Stop after this many card arrivals in all (nil: run until cancelled).
    public let arrivals: Int?
    public let pacing: SimulationPacing
    public let misbehaviour: SimulationMisbehaviour?
    /// Added to every simulated card's seed, so that several simulating daemons (a fleet test)
    /// make cards with different UIDs.
    public let cardSeedBase: UInt64
    /// The readers as a registry the fleet watches (unplugged readers leave it, new ones join).
    public let registry: ManagedReaderRegistry
    /// What a paced run did.
    public let report = SimulationReport()
    /// How long a paced schedule waits for the daemon to report a card handled before it counts
    /// the arrival as unhandled and moves on (only a hang, or a lost event, takes this long).
    public let handlingBound: Duration
    private let logger: Logger

    public init(
        readerCount: Int = 2, kinds: [SimulatedCardKind] = SimulationSchedule.availableKinds,
        dwell: Duration = .seconds(3), gap: Duration = .seconds(1), arrivals: Int? = nil,
        pacing: SimulationPacing = .timed, misbehaviour: SimulationMisbehaviour? = nil,
        handlingBound: Duration = .seconds(20), cardSeedBase: UInt64 = 0, latency: Duration = .zero,
        logger: Logger = Logger(label: "cardd.simulator")
    ) throws(SimulationScheduleError) {
        self.cardSeedBase = cardSeedBase
        guard readerCount >= 1 else { throw .noReaders }
        guard !kinds.isEmpty else { throw .noCardKinds }
        for kind in kinds where kind == .none { throw .noCardKinds }
        var virtualReaders: [VirtualCCIDReader] = []
        var readers: [Reader] = []
        for index in 0..<readerCount {
            var configuration = VirtualReaderConfiguration(seed: UInt64(index + 1))
            configuration.name = "CardFlow Simulated Reader \(index)"
            configuration.timing.extraLatency = latency
            let virtual = VirtualCCIDReader(configuration: configuration, logger: logger)
            virtualReaders.append(virtual)
            readers.append(Reader.simulated(virtual, id: "sim:\(index)", logger: logger))
        }
        self.virtualReaders = virtualReaders
        self.readers = readers
        self.kinds = kinds
        self.dwell = dwell
        self.gap = gap
        self.arrivals = arrivals
        self.pacing = pacing
        self.misbehaviour = misbehaviour
        self.handlingBound = handlingBound
        self.registry = ManagedReaderRegistry(readers: readers)
        self.logger = logger
    }

    /// The share of `total` arrivals reader `index` handles (arrivals i, i+n, i+2n, …).
    private func share(of total: Int?, reader index: Int) -> Int? {
        total.map { ($0 - index + virtualReaders.count - 1) / virtualReaders.count }
    }

    /// A schedule with a number of ``arrivals`` ends by itself.
    public var isBounded: Bool { arrivals != nil }

    /// Runs the schedule on the real clock (see ``run(clock:bus:)``).
    public func run(bus: EventBus) async throws {
        try await run(clock: RealClock(), bus: bus)
    }

    /// Runs the schedule; a ``SimulationPacing/whenHandled`` schedule follows `bus` to know when
    /// the daemon is done with a card.
    public func run(clock: any ElapsedClock, bus: EventBus) async throws {
        guard pacing == .whenHandled else { return try await run(clock: clock) }
        let activity = ReaderActivity()
        // The pacing must see every arrival and handled event: with 16 readers a busy machine can
        // fall more than the bus's default 1,024 events behind, and a lost event looked like a
        // card the daemon never handled.
        let events = await bus.subscribe(bufferSize: 1 << 16)
        let follower = Task { await activity.follow(events) }
        defer { follower.cancel() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, virtual) in virtualReaders.enumerated() {
                let share = share(of: arrivals, reader: index)
                group.addTask { try await runPaced(reader: index, first: virtual, share: share, activity: activity) }
            }
            try await group.waitForAll()
        }
    }

    /// One reader's cards, each moved as soon as the daemon has dealt with the last.
    private func runPaced(reader index: Int, first: VirtualCCIDReader, share: Int?, activity: ReaderActivity)
        async throws
    {
        let id = readers[index].info.id
        var virtual = first
        var random = SeededRandom(seed: (misbehaviour?.seed ?? 0) &+ UInt64(index) &* 0x9E37_79B9)
        let bound = handlingBound
        var arrival = 0
        while share.map({ arrival < $0 }) ?? true {
            try Task.checkCancellation()
            if !(await activity.wait(for: id, timeout: bound) { !$0.present }) { await report.stillPresent() }
            let before = await activity.snapshot(id)
            let kind = kinds[(arrival * virtualReaders.count + index) % kinds.count]
            let seed = cardSeedBase &+ UInt64(1_000 * (index + 1) + arrival)
            var fault: SimulationFault?
            var moment = SimulationFault.Moment.arrival
            if let misbehaviour, Double(random.next() % 1_000_000) / 1_000_000 < misbehaviour.rate {
                fault = SimulationFault.draw(&random, allowed: misbehaviour.faults)
                moment = random.next() % 2 == 0 ? .arrival : .jobStart
            }
            let card: (any VirtualCard)?
            if fault == .garbageCard {
                card = GarbageCard(seed: seed)
            } else {
                card = try SimulatorSetup.makeCard(kind, seed: seed)
            }
            await report.arrived()
            if let fault { await report.injected(fault) }
            if let fault, moment == .arrival { await apply(fault, to: virtual, kind: kind, seed: seed) }
            if let card { await virtual.insert(card) }
            if let fault, moment == .jobStart {
                _ = await activity.wait(for: id, timeout: bound) {
                    $0.jobsStarted > before.jobsStarted || $0.handled > before.handled
                }
                await apply(fault, to: virtual, kind: kind, seed: seed)
            }
            // A reader unplugged before the card came reports no card at all: nothing to handle.
            let unpluggedFirst = fault == .unplug && moment == .arrival
            let handled = await activity.wait(for: id, timeout: unpluggedFirst ? .seconds(1) : bound) {
                $0.handled > before.handled
            }
            // Stopping: the wait was cut short, which says nothing about the daemon.
            try Task.checkCancellation()
            if !unpluggedFirst { await report.wasHandled(handled) }
            if !handled && !unpluggedFirst {
                let now = await activity.snapshot(id)
                logger.error(
                    "the daemon did not finish with a card in time",
                    metadata: [
                        "reader": "\(id)", "arrival": "\(arrival)",
                        "fault": "\(fault.map { "\($0) at \(moment)" } ?? "none")",
                        "seen":
                            "arrivals \(before.arrivals)→\(now.arrivals), jobs \(before.jobsStarted)→\(now.jobsStarted), handled \(before.handled)→\(now.handled), present \(now.present)",
                    ])
            }
            _ = await virtual.removeCard()
            if fault == .unplug {
                // The unplugged device is gone for good; a new one is plugged in with the same id.
                await registry.remove(id: id)
                var configuration = virtual.configuration
                configuration.seed &+= 1
                virtual = VirtualCCIDReader(configuration: configuration, logger: logger)
                await registry.add(Reader.simulated(virtual, id: id, logger: logger))
                await report.replugged()
            }
            arrival += 1
        }
    }

    private func apply(_ fault: SimulationFault, to virtual: VirtualCCIDReader, kind: SimulatedCardKind, seed: UInt64)
        async
    {
        switch fault {
        case .reader(let readerFault): await virtual.inject(readerFault)
        case .lift(let apdus, let returnAfter): await virtual.liftCard(afterAPDUs: apdus, returnAfter: returnAfter)
        case .swap(let apdus):
            let other = try? SimulatorSetup.makeCard(kind, seed: seed &+ 7_777_777)
            await virtual.liftCard(afterAPDUs: apdus, returnAfter: .milliseconds(5), replacement: other ?? nil)
        case .garbageCard: break
        case .unplug: await virtual.unplug()
        }
    }

    /// Moves cards on and off the readers until cancelled or `arrivals` cards have come and gone.
    public func run(clock: any ElapsedClock = RealClock()) async throws {
        let total = arrivals
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, virtual) in virtualReaders.enumerated() {
                // Reader i handles arrivals i, i+n, i+2n, … so that the total is exact.
                let share = share(of: total, reader: index)
                group.addTask {
                    try await clock.pause(for: gap * Double(index) / Double(virtualReaders.count))
                    var arrival = 0
                    while share.map({ arrival < $0 }) ?? true {
                        let kind = kinds[(arrival * virtualReaders.count + index) % kinds.count]
                        let seed = cardSeedBase &+ UInt64(1_000 * (index + 1) + arrival)
                        if let card = try SimulatorSetup.makeCard(kind, seed: seed) {
                            await virtual.insert(card)
                        }
                        try await clock.pause(for: dwell)
                        _ = await virtual.removeCard()
                        try await clock.pause(for: gap)
                        arrival += 1
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}

/// How a `--simulate` schedule moves cards.
public enum SimulationPacing: String, Sendable, Hashable {
    /// Each card stays `dwell`, then the reader stays empty `gap` (the demo).
    case timed
    /// Each card leaves once the daemon reported it handled; the next comes at once (the soak).
    case whenHandled
}

extension ElapsedClock {
    func pause(for duration: Duration) async throws {
        try await suspend(until: now() + duration)
    }
}

/// A `--simulate` schedule that cannot run.
public enum SimulationScheduleError: Error, Sendable, Hashable, CustomStringConvertible {
    case noReaders
    case noCardKinds

    public var description: String {
        switch self {
        case .noReaders: "the simulation needs at least one reader"
        case .noCardKinds: "the simulation needs at least one card kind (not 'none')"
        }
    }
}
