import CardFlowCCIDProtocol
import Testing

@testable import CardFlowTranscripts

/// The character-level replay: the card's I/O line served in the host's own steps.
@Suite("Replay at character level")
struct ReplayCharacterLineTests {
    static func xfrBlock(_ sequence: UInt8, wanted: UInt16, _ payload: [UInt8]) -> [UInt8] {
        [0x6F, UInt8(payload.count), 0, 0, 0, 0, sequence, 0, UInt8(wanted & 0xFF), UInt8(wanted >> 8)] + payload
    }

    static func dataBlock(_ sequence: UInt8, _ data: [UInt8]) -> [UInt8] {
        [0x80, UInt8(data.count), 0, 0, 0, 0, sequence, 0, 0, 0] + data
    }

    /// libccid's T=0 SELECT at character level (its log of the Winbond profile): the header,
    /// waiting for one procedure byte (the INS, A4); the data, waiting for one (SW1 90); nothing,
    /// waiting for one (SW2 00).
    static func steps() throws -> [ReplayScript.Step] {
        let exchanges: [([UInt8], [UInt8])] = [
            (xfrBlock(8, wanted: 1, [0x00, 0xA4, 0x04, 0x00, 0x07]), dataBlock(8, [0xA4])),
            (xfrBlock(9, wanted: 1, [0xF0, 0x43, 0x46, 0x41, 0x50, 0x44, 0x55]), dataBlock(9, [0x90])),
            (xfrBlock(10, wanted: 1, []), dataBlock(10, [0x00])),
        ]
        return try exchanges.map { command, answer in
            ReplayScript.Step(
                command: try RecordedFrame(direction: .bulkOut, readerIndex: 0, bytes: command),
                answers: [try RecordedFrame(direction: .bulkIn, readerIndex: 0, bytes: answer)])
        }
    }

    @Test("the same bytes in other steps: SW1 SW2 in one XfrBlock after the data")
    func otherSteps() throws {
        var line = try #require(ReplayCharacterLine(steps: try Self.steps(), from: 0))
        let procedure = line.serve(Self.xfrBlock(0x21, wanted: 1, [0x00, 0xA4, 0x04, 0x00, 0x07]))
        #expect(procedure == Self.dataBlock(0x21, [0xA4]))
        #expect(!line.isUsedUp)
        let status = line.serve(Self.xfrBlock(0x22, wanted: 2, [0xF0, 0x43, 0x46, 0x41, 0x50, 0x44, 0x55]))
        #expect(status == Self.dataBlock(0x22, [0x90, 0x00]))
        #expect(line.isUsedUp && line.endStep == 3)
    }

    @Test("no wait for a character the card sends only after more input, no other bytes to the card")
    func causalityAndBytes() throws {
        var early = try #require(ReplayCharacterLine(steps: try Self.steps(), from: 0))
        // SW1 comes after the data: waiting for two characters after the header is refused.
        #expect(early.serve(Self.xfrBlock(1, wanted: 2, [0x00, 0xA4, 0x04, 0x00, 0x07])) == nil)
        var other = try #require(ReplayCharacterLine(steps: try Self.steps(), from: 0))
        #expect(other.serve(Self.xfrBlock(1, wanted: 1, [0x00, 0xA4, 0x04, 0x00, 0x08])) == nil)
        // More characters than the card sent.
        var greedy = try #require(ReplayCharacterLine(steps: try Self.steps(), from: 0))
        _ = greedy.serve(Self.xfrBlock(1, wanted: 1, [0x00, 0xA4, 0x04, 0x00, 0x07]))
        #expect(greedy.serve(Self.xfrBlock(2, wanted: 3, [0xF0, 0x43, 0x46, 0x41, 0x50, 0x44, 0x55])) == nil)
        // Leaving the line there, the recording stands at the step that sends the data.
        #expect(greedy.currentStep == 1)
        #expect(try #require(ReplayCharacterLine(steps: try Self.steps(), from: 0)).currentStep == 0)
    }

    @Test("a run ends before a step a stream cannot stand for; none starts at another command")
    func runBounds() throws {
        var steps = try Self.steps()
        // A reader error (bStatus 40, bError FE: ICC mute) on the third XfrBlock.
        steps[2].answers = [
            try RecordedFrame(direction: .bulkIn, readerIndex: 0, bytes: [0x80, 0, 0, 0, 0, 0, 10, 0x40, 0xFE, 0])
        ]
        #expect(ReplayCharacterLine(steps: steps, from: 0)?.endStep == 2)
        let powerOn = ReplayScript.Step(
            command: try RecordedFrame(direction: .bulkOut, readerIndex: 0, bytes: [0x62, 0, 0, 0, 0, 0, 1, 0, 0, 0]))
        #expect(ReplayCharacterLine(steps: [powerOn] + steps, from: 0) == nil)
    }
}
