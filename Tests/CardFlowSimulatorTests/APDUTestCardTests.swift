import CardFlowSimulator
import Testing

@Suite("APDU test card")
struct APDUTestCardTests {
    private func makeCard() -> APDUTestCard {
        var card = APDUTestCard(seed: 3)
        card.powerOn()
        return card
    }

    /// The bytes b[i] = (i + start) mod 251, computed here independently of the card.
    private func expectedPattern(_ count: Int, start: Int) -> [UInt8] {
        var out: [UInt8] = []
        var value = start % 251
        for _ in 0..<count {
            out.append(UInt8(value))
            value = value == 250 ? 0 : value + 1
        }
        return out
    }

    // MARK: - Identity and selection

    @Test("ATR, kind and UID; SELECT of its own AID succeeds, anything else is not found")
    func identityAndSelect() {
        var card = makeCard()
        #expect(card.kind == "apdu-test")
        #expect(card.uid == APDUTestCard(seed: 3).uid && card.uid != APDUTestCard(seed: 4).uid)
        #expect(ContactlessATR.atr(for: card.technology) == bytes("3B 86 80 01 43 46 41 50 44 55 02"))
        #expect(card.process(bytes("00 A4 04 00 07 F0 43 46 41 50 44 55")) == bytes("90 00"))
        #expect(card.process(bytes("00 A4 04 00 07 F0 43 46 41 50 44 55 00")) == bytes("90 00"))
        #expect(card.process(bytes("00 A4 04 00 07 A0 00 00 02 47 10 01")) == bytes("6A 82"))
        #expect(card.process(bytes("00 A4 00 00 02 3F 00")) == bytes("6A 82"))
        #expect(card.process(bytes("00 A4 04 40 07 F0 43 46 41 50 44 55")) == bytes("6A 86"))
    }

    // MARK: - The four cases

    @Test("Case 1 NO-OP answers 90 00; with data or Le it is the wrong case")
    func caseOne() {
        var card = makeCard()
        #expect(card.process(bytes("80 10 00 00")) == bytes("90 00"))
        #expect(card.process(bytes("80 10 00 00 00")) == bytes("67 00"))
        #expect(card.process(bytes("80 10 00 00 01 AA")) == bytes("67 00"))
        #expect(card.process(bytes("80 10 01 00")) == bytes("6B 00"))
    }

    @Test("Case 2 PATTERN returns exactly Le bytes, Le = 00 meaning 256", arguments: [1, 2, 127, 128, 255, 256])
    func caseTwoShort(length: Int) {
        var card = makeCard()
        let le = length == 256 ? "00" : hex2(length)
        let answer = card.process(bytes("80 20 07 00 \(le)"))
        #expect(answer == expectedPattern(length, start: 7) + [0x90, 0x00])
    }

    @Test("Extended case 2 PATTERN: Le up to 4096; more is cut with 62 82, Le = 0000 takes all 4096")
    func caseTwoExtended() {
        var card = makeCard()
        #expect(card.process(bytes("80 20 00 00 00 04 00")) == expectedPattern(1024, start: 0) + [0x90, 0x00])
        #expect(card.process(bytes("80 20 00 00 00 01 2C")) == expectedPattern(300, start: 0) + [0x90, 0x00])
        #expect(card.process(bytes("80 20 00 00 00 10 01")) == expectedPattern(4096, start: 0) + [0x62, 0x82])
        #expect(card.process(bytes("80 20 00 00 00 00 00")) == expectedPattern(4096, start: 0) + [0x90, 0x00])
    }

    @Test("The pattern does not repeat every 256 bytes")
    func patternPeriod() {
        let pattern = APDUTestCard.pattern(count: 600, start: 0)
        #expect(pattern[256] != pattern[0])
        #expect(pattern[251] == pattern[0])
        #expect(pattern == expectedPattern(600, start: 0))
    }

    @Test("Case 3 SINK, short and extended, then RECEIPT gives length and Fletcher-16")
    func caseThree() {
        var card = makeCard()
        #expect(card.process(bytes("80 32 00 00 04")) == bytes("69 85"))
        #expect(card.process(bytes("80 30 00 00 03 01 02 03")) == bytes("90 00"))
        // Fletcher-16 of 01 02 03: sums 1, 3, 6; sums of sums 1, 4, 10.
        #expect(card.process(bytes("80 32 00 00 04")) == bytes("00 03 0A 06 90 00"))
        #expect(card.process(bytes("80 32 00 00 02")) == bytes("00 03 90 00"))
        let data = [UInt8](repeating: 0xFF, count: 1024)
        #expect(card.process(bytes("80 30 00 00 00 04 00") + data) == bytes("90 00"))
        // 0xFF is 0 mod 255: both sums stay 0.
        #expect(card.process(bytes("80 32 00 00 04")) == bytes("04 00 00 00 90 00"))
        #expect(card.process(bytes("80 30 00 00 01 AA 00")) == bytes("67 00"))
    }

    @Test("Case 4 REVERSE returns the data reversed, cut to Ne; extended up to 1024 bytes")
    func caseFour() {
        var card = makeCard()
        #expect(card.process(bytes("80 40 00 00 03 01 02 03 00")) == bytes("03 02 01 90 00"))
        #expect(card.process(bytes("80 40 00 00 03 01 02 03 02")) == bytes("03 02 90 00"))
        let data = (0..<1024).map { UInt8($0 & 0xFF) }
        let command = bytes("80 40 00 00 00 04 00") + data + bytes("00 00")
        #expect(card.process(command) == Array(data.reversed()) + [0x90, 0x00])
        #expect(card.process(bytes("80 40 00 00 03 01 02 03")) == bytes("67 00"))
    }

    // MARK: - 61xx and 6Cxx

    @Test("DEFERRED answers 61 XX; GET RESPONSE delivers in steps, 6C XX for a too-large Le")
    func getResponse() {
        var card = makeCard()
        #expect(card.process(bytes("80 50 00 10")) == bytes("61 10"))
        #expect(card.process(bytes("00 C0 00 00 10")) == expectedPattern(16, start: 0) + [0x90, 0x00])
        #expect(card.process(bytes("00 C0 00 00 10")) == bytes("69 85"))

        // 300 bytes: 61 00 (256 or more), 256 of them, then 61 2C for the 44 left.
        #expect(card.process(bytes("80 50 01 2C")) == bytes("61 00"))
        let all = expectedPattern(300, start: 0)
        #expect(card.process(bytes("00 C0 00 00 00")) == Array(all.prefix(256)) + [0x61, 0x2C])
        #expect(card.process(bytes("00 C0 00 00 30")) == bytes("6C 2C"))
        #expect(card.process(bytes("00 C0 00 00 2C")) == Array(all.suffix(44)) + [0x90, 0x00])

        // Case 3 DEFERRED: the data comes back reversed.
        #expect(card.process(bytes("80 50 00 00 02 AB CD")) == bytes("61 02"))
        #expect(card.process(bytes("00 C0 00 00 02")) == bytes("CD AB 90 00"))
    }

    @Test("Waiting data is dropped by any other command and by power-on")
    func waitingDataIsVolatile() {
        var card = makeCard()
        #expect(card.process(bytes("80 50 00 08")) == bytes("61 08"))
        #expect(card.process(bytes("80 10 00 00")) == bytes("90 00"))
        #expect(card.process(bytes("00 C0 00 00 08")) == bytes("69 85"))
        #expect(card.process(bytes("80 50 00 08")) == bytes("61 08"))
        card.powerOn()
        #expect(card.process(bytes("00 C0 00 00 08")) == bytes("69 85"))
        #expect(card.process(bytes("80 50 00 00")) == bytes("6B 00"))
        #expect(card.process(bytes("80 50 10 01")) == bytes("6B 00"))
    }

    @Test("EXACT answers 6C XX to a wrong Le and the data to the right one")
    func wrongLength() {
        var card = makeCard()
        #expect(card.process(bytes("80 60 20 00 10")) == bytes("6C 20"))
        #expect(card.process(bytes("80 60 20 00 00")) == bytes("6C 20"))
        #expect(card.process(bytes("80 60 20 00 20")) == expectedPattern(32, start: 0x60) + [0x90, 0x00])
        #expect(card.process(bytes("80 60 00 00 FF")) == bytes("6C 00"))
        #expect(card.process(bytes("80 60 00 00 00")) == expectedPattern(256, start: 0x60) + [0x90, 0x00])
    }

    // MARK: - Errors

    @Test("Malformed, unknown class and unknown instruction")
    func errors() {
        var card = makeCard()
        #expect(card.process(bytes("80 10 00")) == bytes("67 00"))
        #expect(card.process(bytes("80 30 00 00 05 01 02")) == bytes("67 00"))
        #expect(card.process(bytes("84 10 00 00")) == bytes("6E 00"))
        #expect(card.process(bytes("80 99 00 00")) == bytes("6D 00"))
        #expect(card.process(bytes("00 B0 00 00 00")) == bytes("6D 00"))
    }

    @Test("sim:apdu-test selects the card, which code cycling through every card leaves out")
    func selector() throws {
        let specification = try SimulatorSpecification(parsing: "sim:apdu-test,seed=9")
        #expect(specification.cardKind == .apduTest)
        let card = try SimulatorSetup.makeCard(.apduTest, seed: 9)
        #expect(card?.kind == "apdu-test")
        #expect(!SimulatedCardKind.allCases.contains(.apduTest))
        #expect(SimulatedCardKind.selectable.contains(.apduTest))
    }

    @Test("sim:apdu-test,contact=t0 is the same command set on a T=0-only contact card")
    func contactVariant() throws {
        let specification = try SimulatorSpecification(parsing: "sim:apdu-test,contact=t0")
        let interface = try #require(specification.contactInterface)
        #expect(interface.protocols == [0])
        var card = try #require(try SimulatorSetup.makeCard(.apduTest, seed: 9, specification: specification))
        #expect(card.contactInterface == interface)
        #expect(card.technology == .contact(atr: interface.answerToReset))
        card.powerOn()
        // Case 2 with Le = 16: the same pattern as the contactless card answers.
        var contactless = makeCard()
        #expect(card.process(bytes("80 20 05 00 10")) == contactless.process(bytes("80 20 05 00 10")))
    }

    private func hex2(_ value: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }
}
