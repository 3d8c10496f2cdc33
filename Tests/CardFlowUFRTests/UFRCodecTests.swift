import CardFlow
import Testing

@testable import CardFlowUFR

/// The uFR COM codec against the frames quoted in shared/reference/ufr.md (each re-checked there).
@Suite("uFR codec")
struct UFRCodecTests {
    static func hex(_ text: String) -> [UInt8] {
        text.split(separator: " ").map { UInt8($0, radix: 16)! }
    }

    static func decodeAll(_ bytes: [UInt8]) throws -> [UFRIncomingFrame] {
        var decoder = UFRReplyDecoder()
        decoder.append(bytes)
        var frames: [UFRIncomingFrame] = []
        while let frame = try decoder.next() { frames.append(frame) }
        return frames
    }

    @Test("checksum: XOR plus 7, the GET_READER_TYPE worked example")
    func checksum() {
        #expect(UFRChecksum.of(Self.hex("55 10 AA 00 00 00")) == 0xF6)
        #expect(UFRChecksum.of(Self.hex("21 00 15 D1")) == 0xEC)
        #expect(UFRChecksum.of([]) == 0x07)
    }

    @Test("simple commands encode byte for byte")
    func simpleCommands() throws {
        #expect(try UFRCommand(.getReaderType).packet.bytes == Self.hex("55 10 AA 00 00 00 F6"))
        #expect(try UFRCommand(.sBlockDeselect, parameter0: 0x64).packet.bytes == Self.hex("55 92 AA 00 64 00 10"))
        #expect(
            try UFRCommand(.userInterfaceSignal, parameter0: 1, parameter1: 2).packet.bytes
                == Self.hex("55 26 AA 00 01 02 E1"))
        #expect(try UFRCommand(.getReaderType).extensionBytes.isEmpty)
        // The HTTP example's request: GET_LAST_CARD_ID_EX with the AA CC filler.
        #expect(
            try UFRCommand(.getLastCardIDEx, parameter0: 0xAA, parameter1: 0xCC).packet.bytes
                == Self.hex("55 7C AA 00 AA CC EC"))
    }

    @Test("extended commands: packet, then EXT with its checksum")
    func extendedCommands() throws {
        let keyWrite = try UFRCommand(UFRCommandCode(rawValue: 0x12), extensionData: [UInt8](repeating: 0xFF, count: 6))
        #expect(keyWrite.packet.bytes == Self.hex("55 12 AA 07 00 00 F1"))
        #expect(keyWrite.extensionBytes == Self.hex("FF FF FF FF FF FF 07"))

        let select = try UFRCommand(
            .apduTransceive, parameter1: 0xCC, extensionData: Self.hex("00 A4 04 00 07 D2 76 00 00 85 01 01 00"))
        #expect(select.packet.bytes == Self.hex("55 94 AA 0E 00 CC B0"))
        #expect(select.extensionBytes == Self.hex("00 A4 04 00 07 D2 76 00 00 85 01 01 00 8D"))

        let getVersion = try UFRCommand(.apduTransceive, parameter1: 200, extensionData: Self.hex("90 60 00 00 00"))
        #expect(getVersion.packet.bytes == Self.hex("55 94 AA 06 00 C8 AC"))
        #expect(getVersion.extensionBytes == Self.hex("90 60 00 00 00 F7"))
    }

    @Test("EXT data is at most 254 bytes")
    func extensionLimit() throws {
        #expect(throws: UFRFrameError.extensionTooLong(255)) {
            try UFRCommand(.apduTransceive, extensionData: [UInt8](repeating: 0, count: 255))
        }
        let largest = try UFRCommand(.apduTransceive, extensionData: [UInt8](repeating: 0, count: 254))
        #expect(largest.packet.extensionLength == 0xFF)
    }

    @Test("FF CA GET DATA from the reader's UID: whole, 6C with the length, and 6F 00 for a UID no reader sends")
    func pseudoAPDUAnswers() {
        let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
        #expect(UFRReaderDevice.answerPseudoAPDU([0xFF, 0xCA, 0x00, 0x00, 0x00], uid: uid) == uid + [0x90, 0x00])
        #expect(UFRReaderDevice.answerPseudoAPDU([0xFF, 0xCA, 0x00, 0x00, 0x04], uid: uid) == [0x6C, 0x07])
        #expect(
            UFRReaderDevice.answerPseudoAPDU([0xFF, 0xCA, 0x00, 0x00, 0x04], uid: [UInt8](repeating: 1, count: 300))
                == [0x6F, 0x00])
        #expect(UFRReaderDevice.answerPseudoAPDU([0xFF, 0xCA, 0x01, 0x00, 0x00], uid: uid) == [0x6A, 0x81])
    }

    @Test("replies decode: RSP with EXT, ACK, ERR")
    func replies() throws {
        let readerType = try Self.decodeAll(Self.hex("DE 10 ED 05 00 00 2D 21 00 15 D1 EC"))
        #expect(
            readerType == [
                .reply(UFRReply(outcome: .response(.getReaderType), extensionData: Self.hex("21 00 15 D1")))
            ])

        let apdu = try Self.decodeAll(Self.hex("AC 94 CA 0E 00 CC 37 DE 94 ED 03 00 00 AB 90 00 97"))
        #expect(
            apdu == [
                .acknowledgement(.apduTransceive),
                .reply(UFRReply(outcome: .response(.apduTransceive), extensionData: [0x90, 0x00])),
            ])

        #expect(try Self.decodeAll(Self.hex("EC 08 CE 00 00 00 31")) == [.reply(UFRReply(outcome: .error(.noCard)))])
        #expect(
            try Self.decodeAll(Self.hex("DE 29 ED 00 03 09 17"))
                == [.reply(UFRReply(outcome: .response(.getFirmwareVersion), value0: 3, value1: 9))])
        for simple in ["DE 92 ED 00 00 00 A8", "DE 26 ED 00 00 00 1C", "DE 71 ED 00 00 00 49", "DE 30 ED 00 00 00 0A"] {
            let frames = try Self.decodeAll(Self.hex(simple))
            #expect(frames.count == 1, "\(simple)")
            guard case .reply(let reply) = frames.first else { continue }
            #expect(reply.bytes == Self.hex(simple))
        }
        // The suggested answer to a bad checksum.
        #expect(
            try Self.decodeAll(Self.hex("EC 02 CE 00 00 00 27")) == [.reply(UFRReply(outcome: .error(.checksumError)))])
    }

    @Test("the HTTP example's GET_LAST_CARD_ID_EX reply: SAK 08, a 4-byte UID padded to 10")
    func lastCardID() throws {
        let frames = try Self.decodeAll(Self.hex("DE 7C ED 0B 08 04 4F 52 DA D9 95 00 00 00 00 00 00 CB"))
        guard case .reply(let reply) = frames.first else {
            Issue.record("no reply")
            return
        }
        #expect(reply.outcome == .response(.getLastCardIDEx))
        #expect(UFRCardID(reply: reply) == UFRCardID(sak: 0x08, uid: Self.hex("52 DA D9 95")))
    }

    @Test("DESFire replies from the document: FREE_MEM and DESFIRE_WRITE_AES_KEY")
    func desfireReplies() throws {
        let freeMemory = try Self.decodeAll(Self.hex("DE 8D ED 09 00 00 BE B9 0B 0A 00 E8 03 00 00 5A"))
        #expect(
            freeMemory == [
                .reply(
                    UFRReply(
                        outcome: .response(UFRCommandCode(rawValue: 0x8D)),
                        extensionData: Self.hex("B9 0B 0A 00 E8 03 00 00")))
            ])
        #expect(
            try UFRPacket(decoding: Self.hex("55 8E AA 12 00 00 6A"))
                == UFRPacket(kind: .command, code: 0x8E, extensionLength: 0x12))
        let writeKey = try Self.decodeAll(Self.hex("DE 8E ED 03 00 00 C5 00 00 07"))
        #expect(
            writeKey == [.reply(UFRReply(outcome: .response(UFRCommandCode(rawValue: 0x8E)), extensionData: [0, 0]))])
    }

    @Test("vendor examples that fail their checksum are rejected, with the right checksum named")
    func vendorTypos() {
        // CREATE_STD_FILE (0x85): the document prints 67, the bytes give 6C.
        #expect(throws: UFRFrameError.badChecksum(.command, expected: 0x6C, found: 0x67)) {
            try UFRPacket(decoding: Self.hex("55 85 AA 1F 00 00 67"))
        }
        // GET_DESFIRE_UID (0x80) reply: AC printed, C6 computed.
        #expect(throws: UFRFrameError.badChecksum(.response, expected: 0xC6, found: 0xAC)) {
            try UFRPacket(decoding: Self.hex("DE 80 ED 0C 00 00 AC"))
        }
        // SET_UART_SPEED's printed reply swaps header and trailer.
        #expect(throws: UFRFrameError.notAHeader(0xED)) {
            try UFRPacket(decoding: Self.hex("ED 70 DE 00 00 00 49"))
        }
    }

    @Test("the decoder takes bytes one at a time, and skips the bootloader's 03 55 55 BB")
    func byteByByte() throws {
        var decoder = UFRReplyDecoder()
        let wire = Self.hex("03 55 55 BB DE 10 ED 05 00 00 2D 21 00 15 D1 EC")
        var frames: [UFRIncomingFrame] = []
        for byte in wire {
            decoder.append([byte])
            while let frame = try decoder.next() { frames.append(frame) }
        }
        #expect(frames.count == 1)
        #expect(decoder.skippedByteCount == 4)
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test("a corrupt frame throws once, and the frame after it still decodes")
    func resynchronises() throws {
        var decoder = UFRReplyDecoder()
        decoder.append(Self.hex("DE 10 ED 05 00 00 2E") + Self.hex("EC 08 CE 00 00 00 31"))
        #expect(throws: UFRFrameError.badChecksum(.response, expected: 0x2D, found: 0x2E)) { try decoder.next() }
        #expect(try decoder.next() == .reply(UFRReply(outcome: .error(.noCard))))

        decoder.reset()
        decoder.append(Self.hex("DE 10 ED 05 00 00 2D 21 00 15 D1 ED") + Self.hex("DE 92 ED 00 00 00 A8"))
        #expect(throws: UFRFrameError.badExtensionChecksum(expected: 0xEC, found: 0xED)) { try decoder.next() }
        #expect(try decoder.next() == .reply(UFRReply(outcome: .response(.sBlockDeselect))))
    }

    @Test("a header byte inside other bytes is skipped when its trailer does not follow")
    func falseHeader() throws {
        #expect(try Self.decodeAll(Self.hex("DE 00 DE 92 ED 00 00 00 A8")).count == 1)
        // A short frame stays buffered until its bytes come.
        var decoder = UFRReplyDecoder()
        decoder.append(Self.hex("DE 10 ED 05 00 00 2D 21 00"))
        #expect(try decoder.next() == nil)
        #expect(decoder.bufferedByteCount == 9)
    }

    @Test("card types: ISO-DEP, and the PC/SC part 3 ATR each gets")
    func cardTypes() {
        #expect(UFRCardType(rawValue: 0x28).atr == Self.hex("3B 81 80 01 80 80"))
        #expect(UFRCardType(rawValue: 0x3F).atr == Self.hex("3B 81 80 01 80 80"))
        #expect(UFRCardType(rawValue: 0x40).atr == Self.hex("3B 80 80 01 01"))
        #expect(
            UFRCardType(rawValue: 0x21).atr == Self.hex("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00 6A"))
        #expect(UFRCardType(rawValue: 0x22).atr.last == 0x69)
        #expect(UFRCardType(rawValue: 0x20).atr.last == 0x4D)
        #expect(UFRCardType(rawValue: 0x01).atr.last == 0x68)
        #expect(UFRCardType(rawValue: 0x04).atr.last == 0x51)
        #expect(UFRCardType(rawValue: 0x02).atr.last == 0x56)
        #expect(UFRCardType(rawValue: 0x28).isISODEP)
        #expect(UFRCardType(rawValue: 0x12).isISODEP)
        #expect(!UFRCardType(rawValue: 0x21).isISODEP)
        #expect(!UFRCardType(rawValue: 0x08).isISODEP)
        // Every ATR built reads back as the card it names.
        #expect(ATRIdentification(atr: UFRCardType(rawValue: 0x21).atr).cardName?.rawValue == 0x0001)
    }
}
