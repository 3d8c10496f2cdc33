import CardFlow
import CardFlowNDEF
import Testing

/// Type 2 reading and writing against the factory memory NXP's NTAG213/215/216 datasheet
/// publishes ("Memory content at delivery"), served by a channel written from PC/SC part 3
/// (READ BINARY `FF B0 00 page Le`, UPDATE BINARY `FF D6 00 page 04`), not from the simulator:
/// NTAG213 ships a Lock Control TLV before an empty NDEF TLV; NTAG215/216 an empty NDEF TLV alone.
@Suite("NTAG factory memory from the datasheet")
struct NTAGDatasheetMemoryTests {
    /// Pages 3 to 5 at delivery, as the datasheet lists them.
    static let ntag213Pages3To5: [UInt8] = [0xE1, 0x10, 0x12, 0x00, 0x01, 0x03, 0xA0, 0x0C, 0x34, 0x03, 0x00, 0xFE]
    static let ntag215Pages3To5: [UInt8] = [0xE1, 0x10, 0x3E, 0x00, 0x03, 0x00, 0xFE, 0x00, 0x00, 0x00, 0x00, 0x00]
    /// The PC/SC part 3 ATR of a MIFARE Ultralight-class tag (card name 00 03), TCK 68.
    static let type2ATR: [UInt8] = [
        0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x03, 0x00, 0x03, 0x00, 0x00, 0x00,
        0x00, 0x68,
    ]

    /// A tag's pages behind a PC/SC part 3 reader: 16 bytes per READ BINARY from the page in P2,
    /// 4 bytes per UPDATE BINARY; any other command 6D 00, a page past the end 6A 82.
    actor Part3Memory: CardChannel {
        private(set) var bytes: [UInt8]

        init(pagesAfterThree: [UInt8], totalPages: Int) {
            // Pages 0-2: UID with its check bytes, static lock bytes 00 00 (nothing locked).
            var image: [UInt8] = [0x04, 0x12, 0x34, 0xBA, 0x56, 0x78, 0x9A, 0xBC, 0xC6, 0x48, 0x00, 0x00]
            image += pagesAfterThree
            image += [UInt8](repeating: 0, count: totalPages * 4 - image.count)
            bytes = image
        }

        func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
            let start = Int(command.p2) * 4
            switch (command.cla, command.ins, command.p1) {
            case (0xFF, 0xB0, 0x00):
                // A Type 2 READ answers 4 pages; Le 00 (256) or none asks for what the tag returns.
                let count = command.le.map { $0 == 256 ? 16 : $0 } ?? 16
                guard start + count <= bytes.count else { return ResponseAPDU(data: [], sw1: 0x6A, sw2: 0x82) }
                return ResponseAPDU(data: Array(bytes[start..<start + count]), sw1: 0x90, sw2: 0x00)
            case (0xFF, 0xD6, 0x00) where command.data.count == 4:
                guard start + 4 <= bytes.count else { return ResponseAPDU(data: [], sw1: 0x6A, sw2: 0x82) }
                bytes.replaceSubrange(start..<start + 4, with: command.data)
                return ResponseAPDU(data: [], sw1: 0x90, sw2: 0x00)
            default:
                return ResponseAPDU(data: [], sw1: 0x6D, sw2: 0x00)
            }
        }
    }

    @Test func ntag213AtDeliveryHoldsAnEmptyMessageBehindItsLockControlTLV() async throws {
        let tag = Part3Memory(pagesAfterThree: Self.ntag213Pages3To5, totalPages: 45)
        let cc = try await Type2Tag(channel: tag).capabilityContainer()
        #expect(cc.dataAreaSize == 144 && cc.writable)
        #expect(try await Type2Tag(channel: tag).readMessageBytes() == [])
    }

    @Test func ntag215AtDeliveryHoldsAnEmptyMessage() async throws {
        let tag = Part3Memory(pagesAfterThree: Self.ntag215Pages3To5, totalPages: 135)
        #expect(try await Type2Tag(channel: tag).capabilityContainer().dataAreaSize == 496)
        #expect(try await Type2Tag(channel: tag).readMessageBytes() == [])
    }

    @Test func aMessageWrittenToAnNTAG213KeepsTheLockControlTLVAndReadsBack() async throws {
        let tag = Part3Memory(pagesAfterThree: Self.ntag213Pages3To5, totalPages: 45)
        let message = try NDEFMessage([URIRecord("https://example.com/datasheet").record]).encoded()
        try await Type2Tag(channel: tag).writeMessageBytes(message)
        let memory = await tag.bytes
        #expect(Array(memory[16..<21]) == [0x01, 0x03, 0xA0, 0x0C, 0x34], "the Lock Control TLV is where it was")
        #expect(Array(memory[21..<23]) == [0x03, UInt8(message.count)], "the NDEF TLV follows it")
        #expect(Array(memory[23..<23 + message.count]) == message)
        #expect(memory[23 + message.count] == 0xFE, "a Terminator TLV ends the area")
        #expect(try await Type2Tag(channel: tag).readMessageBytes() == message)
    }

    @Test func theNTAG213AreaLessItsLockControlTLVIsTheCapacity() async throws {
        // 144 bytes, 5 for the Lock Control TLV, 2 for the NDEF TLV's T and L.
        let tag = Part3Memory(pagesAfterThree: Self.ntag213Pages3To5, totalPages: 45)
        try await Type2Tag(channel: tag).writeMessageBytes([UInt8](repeating: 0x55, count: 137))
        #expect(try await Type2Tag(channel: tag).readMessageBytes().count == 137)
        await #expect(throws: NDEFTagError.self) {
            try await Type2Tag(channel: tag).writeMessageBytes([UInt8](repeating: 0x55, count: 138))
        }
    }

    @Test func theNDEFFamilyDetectorNamesATagAtDelivery() async throws {
        let tag = Part3Memory(pagesAfterThree: Self.ntag213Pages3To5, totalPages: 45)
        let detection = CardFamilyDetection([NDEFFamilyDetector()])
        #expect(try await detection.detect(atr: Self.type2ATR, channel: tag) == "ndef")
    }
}
