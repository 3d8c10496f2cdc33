import CardFlow
import CardSimulator
import Logging

/// The `--simulate` world: virtual readers on which virtual cards of each kind arrive, stay a
/// while, and leave, on a fixed schedule (each reader offset so that they do not move in lockstep).
///
/// ```swift
/// let schedule = try SimulationSchedule(readerCount: 2, kinds: [.ndef4, .iso7816], dwell: .seconds(2), gap: .seconds(1))
/// try await fleet.start(selectors: [], simulated: schedule.readers)
/// try await schedule.run(clock: RealClock())
/// ```
public struct SimulationSchedule: Sendable {
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

    public init(readerCount: Int = 2, kinds: [SimulatedCardKind] = SimulationSchedule.availableKinds,
                dwell: Duration = .seconds(3), gap: Duration = .seconds(1), arrivals: Int? = nil,
                logger: Logger = Logger(label: "cardd.simulator")) throws(SimulationScheduleError) {
        guard readerCount >= 1 else { throw .noReaders }
        guard !kinds.isEmpty else { throw .noCardKinds }
        for kind in kinds where kind == .none { throw .noCardKinds }
        var virtualReaders: [VirtualCCIDReader] = []
        var readers: [Reader] = []
        for index in 0..<readerCount {
            var configuration = VirtualReaderConfiguration(seed: UInt64(index + 1))
            configuration.name = "CardFlow Simulated Reader \(index)"
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
    }

    /// Moves cards on and off the readers until cancelled or `arrivals` cards have come and gone.
    public func run(clock: any ElapsedClock = RealClock()) async throws {
        let total = arrivals
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, virtual) in virtualReaders.enumerated() {
                // Reader i handles arrivals i, i+n, i+2n, … so that the total is exact.
                let share = total.map { ($0 - index + virtualReaders.count - 1) / virtualReaders.count }
                group.addTask {
                    try await clock.pause(for: gap * Double(index) / Double(virtualReaders.count))
                    var arrival = 0
                    while share.map({ arrival < $0 }) ?? true {
                        let kind = kinds[(arrival * virtualReaders.count + index) % kinds.count]
                        let seed = UInt64(1_000 * (index + 1) + arrival)
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
