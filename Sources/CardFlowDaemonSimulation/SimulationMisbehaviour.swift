import CardFlowSimulator

/// How often and how the `--simulate` world misbehaves (the soak): on a share of the arrivals
/// one thing goes wrong, drawn from a seed so a run can be repeated.
public struct SimulationMisbehaviour: Sendable, Hashable {
    /// Share of arrivals (0...1) with one fault.
    public var rate: Double
    /// Seed of every random choice.
    public var seed: UInt64
    /// The faults drawn from, by ``SimulationFault/name`` (all when nil).
    public var faults: Set<String>?

    public init(rate: Double, seed: UInt64 = 1, faults: Set<String>? = nil) {
        self.rate = min(max(rate, 0), 1)
        self.seed = seed
        self.faults = faults
    }
}

/// One thing that goes wrong during a card session.
public enum SimulationFault: Sendable, Hashable, CustomStringConvertible {
    /// A reader-side fault (garbled, short or stale frames, wrong bSeq, mute card, hardware
    /// error, no answer, stall, a burst of time extensions).
    case reader(ReaderFault)
    /// The card leaves after some APDUs; it comes back after a while, or never.
    case lift(afterAPDUs: Int, returnAfter: Duration?)
    /// The card leaves and another card of the same kind comes back.
    case swap(afterAPDUs: Int)
    /// The card answers garbage from the start (a ``GarbageCard`` instead of the model).
    case garbageCard
    /// The reader is unplugged; a new one takes its place.
    case unplug

    /// When the fault strikes: as the card arrives (identification) or when its job starts.
    public enum Moment: Sendable, Hashable { case arrival, jobStart }

    /// Every fault kind's name, as ``name`` gives it and `cardd --faults` takes it.
    public static let names = [
        "garbledResponse", "shortResponse", "staleFrame", "wrongSequence", "iccMute", "hardwareError",
        "noResponse", "stall", "timeExtensions", "lift", "liftForever", "swap", "garbageCard", "unplug",
    ]

    /// The kind's name (without its parameters).
    public var name: String { description }

    public var description: String {
        switch self {
        case .reader(let fault):
            switch fault {
            case .timeExtensions: "timeExtensions"
            case .cardWaitingTimeExtension: "cardWaitingTimeExtension"
            default: "\(fault)"
            }
        case .lift(_, let returnAfter): returnAfter == nil ? "liftForever" : "lift"
        case .swap: "swap"
        case .garbageCard: "garbageCard"
        case .unplug: "unplug"
        }
    }

    /// A fault drawn from `random` among `allowed` names (never a T=1 fault: APDU-level readers
    /// would keep it queued); nil when none is allowed.
    static func draw(_ random: inout SeededRandom, allowed: Set<String>?) -> SimulationFault? {
        let names = allowed.map { set in Self.names.filter(set.contains) } ?? Self.names
        guard !names.isEmpty else { return nil }
        switch names[Int(random.next() % UInt64(names.count))] {
        case "garbledResponse": return .reader(.garbledResponse)
        case "shortResponse": return .reader(.shortResponse)
        case "staleFrame": return .reader(.staleFrame)
        case "wrongSequence": return .reader(.wrongSequence)
        case "iccMute": return .reader(.iccMute)
        case "hardwareError": return .reader(.hardwareError)
        case "noResponse": return .reader(.noResponse)
        case "stall": return .reader(.stall)
        case "timeExtensions":
            return .reader(
                .timeExtensions(count: Int(random.next() % 200) + 1, multiplier: UInt8(random.next() % 255) + 1))
        case "lift":
            return .lift(afterAPDUs: Int(random.next() % 8), returnAfter: .milliseconds(Int(random.next() % 30)))
        case "liftForever": return .lift(afterAPDUs: Int(random.next() % 8), returnAfter: nil)
        case "swap": return .swap(afterAPDUs: Int(random.next() % 8))
        case "garbageCard": return .garbageCard
        default: return .unplug
        }
    }
}
