import CardFlowCCIDProtocol
import Testing

@testable import CardFlowTranscripts

@Suite("TranscriptParser")
struct TranscriptParserTests {
    /// Lines of LudovicRousseau/CCID#79 (OMNIKEY 3121), with pcscd's timestamps and thread ids.
    static let omnikeyLines = """
        00000010 [139702983595584] APDU: 00 CA 5F 52 00 
        00000012 [139702983595584] ifdhandler.c:1332:IFDHTransmitToICC() usb:076b/3021:libudev:0:/dev/bus/usb/001/009 (lun: 0)
        00000018 [139702983595584] -> 000000 6F 05 00 00 00 00 10 00 00 00 00 CA 5F 52 00 
        00011505 [139702983595584] <- 000000 80 0C 00 00 00 00 10 00 00 00 00 31 C5 73 C0 01 40 05 90 00 90 00 
        00000025 [139702983595584] SW: 00 31 C5 73 C0 01 40 05 90 00 90 00 
        """

    @Test("real lines with timestamps and thread ids give frames, APDU, response and the reader's USB IDs")
    func realLines() throws {
        let transcript = try TranscriptParser.parse(Self.omnikeyLines)
        #expect(transcript.problems.isEmpty)
        #expect(transcript.segments.count == 1)
        let events = transcript.events
        #expect(events.count == 4)
        #expect(events[0] == .commandAPDU([0x00, 0xCA, 0x5F, 0x52, 0x00]))
        guard case .frame(let out) = events[1], case .frame(let answer) = events[2] else {
            Issue.record("expected two frames, got \(events)")
            return
        }
        #expect(out.direction == .bulkOut && out.messageType == .xfrBlock && out.sequence == 0x10)
        #expect(Array(out.payload) == [0x00, 0xCA, 0x5F, 0x52, 0x00])
        #expect(answer.direction == .bulkIn && answer.messageType == .dataBlock && answer.payload.count == 12)
        #expect(events[3] == .responseAPDU([0x00, 0x31, 0xC5, 0x73, 0xC0, 0x01, 0x40, 0x05, 0x90, 0x00, 0x90, 0x00]))
        #expect(transcript.header.vendorID == 0x076B && transcript.header.productID == 0x3021)
    }

    @Test("colour codes, quoting, syslog prefixes and missing timestamps are taken off")
    func pasteNoise() throws {
        let text = """
            > 00000003 -> 000000 65 00 00 00 00 00 0A 00 00 00 
            >  \u{1B}[32m00000419\u{1B}[0m <- 000000 81 00 00 00 00 00 0A 00 00 00
            May 14 18:41:50 host pcscd[336623]: 00000003 -> 000000 62 00 00 00 00 00 0B 00 00 00
            | [0;34m<- 000000 80 02 00 00 00 00 0B 00 00 00 3B 00
            -> 000000 63 00 00 00 00 00 0C 00 00 00
            """
        let transcript = try TranscriptParser.parse(text)
        #expect(transcript.problems.isEmpty)
        let types = transcript.segments.flatMap(\.frames).map(\.messageType)
        #expect(types == [.getSlotStatus, .slotStatus, .iccPowerOn, .dataBlock, .iccPowerOff])
    }

    @Test("hex wrapped onto the next line continues the frame or APDU it belongs to")
    func wrappedLines() throws {
        let text = """
            00000005 APDU: 00 A4 04 00 06 D2 76 00 
            01 24 01 
            00000018 -> 000000 6F 0B 00 00 00 00 05 00 00 00 00 A4 04 00
             06 D2 76 00 01 24 01
            00000018 <- 000000 80 02 00 00 00 00 05 00 00 00 90 00
            """
        let transcript = try TranscriptParser.parse(text)
        #expect(transcript.problems.isEmpty)
        #expect(
            transcript.events.first == .commandAPDU([0x00, 0xA4, 0x04, 0x00, 0x06, 0xD2, 0x76, 0x00, 0x01, 0x24, 0x01]))
        #expect(transcript.segments[0].frames.map(\.bytes.count) == [21, 12])
    }

    @Test("a frame cut short is not kept: it is a problem and splits the conversation")
    func truncatedFrame() throws {
        let text = """
            00000000 -> 000000 65 00 00 00 00 00 00 00 00 00
            00000001 -> 000000 6F 05 00 00 00 00 01 00 00 00 00 CA
            00000002 SW: 90 00
            00000003 -> 000000 65 00 00 00 00 00 02 00 00 00
            """
        let transcript = try TranscriptParser.parse(text)
        #expect(
            transcript.problems == [
                TranscriptProblem(line: 2, reason: .invalidFrame(.lengthMismatch(declared: 5, received: 2)))
            ])
        #expect(transcript.segments.map(\.firstLine) == [1, 3])
        #expect(transcript.segments[1].frames.map(\.messageType) == [.getSlotStatus])
    }

    @Test("a frame whose type belongs to the other direction is refused")
    func wrongDirection() throws {
        let transcript = try TranscriptParser.parse("<- 000000 65 00 00 00 00 00 00 00 00 00\nSW: 90 00")
        #expect(transcript.problems.count == 1)
        #expect(transcript.segments.flatMap(\.frames).isEmpty)
    }

    @Test("CR LF and CR line ends split lines like LF")
    func lineEnds() throws {
        let text =
            "-> 000000 65 00 00 00 00 00 00 00 00 00\r\n<- 000000 81 00 00 00 00 00 00 00 00 00\r-> 000000 63 00 00 00 00 00 01 00 00 00"
        let transcript = try TranscriptParser.parse(text)
        #expect(
            transcript.segments.flatMap(\.frames).map(\.messageType) == [.getSlotStatus, .slotStatus, .iccPowerOff])
    }

    @Test("a gap line starts a new segment; header lines fill the header")
    func gapsAndHeader() throws {
        let text = """
            # source: https://example.invalid/issue
            # reader: Some Reader 072F:2200
            # atr: 3B 80 80 01 01
            # protocol: T=1
            # interface: 1
            -> 000000 65 00 00 00 00 00 00 00 00 00
            # --- gap: the middle is missing
            -> 000000 65 00 00 00 00 00 07 00 00 00
            """
        let transcript = try TranscriptParser.parse(text)
        #expect(transcript.segments.map(\.firstLine) == [1, 8])
        #expect(transcript.header.readerName == "Some Reader")
        #expect(transcript.header.vendorID == 0x072F && transcript.header.productID == 0x2200)
        #expect(transcript.header.answerToReset == [0x3B, 0x80, 0x80, 0x01, 0x01])
        #expect(transcript.header.transmissionProtocol == 1 && transcript.header.interface == 1)
        #expect(transcript.answerToReset == [0x3B, 0x80, 0x80, 0x01, 0x01])
    }

    @Test("proto-t1.c's 'received: 0, expected: 1' is not a T=1 block; real blocks are")
    func t1Lines() throws {
        let text = """
            00000163 sending: 00 40 0B 00 A4 04 00 06 11 22 33 44 55 66 9A 
            00000035 received: 00 82 00 82 
            00000034 openct/proto-t1.c:313:t1_transceive() received: 0, expected: 1, more: 0
            """
        let transcript = try TranscriptParser.parse(text)
        #expect(transcript.events.count == 2)
        #expect(transcript.events[1] == .t1Received([0x00, 0x82, 0x00, 0x82]))
    }

    @Test("errors are sorted into kinds: write and read time-outs, mute card, refused protocol")
    func failures() throws {
        let text = """
            05001046 ccid_usb.c:1193:WriteUSB() write failed (1/9): -7 LIBUSB_ERROR_TIMEOUT
            00101211 [1965028336] ccid_usb.c:898:ReadUSB() read failed (1/7): -7 LIBUSB_ERROR_TIMEOUT
            00000012 commands.c:1234:CmdPowerOn Card absent or mute
            00000046 [139702983595584] commands.c:1539:CCID_Receive Protocol not supported
            00000000 [139783334524480] ccid_usb.c:1191:WriteUSB() write failed (1/33): -1 LIBUSB_ERROR_IO
            """
        let kinds = try TranscriptParser.parse(text).events.map { event -> TranscriptFailure.Kind? in
            if case .failure(let failure) = event { failure.kind } else { nil }
        }
        #expect(kinds == [.writeTimeout, .readTimeout, .cardAbsentOrMute, .protocolNotSupported, .usbFailure])
    }

    @Test("a text with no conversation and a text over the limit are refused with typed errors")
    func refusals() {
        #expect(throws: TranscriptParseError.noConversation(lines: 2)) {
            try TranscriptParser.parse("hello\nworld")
        }
        let huge = String(repeating: "x", count: TranscriptParser.maximumTextLength + 1)
        #expect(
            throws: TranscriptParseError.tooLarge(bytes: huge.utf8.count, limit: TranscriptParser.maximumTextLength)
        ) {
            try TranscriptParser.parse(huge)
        }
    }

    @Test("NotifySlotChange lines become interrupt messages")
    func interrupts() throws {
        let transcript = try TranscriptParser.parse("00000046 [1995993136] NotifySlotChange: 50 03 ")
        #expect(transcript.events == [.interrupt([0x50, 0x03])])
    }

    /// nfc-tools/libnfc#691: libnfc's own ACR122U driver logs the CCID messages it writes and
    /// reads, without pcscd and without APDU lines.
    @Test("libnfc's TX/RX lines give frames, and an XfrBlock's payload and its answer the APDU pair")
    func libnfcLines() throws {
        let text = """
            debug   libnfc.driver.acr122_usb        TX: 62 00 00 00 00 00 00 01 00 00 
            debug   libnfc.driver.acr122_usb        RX: 80 02 00 00 00 00 00 00 81 00 3b 00 
            debug   libnfc.driver.acr122_usb        ACR122 PICC Operating Parameters
            debug\tlibnfc.driver.acr122_usb\tTX: 6f 05 00 00 00 00 00 00 00 00 ff 
            00  51  00  00
            debug   libnfc.driver.acr122_usb        RX: 80 02 00 00 00 00 00 00 81 00 90 00 
            debug   libnfc.driver.acr122_usb        TX: 6f 07 00 00 00 00 00 00 00 00 ff 00 00 00 02 d4 02 
            debug   libnfc.driver.acr122_usb        RX: 80 00 00 00 00 00 00 00 fe 00 
            """
        let transcript = try TranscriptParser.parse(text)
        #expect(transcript.problems.isEmpty)
        let types = transcript.segments.flatMap(\.frames).map(\.messageType)
        #expect(types == [.iccPowerOn, .dataBlock, .xfrBlock, .dataBlock, .xfrBlock, .dataBlock])
        let apdus = transcript.events.filter {
            if case .commandAPDU = $0 { true } else if case .responseAPDU = $0 { true } else { false }
        }
        // The power-on's answer is an ATR, not a response; the empty DataBlock gives no response.
        #expect(
            apdus == [
                .commandAPDU([0xFF, 0x00, 0x51, 0x00, 0x00]), .responseAPDU([0x90, 0x00]),
                .commandAPDU([0xFF, 0x00, 0x00, 0x00, 0x02, 0xD4, 0x02]),
            ])
        #expect(transcript.answerToReset == [0x3B, 0x00])
        let operations = TranscriptOperation.operations(of: transcript)
        #expect(operations.map(\.recordedOutcome) == [.bytes([0x3B, 0x00]), .bytes([0x90, 0x00]), .unknown])
    }

    @Test("libnfc lines that are not CCID messages, and a cut message, are handled like pcscd's")
    func libnfcOtherLines() throws {
        let text = """
            debug   libnfc.driver.acr122_usb        3 element(s) have been decoded from "acr122_usb:003:012"
            debug   libnfc.chip.pn53x       GetFirmwareVersion
            debug   libnfc.driver.acr122_usb        TX: 62 00 00 00 00 00 00 01 00 00 
            debug   libnfc.driver.acr122_usb        TX: 6f 0a 00 00 00 00 00 00 00 00 ff 00 00 00 05 d4
            debug   libnfc.driver.acr122_usb        RX: zz 00
            """
        let transcript = try TranscriptParser.parse(text)
        #expect(transcript.segments.first?.frames.map(\.messageType) == [.iccPowerOn])
        #expect(transcript.problems.count == 2)
    }

    /// FeitianSmartcardReader/FEITIAN_MOBILE_READERS#4: Feitian's iOS SDK announces each CCID
    /// message on a line of its own and writes it in groups of four bytes; "80020000" must not be
    /// taken for pcscd's timestamp.
    @Test("Feitian SDK traces give frames and the APDU pair; its 0x80100016 is a transmit failure")
    func feitianSDKLines() throws {
        let text = """
            Sending Command: 00A4000C022F00
            ==========write:
            6f070000 00000400 000000a4 000c022f
            00
            ==========read:
            80020000 00000400 00009000
            Rev:<9000>
            ==========write:
            6f050000 00000600 000000b0 000000
            0x80100016:An attempt was made to end a non-existent transaction.
            """
        let transcript = try TranscriptParser.parse(text)
        #expect(transcript.problems.isEmpty, "\(transcript.problems)")
        let frames = transcript.segments.flatMap(\.frames)
        #expect(frames.map(\.messageType) == [.xfrBlock, .dataBlock, .xfrBlock])
        #expect(frames.map(\.sequence) == [0x04, 0x04, 0x06])
        let events = transcript.events
        #expect(events.first == .commandAPDU([0x00, 0xA4, 0x00, 0x0C, 0x02, 0x2F, 0x00]))
        #expect(events.contains(.responseAPDU([0x90, 0x00])))
        let failures = events.compactMap { event -> TranscriptFailure.Kind? in
            if case .failure(let failure) = event { return failure.kind }
            return nil
        }
        #expect(failures == [.notTransacted])
    }
}
