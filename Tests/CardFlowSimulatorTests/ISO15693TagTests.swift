import CardFlowSimulator
import Testing

@Suite("ISO 15693 tag model")
struct ISO15693TagTests {
    @Test func pcscBlockAccess() {
        var tag = SimulatedISO15693Tag(seed: 1, blockSize: 4, blockCount: 8)
        #expect(
            tag.process([0xFF, 0xB0, 0x00, 0x01, 0x08]) == [0x10, 0x11, 0x12, 0x13, 0x20, 0x21, 0x22, 0x23, 0x90, 0x00])
        #expect(tag.process([0xFF, 0xD6, 0x00, 0x02, 0x04, 0xDE, 0xAD, 0xBE, 0xEF]) == [0x90, 0x00])
        #expect(tag.blocks[2] == [0xDE, 0xAD, 0xBE, 0xEF])
        // Multi-block write is disabled on this tag: one block per write.
        #expect(tag.process([0xFF, 0xD6, 0x00, 0x02, 0x08, 1, 2, 3, 4, 5, 6, 7, 8]) == [0x6A, 0x81])
        #expect(tag.process([0xFF, 0xB0, 0x00, 0x07, 0x08]) == [0x6B, 0x00], "past the last block")
        #expect(tag.process([0xFF, 0xB0, 0x00, 0x00, 0x03]) == [0x6B, 0x00], "not a whole block")
        var locked = SimulatedISO15693Tag(seed: 1, lockedBlocks: [3])
        #expect(locked.process([0xFF, 0xD6, 0x00, 0x03, 0x04, 1, 2, 3, 4]) == [0x69, 0x82])
    }

    @Test func transparentExchangeFollowsISO15693() {
        var tag = SimulatedISO15693Tag(seed: 1, blockSize: 4, blockCount: 28)
        // GET SYSTEM INFORMATION (flags 02): info flags 0F, UID LSB first, DSFID, AFI,
        // memory size 1B 03 = 28 blocks of 4 bytes, IC reference (the shape of ccid.md 4.2).
        let info = tag.process([0xFF, 0xC2, 0x00, 0x01, 0x04, 0x95, 0x02, 0x02, 0x2B])
        let expected: [UInt8] = [0x00, 0x0F] + tag.uid.reversed() + [0x00, 0x00, 0x1B, 0x03, 0x01]
        #expect(
            info == [
                0xC0, 0x03, 0x00, 0x90, 0x00, 0x92, 0x01, 0x00, 0x96, 0x02, 0x00, 0x00, 0x97, UInt8(expected.count),
            ] + expected + [0x90, 0x00])
        // Addressed WRITE SINGLE BLOCK (flags 22) then READ SINGLE BLOCK with the option flag
        // (security status byte first).
        let write: [UInt8] = [0x22, 0x21] + tag.uid.reversed() + [0x05, 0xCA, 0xFE, 0xBA, 0xBE]
        let written = tag.process([0xFF, 0xC2, 0x00, 0x01, UInt8(write.count + 2), 0x95, UInt8(write.count)] + write)
        #expect(written.suffix(5) == [0x97, 0x01, 0x00, 0x90, 0x00])
        let read = tag.process([0xFF, 0xC2, 0x00, 0x01, 0x05, 0x95, 0x03, 0x42, 0x20, 0x05])
        #expect(read.suffix(10) == [0x97, 0x06, 0x00, 0x00, 0xCA, 0xFE, 0xBA, 0xBE, 0x90, 0x00])
        // Another tag's UID gets no answer at all.
        let stranger: [UInt8] = [0x22, 0x20] + [UInt8](repeating: 0x55, count: 8) + [0x00]
        let none = tag.process(
            [0xFF, 0xC2, 0x00, 0x01, UInt8(stranger.count + 2), 0x95, UInt8(stranger.count)] + stranger)
        #expect(none.suffix(4) == [0x97, 0x00, 0x90, 0x00])
        // LOCK BLOCK, then writing it fails with error 12 (locked).
        _ = tag.process([0xFF, 0xC2, 0x00, 0x01, 0x05, 0x95, 0x03, 0x02, 0x22, 0x06])
        let refused = tag.process([0xFF, 0xC2, 0x00, 0x01, 0x09, 0x95, 0x07, 0x02, 0x21, 0x06, 1, 2, 3, 4])
        #expect(refused.suffix(5) == [0x02, 0x01, 0x12, 0x90, 0x00])
    }

    @Test func garbageNeverTraps() {
        var tag = SimulatedISO15693Tag(seed: 2)
        var random = SeededRandom(seed: 9)
        for _ in 0..<5_000 {
            var bytes = (0..<Int(random.next() % 24)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if bytes.count > 2 { bytes[0] = 0xFF; bytes[1] = [0xB0, 0xD6, 0xC2][Int(random.next() % 3)] }
            #expect(tag.process(bytes).count >= 2)
        }
    }
}
