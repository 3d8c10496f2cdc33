/// A card that misbehaves on purpose, reproducibly: its answers come from a seed.
///
/// Alone, every answer is hostile. Wrapping a well-behaved card model, it lets that card answer
/// and replaces a share of the answers (``HostileCardConfiguration/hostilePercent``) with hostile
/// ones, so clients get past their first command and meet bad answers deep in their flows. When
/// powered, it may also fall into a sticky mode (endless `61xx`, `6Cxx`, `91 AF`, empty `90 00`,
/// mute) that lasts until the next power-on.
///
/// The answers are built from ISO/IEC 7816-4 (the status word families, Le, the data field) and
/// the DESFire status byte convention, not from any client's code. The card also answers the
/// PC/SC part 3 `FF` pseudo-APDUs itself (relaying the reader's correct answer for a wrapped
/// card), so UID and storage-tag commands can be hostile too.
///
/// ```swift
/// let virtual = VirtualCCIDReader()
/// await virtual.insert(HostileCard(configuration: .init(seed: 7, hostilePercent: 10), wrapping: NDEFType4Tag(seed: 7)))
/// ```
public struct HostileCard: VirtualCard {
    public var kind: String { "fuzz" }
    public let configuration: HostileCardConfiguration
    /// The well-behaved card whose answers are passed through or spoiled, if any.
    public private(set) var wrapped: (any VirtualCard)?
    public let uid: [UInt8]
    public let technology: ContactlessTechnology
    /// The sticky mode drawn at the last power-on, if any.
    public private(set) var stickyMode: HostileStickyMode?
    /// How many answers were hostile so far.
    public private(set) var hostileAnswerCount = 0
    /// How many commands the card answered so far.
    public private(set) var commandCount = 0
    private var random: SeededRandom

    /// Every `FF` instruction reaches the card: the reader-level answers can be spoiled as well.
    public var readerPassThroughInstructions: Set<UInt8> { Self.allInstructions }
    private static let allInstructions = Set(UInt8.min...UInt8.max)

    public init(configuration: HostileCardConfiguration, wrapping wrapped: (any VirtualCard)? = nil) {
        self.configuration = configuration
        self.wrapped = wrapped
        var random = SeededRandom(seed: configuration.seed ^ 0x4057_11E0_CA4D_5EED)
        if let wrapped {
            uid = wrapped.uid
            technology = wrapped.technology
        } else {
            // Sometimes an ISO 15693-looking UID, so clients take their vicinity-tag paths.
            let bits = random.next()
            uid =
                bits & 3 == 0
                ? [0xE0, 0x04] + (0..<6).map { UInt8(truncatingIfNeeded: bits >> (8 * UInt64($0 + 1))) }
                : [0x04] + (0..<6).map { UInt8(truncatingIfNeeded: bits >> (8 * UInt64($0 + 1))) }
            technology = bits & 3 == 0 ? .icodeSLI : .desfireTypeA
        }
        self.random = random
    }

    public mutating func powerOn() {
        wrapped?.powerOn()
        stickyMode = nil
        if !configuration.stickyModes.isEmpty, chance(percent: configuration.stickyPercent) {
            stickyMode = configuration.stickyModes.sorted { $0.rawValue < $1.rawValue }.randomElement(using: &random)
        }
    }

    public mutating func process(_ command: [UInt8]) -> [UInt8] {
        commandCount += 1
        if let stickyMode {
            hostileAnswerCount += 1
            return stickyAnswer(stickyMode)
        }
        let hostile = wrapped == nil || chance(percent: configuration.hostilePercent)
        guard hostile,
            let kind = configuration.answers.sorted(by: { $0.rawValue < $1.rawValue }).randomElement(using: &random)
        else {
            return correctAnswer(to: command)
        }
        hostileAnswerCount += 1
        let expected = ISO7816CommandAPDU(parsing: command)?.ne ?? 16
        switch kind {
        case .mutatedCorrect, .extremeData:
            let correct = wrapped == nil ? randomBytes(expected) + [0x90, 0x00] : correctAnswer(to: command)
            return kind == .mutatedCorrect ? mutate(correct) : extreme(correct)
        default:
            // The command may or may not have taken effect before the answer went wrong.
            if wrapped != nil, chance(percent: 50) { _ = correctAnswer(to: command) }
            return answer(kind, expected: expected)
        }
    }

    // MARK: - Answers

    private mutating func correctAnswer(to command: [UInt8]) -> [UInt8] {
        guard var card = wrapped else { return [0x6D, 0x00] }
        // The reader answers the part 3 pseudo-APDUs the wrapped card leaves to it.
        let reader = PCSCPart3Responder(passThroughInstructions: card.readerPassThroughInstructions)
        if let answer = reader.response(to: command, uid: card.uid, technology: card.technology) { return answer }
        let answer = card.process(command)
        wrapped = card
        return answer
    }

    private mutating func answer(_ kind: HostileAnswer, expected: Int) -> [UInt8] {
        switch kind {
        case .empty: return []
        case .halfStatus: return [[0x90, 0x61, 0x6C, 0x91, 0x6A].randomElement(using: &random)!]
        case .successWithoutData: return [0x90, 0x00]
        case .successShort:
            return randomBytes(expected > 1 ? Int.random(in: 1..<expected, using: &random) : 0) + [0x90, 0x00]
        case .successOversized:
            let most = max(expected + 1, configuration.maxResponseLength)
            let count = chance(percent: 25) ? most : Int.random(in: (expected + 1)...most, using: &random)
            return randomBytes(count) + [0x90, 0x00]
        case .successGarbage: return randomBytes(expected) + [0x90, 0x00]
        case .wrongStatus:
            let known: [[UInt8]] = [
                [0x67, 0x00], [0x69, 0x82], [0x69, 0x85], [0x6A, 0x82], [0x6A, 0x86], [0x6D, 0x00],
                [0x6E, 0x00], [0x6F, 0x00], [0x6A, 0x80], [0x65, 0x81], [0x64, 0x00], [0x6B, 0x00],
            ]
            let status = chance(percent: 50) ? known.randomElement(using: &random)! : randomBytes(2)
            return (chance(percent: 20) ? randomBytes(Int.random(in: 1...8, using: &random)) : []) + status
        case .warning:
            let status: [UInt8] = [
                [0x62, 0x82], [0x62, 0x83], [0x63, 0x00], [0x63, 0xC0 | UInt8.random(in: 0...15, using: &random)],
            ]
            .randomElement(using: &random)!
            return (chance(percent: 50) ? randomBytes(Int.random(in: 0...expected, using: &random)) : []) + status
        case .moreData:
            return (chance(percent: 30) ? randomBytes(Int.random(in: 1...32, using: &random)) : []) + [
                0x61, randomByte(),
            ]
        case .wrongLe: return [0x6C, randomByte()]
        case .additionalFrame: return randomBytes(Int.random(in: 0...59, using: &random)) + [0x91, 0xAF]
        case .desfireStatus:
            let known: [UInt8] = [
                0x00, 0x0C, 0x0E, 0x1C, 0x1E, 0x40, 0x7E, 0x9D, 0x9E, 0xA0, 0xA1, 0xAE, 0xBE, 0xC1, 0xCA, 0xCD, 0xDE,
                0xEE, 0xF0, 0xF1,
            ]
            let code = chance(percent: 70) ? known.randomElement(using: &random)! : randomByte()
            return (chance(percent: 30) ? randomBytes(Int.random(in: 1...40, using: &random)) : []) + [0x91, code]
        case .garbage: return randomBytes(Int.random(in: 0...300, using: &random))
        case .mutatedCorrect, .extremeData: return randomBytes(expected) + [0x90, 0x00]
        }
    }

    private mutating func stickyAnswer(_ mode: HostileStickyMode) -> [UInt8] {
        switch mode {
        case .endlessMoreData: [0x61, randomByte()]
        case .endlessWrongLe: [0x6C, randomByte()]
        case .endlessAdditionalFrame: randomBytes(Int.random(in: 0...16, using: &random)) + [0x91, 0xAF]
        case .endlessEmptySuccess: [0x90, 0x00]
        case .mute: []
        }
    }

    /// One change to a correct answer.
    private mutating func mutate(_ correct: [UInt8]) -> [UInt8] {
        guard correct.count >= 2 else { return randomBytes(2) }
        var bytes = correct
        let dataCount = bytes.count - 2
        switch Int.random(in: 0..<5, using: &random) {
        case 0 where dataCount > 0:
            bytes[Int.random(in: 0..<dataCount, using: &random)] = [0x00, 0xFF, randomByte()].randomElement(
                using: &random)!
        case 1 where dataCount > 0:
            bytes.removeSubrange(Int.random(in: 0..<dataCount, using: &random)..<dataCount)
        case 2:
            bytes.insert(contentsOf: randomBytes(Int.random(in: 1...64, using: &random)), at: dataCount)
        case 3:
            bytes.replaceSubrange(dataCount..., with: randomBytes(2))
        default:
            // A length-like field at the front set to its largest values.
            if dataCount >= 2 { bytes.replaceSubrange(0..<2, with: [0xFF, 0xFF]) } else { bytes[0] = 0xFF }
        }
        return bytes
    }

    private mutating func extreme(_ correct: [UInt8]) -> [UInt8] {
        guard correct.count > 2 else { return correct }
        let fill: UInt8 = chance(percent: 50) ? 0xFF : 0x00
        return [UInt8](repeating: fill, count: correct.count - 2) + correct.suffix(2)
    }

    // MARK: - Randomness

    private mutating func chance(percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &random) < percent
    }

    private mutating func randomByte() -> UInt8 {
        UInt8(truncatingIfNeeded: random.next())
    }

    private mutating func randomBytes(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            let word = random.next()
            for shift in stride(from: 0, to: 64, by: 8) where bytes.count < count {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return bytes
    }
}
