import CardFlowSimulator
import Testing

/// The Type 4 Tag model against the NFC Forum T4T 2.0 command sequence.
@Suite("NDEF Type 4 Tag model")
struct NDEFType4TagTests {
    static let selectApplication: [UInt8] = [
        0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00,
    ]
    static let selectCC: [UInt8] = [0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03]
    static let selectNDEF: [UInt8] = [0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04]

    @Test func readsTheCapabilityContainerAndMessage() {
        let message: [UInt8] = [0xD1, 0x01, 0x0B, 0x55, 0x02] + Array("github.com".utf8)
        var tag = NDEFType4Tag(seed: 1, capacity: 512, message: message)
        tag.powerOn()
        #expect(tag.process(Self.selectApplication) == [0x90, 0x00])
        #expect(tag.process(Self.selectCC) == [0x90, 0x00])
        let cc = tag.process([0x00, 0xB0, 0x00, 0x00, 0x0F])
        #expect(
            cc == [
                0x00, 0x0F, 0x20, 0x00, 0xFF, 0x00, 0xF6, 0x04, 0x06, 0xE1, 0x04, 0x02, 0x00, 0x00, 0x00, 0x90, 0x00,
            ])
        #expect(tag.process(Self.selectNDEF) == [0x90, 0x00])
        #expect(tag.process([0x00, 0xB0, 0x00, 0x00, 0x02]) == [0x00, UInt8(message.count), 0x90, 0x00])
        #expect(tag.process([0x00, 0xB0, 0x00, 0x02, UInt8(message.count)]) == message + [0x90, 0x00])
    }

    @Test func writesAndEnforcesItsRules() {
        var tag = NDEFType4Tag(seed: 1, capacity: 64)
        tag.powerOn()
        // No application selected: files are not found.
        #expect(tag.process(Self.selectNDEF) == [0x6A, 0x82])
        #expect(tag.process(Self.selectApplication) == [0x90, 0x00])
        #expect(tag.process(Self.selectCC) == [0x90, 0x00])
        #expect(tag.process([0x00, 0xD6, 0x00, 0x00, 0x01, 0x00]) == [0x69, 0x82], "the CC is not writable")
        #expect(tag.process(Self.selectNDEF) == [0x90, 0x00])
        #expect(tag.process([0x00, 0xD6, 0x00, 0x02, 0x03, 0xD0, 0x00, 0x00]) == [0x90, 0x00])
        #expect(tag.process([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x03]) == [0x90, 0x00])
        #expect(tag.message == [0xD0, 0x00, 0x00])
        #expect(tag.process([0x00, 0xD6, 0x00, 0x3F, 0x02, 0x01, 0x02]) == [0x6A, 0x84], "beyond the file")
        #expect(tag.process([0x00, 0xB0, 0x00, 0x40, 0x01]) == [0x6B, 0x00])

        var locked = NDEFType4Tag(seed: 2, capacity: 64, message: [0xD0, 0x00, 0x00], readOnly: true)
        locked.powerOn()
        _ = locked.process(Self.selectApplication)
        _ = locked.process(Self.selectNDEF)
        #expect(locked.process([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00]) == [0x69, 0x82])
    }

    @Test func garbageNeverTraps() {
        var tag = NDEFType4Tag(seed: 3)
        var random = SeededRandom(seed: 4)
        tag.powerOn()
        for _ in 0..<5_000 {
            let length = Int(random.next() % 20)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if bytes.count > 1, random.next() % 2 == 0 { bytes[0] = 0x00 }
            let answer = tag.process(bytes)
            #expect(answer.count >= 2)
        }
    }
}
