import CardFlowSimulator

/// A card that answers every APDU with something drawn from its seed: nothing, one byte, a bare
/// 9000, data with a random status word, endless 61xx / 6Cxx / 91AF, or an oversize answer. The
/// soak puts it on readers among the well-behaved models, so the flows' I/O code meets answers
/// no specification allows.
public struct GarbageCard: VirtualCard {
    public let uid: [UInt8]
    private var random: SeededRandom

    public init(seed: UInt64) {
        var random = SeededRandom(seed: seed ^ 0x6A5D_39E1_0C2B_4F77)
        uid = [0x08] + (0..<3).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        self.random = random
    }

    public var kind: String { "garbage" }
    /// ISO-DEP type A with historical bytes "GRBG", so that rules can tell it apart.
    public var technology: ContactlessTechnology {
        .isoDepTypeA(ats: [0x09, 0x78, 0x80, 0x70, 0x02, 0x47, 0x52, 0x42, 0x47])
    }

    public mutating func powerOn() {}

    public mutating func process(_ command: [UInt8]) -> [UInt8] {
        let choice = random.next() % 10
        let sw2 = UInt8(truncatingIfNeeded: random.next())
        switch choice {
        case 0: return []
        case 1: return [0x90]
        case 2: return [0x90, 0x00]
        case 3: return [0x61, sw2]
        case 4: return [0x6C, sw2]
        case 5: return [0x91, 0xAF]
        case 6: return bytes(Int(random.next() % 300)) + [0x90, 0x00]
        case 7: return bytes(Int(random.next() % 40)) + [UInt8(truncatingIfNeeded: random.next()), sw2]
        case 8: return bytes(Int(random.next() % 16)) + [0x91, 0x00]
        default: return [0x6A, 0x82]
        }
    }

    private mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }
}
