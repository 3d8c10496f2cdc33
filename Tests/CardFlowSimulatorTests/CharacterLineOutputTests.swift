import Testing

@testable import CardFlowSimulator

/// How the simulated character line hands the card's output to the reader: a read of all of it
/// takes the line's storage, a part is copied, and storage given back is reused only when no
/// output is waiting (so recycling can never lose or reorder a card's bytes).
@Suite struct CharacterLineOutputTests {
    func line(holding output: [UInt8]) -> CharacterLine {
        CharacterLine(behaviour: CharacterLineBehaviour(), atrRest: output, supportsEnvelope: false, ifsc: 32)
    }

    @Test func readingAllOfTheOutputEmptiesTheLine() {
        var line = line(holding: [1, 2, 3])
        #expect(line.read(3) == [1, 2, 3])
        #expect(line.output.isEmpty)
        #expect(line.read(1) == nil)
    }

    @Test func readingPartOfTheOutputLeavesTheRestInOrder() {
        var line = line(holding: [1, 2, 3, 4])
        #expect(line.read(1) == [1])
        #expect(line.output == [2, 3, 4])
        #expect(line.read(3) == [2, 3, 4])
        #expect(line.output.isEmpty)
    }

    @Test func givenBackStorageIsKeptEmptyWhenNothingWaits() {
        var line = line(holding: [1, 2])
        let taken = line.read(2)
        #expect(taken == [1, 2])
        line.recycle([UInt8](repeating: 0xEE, count: 300))
        #expect(line.output.isEmpty)
        #expect(line.output.capacity >= 300)
    }

    @Test func givenBackStorageNeverReplacesWaitingOutput() {
        var line = line(holding: [1, 2, 3])
        #expect(line.read(1) == [1])
        line.recycle([UInt8](repeating: 0xEE, count: 300))
        #expect(line.output == [2, 3])
        #expect(line.read(2) == [2, 3])
    }
}
