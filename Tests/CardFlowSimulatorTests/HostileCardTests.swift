import CardFlow
import CardFlowSimulator
import Testing

@Suite("Hostile card")
struct HostileCardTests {
    static let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]

    func answers(_ card: HostileCard, count: Int) -> [[UInt8]] {
        var card = card
        card.powerOn()
        return (0..<count).map { index in card.process(index % 2 == 0 ? Self.select : [0x00, 0xB0, 0x00, 0x00, 0x0F]) }
    }

    @Test func theSameSeedGivesTheSameAnswers() {
        let first = answers(HostileCard(configuration: .init(seed: 42)), count: 200)
        #expect(first == answers(HostileCard(configuration: .init(seed: 42)), count: 200))
        #expect(first != answers(HostileCard(configuration: .init(seed: 43)), count: 200))
    }

    /// Over many seeds every kind of answer shows up: empty, 1 byte, 61xx, 6Cxx, 91AF, oversized.
    @Test func answersCoverTheHostileKinds() {
        var empty = 0
        var oneByte = 0
        var moreData = 0
        var wrongLe = 0
        var additionalFrame = 0
        var oversized = 0
        var success = 0
        for seed in 0..<300 as Range<UInt64> {
            for answer in answers(HostileCard(configuration: .init(seed: seed, stickyPercent: 0)), count: 20) {
                switch answer.count {
                case 0: empty += 1
                case 1: oneByte += 1
                default:
                    let sw1 = answer[answer.count - 2]
                    let sw2 = answer[answer.count - 1]
                    if sw1 == 0x61 { moreData += 1 }
                    if sw1 == 0x6C { wrongLe += 1 }
                    if sw1 == 0x91, sw2 == 0xAF { additionalFrame += 1 }
                    if sw1 == 0x90, sw2 == 0x00 { success += 1 }
                    if answer.count > 258 { oversized += 1 }
                }
            }
        }
        #expect(
            [empty, oneByte, moreData, wrongLe, additionalFrame, oversized, success].allSatisfy { $0 > 20 },
            "\([empty, oneByte, moreData, wrongLe, additionalFrame, oversized, success])")
    }

    @Test(arguments: HostileStickyMode.allCases)
    func stickyModesLastUntilPowerOn(_ mode: HostileStickyMode) {
        var card = HostileCard(
            configuration: .init(seed: 5, stickyPercent: 100, stickyModes: [mode]), wrapping: NDEFType4Tag(seed: 5))
        card.powerOn()
        #expect(card.stickyMode == mode)
        for _ in 0..<50 {
            let answer = card.process(Self.select)
            switch mode {
            case .endlessMoreData: #expect(answer.count == 2 && answer[0] == 0x61)
            case .endlessWrongLe: #expect(answer.count == 2 && answer[0] == 0x6C)
            case .endlessAdditionalFrame: #expect(answer.suffix(2) == [0x91, 0xAF])
            case .endlessEmptySuccess: #expect(answer == [0x90, 0x00])
            case .mute: #expect(answer.isEmpty)
            }
        }
    }

    /// With no hostile share the wrapped card answers as itself, part 3 pseudo-APDUs included.
    @Test func aWrappedCardAnswersCorrectlyWhenNothingIsSpoiled() {
        var card = HostileCard(
            configuration: .init(seed: 1, hostilePercent: 0, stickyPercent: 0), wrapping: NDEFType4Tag(seed: 1))
        var plain = NDEFType4Tag(seed: 1)
        card.powerOn()
        plain.powerOn()
        #expect(card.process(Self.select) == plain.process(Self.select))
        #expect(card.process([0xFF, 0xCA, 0x00, 0x00, 0x00]) == plain.uid + [0x90, 0x00])
        #expect(card.hostileAnswerCount == 0)
    }

    @Test func spoiledShareFollowsTheConfiguration() {
        var card = HostileCard(
            configuration: .init(seed: 9, hostilePercent: 10, stickyPercent: 0), wrapping: ISO7816Card(seed: 9))
        card.powerOn()
        for _ in 0..<10_000 { _ = card.process(Self.select) }
        #expect((700...1_300).contains(card.hostileAnswerCount), "\(card.hostileAnswerCount)")
    }

    @Test func selector() throws {
        let spec = try SimulatorSpecification(
            parsing: "sim:fuzz,seed=3,wrap=ndef4,hostile=20,sticky=0,max-response=4096")
        #expect(spec.cardKind == .fuzz && spec.fuzzWrappedKind == .ndef4 && spec.fuzzHostilePercent == 20)
        #expect(spec.fuzzStickyPercent == 0 && spec.fuzzMaxResponseLength == 4096)
        let card = try #require(try SimulatorSetup.makeCard(.fuzz, seed: 3, specification: spec) as? HostileCard)
        #expect(card.wrapped?.kind == "ndef4" && card.configuration.hostilePercent == 20)
        #expect(throws: SimulatorSpecificationError.self) {
            try SimulatorSpecification(parsing: "sim:ndef4,hostile=20")
        }
        #expect(throws: SimulatorSpecificationError.self) { try SimulatorSpecification(parsing: "sim:fuzz,wrap=fuzz") }
        #expect(throws: SimulatorSpecificationError.self) {
            try SimulatorSpecification(parsing: "sim:fuzz,hostile=101")
        }
        #expect(!SimulatedCardKind.allCases.contains(.fuzz))
        #expect(SimulatedCardKind.selectable.contains(.fuzz))
    }

    @Test func throughTheReader() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(
            HostileCard(configuration: .init(seed: 11, stickyPercent: 100, stickyModes: [.endlessMoreData])))
        let error = await #expect(throws: APDUExchangeError.self) {
            try await Reader.simulated(virtual).withSession { session in
                _ = try await session.send(try CommandAPDU(cla: 0, ins: 0xB0, p1: 0, p2: 0, le: 16))
            }
        }
        #expect(error?.reason == .getResponseRoundsExceeded(limit: 32))
    }
}
