import CardFlowNDEF
import Testing

/// The one Type 2 NDEF write (Type2Tag and NTAGClient both use it): the order of the page
/// writes keeps a tag lifted at any point holding an empty message or the whole new one.
@Suite("Type 2 NDEF write plan")
struct Type2NDEFWriteTests {
    @Test func shortMessageHeaderFirstEmptyThenBodyThenLength() throws {
        let area = [UInt8](repeating: 0, count: 16)
        let plan = try Type2NDEFWrite(message: [0xD0, 0x00, 0x00], area: area, tlvStart: 0)
        #expect(
            plan.writes == [
                .init(page: 0, bytes: [0x03, 0x00, 0xD0, 0x00]),
                .init(page: 1, bytes: [0x00, 0xFE, 0x00, 0x00]),
                .init(page: 0, bytes: [0x03, 0x03, 0xD0, 0x00]),
            ])
    }

    @Test func lockControlBeforeTheNDEFTLVStays() throws {
        // Lock Control TLV 01 03 A0 10 44, then the NDEF TLV at offset 5.
        var area = [UInt8](repeating: 0, count: 32)
        area.replaceSubrange(0..<8, with: [0x01, 0x03, 0xA0, 0x10, 0x44, 0x03, 0x00, 0xFE])
        let start = try #require(try Type2Tag.locateNDEF(in: area)).tlvOffset
        let plan = try Type2NDEFWrite(message: [UInt8](repeating: 0xAB, count: 9), area: area, tlvStart: start)
        #expect(plan.writes.first == .init(page: 1, bytes: [0x44, 0x03, 0x00, 0xAB]))
        #expect(!plan.writes.contains { $0.page == 0 }, "the Lock Control TLV's page is never written")
    }

    @Test(arguments: [3, 250, 300, 1000])
    func aTagLiftedAfterAnyWriteHoldsTheOldEmptyOrTheNewMessage(length: Int) throws {
        let area = [UInt8](repeating: 0, count: 1024)
        let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
        let plan = try Type2NDEFWrite(message: message, area: area, tlvStart: 0)
        var tag = area
        for (index, write) in plan.writes.enumerated() {
            tag.replaceSubrange(write.page * 4..<write.page * 4 + 4, with: write.bytes)
            let found = try #require(try Type2Tag.locateNDEF(in: tag), "after write \(index)")
            let value = Array(tag[found.valueOffset..<found.valueOffset + found.length])
            if index == plan.writes.count - 1 {
                #expect(value == message)
            } else {
                #expect(value.isEmpty, "after write \(index) the tag holds an empty message, not a cut one")
            }
        }
    }

    @Test func tooLargeIsTypedBeforeAnyWrite() {
        #expect(throws: NDEFTagError.messageTooLarge(size: 15, capacity: 14)) {
            try Type2NDEFWrite(
                message: [UInt8](repeating: 1, count: 15), area: [UInt8](repeating: 0, count: 16), tlvStart: 0)
        }
    }

    @Test func aMessageThatFillsTheAreaGoesWithoutATerminator() throws {
        let message = [UInt8](repeating: 0xAB, count: 14)
        let plan = try Type2NDEFWrite(message: message, area: [UInt8](repeating: 0, count: 16), tlvStart: 0)
        var tag = [UInt8](repeating: 0, count: 16)
        for write in plan.writes { tag.replaceSubrange(write.page * 4..<write.page * 4 + 4, with: write.bytes) }
        #expect(tag == [0x03, 14] + message)
        let found = try #require(try Type2Tag.locateNDEF(in: tag))
        #expect(found.valueOffset == 2 && found.length == 14)
    }
}
