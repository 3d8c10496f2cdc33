import CardFlowCCIDProtocol
import Testing

@testable import CardFlowTranscripts

@Suite("ReplayUSBTransport")
struct ReplayUSBTransportTests {
    static let log = """
        # atr: 3B 80 80 01 01
        -> 000000 65 00 00 00 00 00 21 00 00 00
        <- 000000 81 00 00 00 00 00 21 00 00 00
        -> 000000 6F 05 00 00 00 00 22 00 00 00 00 CA 5F 52 00
        <- 000000 80 02 00 00 00 00 22 00 00 00 90 00
        # --- gap
        -> 000000 6F 05 00 00 00 00 40 00 00 00 00 B0 00 00 10
        <- 000000 80 00 00 00 00 00 40 80 01 00
        <- 000000 80 02 00 00 00 00 40 00 00 00 6A 82
        -> 000000 63 00 00 00 00 00 41 00 00 00
        05001046 ccid_usb.c:1193:WriteUSB() write failed (1/9): -7 LIBUSB_ERROR_TIMEOUT
        """

    func replay() throws -> ReplayUSBTransport {
        ReplayUSBTransport(transcript: try TranscriptParser.parse(Self.log))
    }

    @Test("a matching command gets the recorded answer with the host's bSeq")
    func matchRewritesSequence() async throws {
        let replay = try replay()
        try await replay.bulkOut([0x65, 0, 0, 0, 0, 0, 0x03, 0, 0, 0], timeout: .seconds(1))
        let answer = try await replay.bulkIn(maxLength: 64, timeout: .seconds(1))
        #expect(answer == [0x81, 0, 0, 0, 0, 0, 0x03, 0, 0, 0])
        #expect(await replay.matchedCommands == 1)
    }

    @Test("GET_DATA_RATES gets the rates libccid logged (as many as asked); other class requests stall")
    func dataRatesFromTheLog() async throws {
        // The lines as pcsc-71's log has them (libccid's start-up, before the first CCID message).
        let log = """
            00000013 [1995993136] ccid_usb.c:1233:get_data_rates() declared: 125000 bps
            00000013 [1995993136] ccid_usb.c:1233:get_data_rates() declared: 56250 bps
            00000014 [1995993136] ccid_usb.c:1233:get_data_rates() declared: 93750 bps
            -> 000000 65 00 00 00 00 00 21 00 00 00
            <- 000000 81 00 00 00 00 00 21 00 00 00
            """
        let transcript = try TranscriptParser.parse(log)
        #expect(transcript.header.dataRates == [125_000, 56_250, 93_750])
        let replay = ReplayUSBTransport(transcript: transcript)
        let all = try await replay.control(
            CCIDClassRequest.getDataRates(count: 3).controlRequest(interface: 0), timeout: .seconds(1))
        #expect(CCIDClassRequest.decodeValues(all) == [125_000, 56_250, 93_750])
        let two = try await replay.control(
            CCIDClassRequest.getDataRates(count: 2).controlRequest(interface: 0), timeout: .seconds(1))
        #expect(CCIDClassRequest.decodeValues(two) == [125_000, 56_250])
        await #expect(throws: USBTransportError.stall(endpoint: "control")) {
            try await replay.control(
                CCIDClassRequest.getClockFrequencies(count: 1).controlRequest(interface: 0), timeout: .seconds(1))
        }
        // A log without the lines: the request stalls, as before.
        await #expect(throws: USBTransportError.stall(endpoint: "control")) {
            try await self.replay().control(
                CCIDClassRequest.getDataRates(count: 3).controlRequest(interface: 0), timeout: .seconds(1))
        }
        // The corpus's one log with the lines.
        let corpus = try TranscriptFixtures.transcript("pcsc-71-gemalto-ct40-t1.log")
        #expect(corpus.header.dataRates == [125_000, 56_250, 93_750, 62_500, 28_125, 46_875])
    }

    @Test("time extensions come back in order; then nothing more is recorded, so the read times out")
    func timeExtensionThenTimeout() async throws {
        let replay = try replay()
        try await replay.bulkOut(
            [0x6F, 5, 0, 0, 0, 0, 0x09, 0, 0, 0, 0x00, 0xB0, 0x00, 0x00, 0x10], timeout: .seconds(1))
        #expect(try await replay.bulkIn(maxLength: 64, timeout: .seconds(1))[7] == 0x80)
        #expect(
            try await replay.bulkIn(maxLength: 64, timeout: .seconds(1)) == [
                0x80, 2, 0, 0, 0, 0, 0x09, 0, 0, 0, 0x6A, 0x82,
            ])
        await #expect(throws: USBTransportError.timeout(endpoint: "bulk-IN", after: .seconds(1))) {
            try await replay.bulkIn(maxLength: 64, timeout: .seconds(1))
        }
    }

    @Test("at a segment's start the replay finds the command anywhere in it (resynchronising)")
    func resynchronises() async throws {
        let replay = try replay()
        // Straight into the second segment: the first one is skipped.
        try await replay.bulkOut(
            [0x6F, 5, 0, 0, 0, 0, 0x00, 0, 0, 0, 0x00, 0xB0, 0x00, 0x00, 0x10], timeout: .seconds(1))
        #expect(await replay.position.segment == 1)
    }

    @Test("a recorded write time-out happens again")
    func writeTimeout() async throws {
        let replay = try replay()
        await #expect(throws: USBTransportError.timeout(endpoint: "bulk-OUT", after: .seconds(2))) {
            try await replay.bulkOut([0x63, 0, 0, 0, 0, 0, 0x00, 0, 0, 0], timeout: .seconds(2))
        }
    }

    @Test("a command the recording does not accept is a mismatch with both frames and the position")
    func mismatch() async throws {
        let replay = try replay()
        try await replay.bulkOut([0x65, 0, 0, 0, 0, 0, 0x00, 0, 0, 0], timeout: .seconds(1))
        let other: [UInt8] = [0x6F, 5, 0, 0, 0, 0, 0x01, 0, 0, 0, 0x00, 0xCA, 0x5F, 0x53, 0x00]
        await #expect(throws: USBTransportError.self) { try await replay.bulkOut(other, timeout: .seconds(1)) }
        let mismatches = await replay.mismatches
        #expect(mismatches.count == 1)
        #expect(mismatches.first?.received == other)
        #expect(
            mismatches.first?.expected?.bytes == [0x6F, 5, 0, 0, 0, 0, 0x22, 0, 0, 0, 0x00, 0xCA, 0x5F, 0x52, 0x00])
        #expect(mismatches.first?.position == ReplayPosition(segment: 0, command: 1, segmentLine: 1))
    }

    @Test("a power-on the segment lacks is answered with the header's ATR")
    func standInPowerOn() async throws {
        let replay = try replay()
        try await replay.bulkOut([0x62, 0, 0, 0, 0, 0, 0x07, 0x01, 0, 0], timeout: .seconds(1))
        let answer = try await replay.bulkIn(maxLength: 64, timeout: .seconds(1))
        #expect(answer == [0x80, 5, 0, 0, 0, 0, 0x07, 0, 0, 0, 0x3B, 0x80, 0x80, 0x01, 0x01])
        #expect(await replay.standIns == [.powerOn])
    }

    @Test("bBWI of XfrBlock is the host's choice; bSlot and payload are not")
    func hostChosenFields() throws {
        let recorded = try RecordedFrame(
            direction: .bulkOut, readerIndex: 0, bytes: [0x6F, 2, 0, 0, 0, 0, 0x05, 0x00, 0, 0, 0xAA, 0xBB])
        #expect(ReplayFrameMatching.matches([0x6F, 2, 0, 0, 0, 0, 0x09, 0x04, 0, 0, 0xAA, 0xBB], recorded))
        #expect(!ReplayFrameMatching.matches([0x6F, 2, 0, 0, 0, 1, 0x05, 0x00, 0, 0, 0xAA, 0xBB], recorded))
        #expect(!ReplayFrameMatching.matches([0x6F, 2, 0, 0, 0, 0, 0x05, 0x00, 1, 0, 0xAA, 0xBB], recorded))
        #expect(!ReplayFrameMatching.matches([0x6F, 2, 0, 0, 0, 0, 0x05, 0x00, 0, 0, 0xAA, 0xBC], recorded))
    }

    @Test("a recorded four-byte T=0 case 1 command accepts ISO/IEC 7816-3's TPDU with P3 = 00, nothing else")
    func caseOneTPDU() throws {
        // libccid's XfrBlock of `80 10 00 00` to a TPDU reader (a log it wrote in ccid-differential).
        let recorded = try RecordedFrame(
            direction: .bulkOut, readerIndex: 0, bytes: [0x6F, 4, 0, 0, 0, 0, 0x0A, 0, 0, 0, 0x80, 0x10, 0x00, 0x00])
        let tpdu: [UInt8] = [0x6F, 5, 0, 0, 0, 0, 0x06, 0, 0, 0, 0x80, 0x10, 0x00, 0x00, 0x00]
        #expect(ReplayFrameMatching.matches(tpdu, recorded))
        // The four bytes as recorded still match (a host that sends what libccid sent).
        #expect(ReplayFrameMatching.matches([0x6F, 4, 0, 0, 0, 0, 0x01, 0, 0, 0, 0x80, 0x10, 0x00, 0x00], recorded))
        // P3 other than 00, another instruction, another slot, another message type: refused.
        let otherP3: [UInt8] = [0x6F, 5, 0, 0, 0, 0, 0x06, 0, 0, 0, 0x80, 0x10, 0x00, 0x00, 0x01]
        #expect(!ReplayFrameMatching.matches(otherP3, recorded))
        let otherInstruction: [UInt8] = [0x6F, 5, 0, 0, 0, 0, 0x06, 0, 0, 0, 0x80, 0x12, 0x00, 0x00, 0x00]
        #expect(!ReplayFrameMatching.matches(otherInstruction, recorded))
        let otherSlot: [UInt8] = [0x6F, 5, 0, 0, 0, 1, 0x06, 0, 0, 0, 0x80, 0x10, 0x00, 0x00, 0x00]
        let otherLevelParameter: [UInt8] = [0x6F, 5, 0, 0, 0, 0, 0x06, 0, 1, 0, 0x80, 0x10, 0x00, 0x00, 0x00]
        #expect(!ReplayFrameMatching.matches(otherSlot, recorded))
        #expect(!ReplayFrameMatching.matches(otherLevelParameter, recorded))
        // Only a four-byte recorded command: a recorded five-byte one wants five bytes, exactly.
        let fiveBytes: [UInt8] = [0x6F, 5, 0, 0, 0, 0, 0x0A, 0, 0, 0, 0x80, 0x10, 0x00, 0x00, 0x00]
        let five = try RecordedFrame(direction: .bulkOut, readerIndex: 0, bytes: fiveBytes)
        let six: [UInt8] = [0x6F, 6, 0, 0, 0, 0, 0x06, 0, 0, 0, 0x80, 0x10, 0x00, 0x00, 0x00, 0x00]
        #expect(!ReplayFrameMatching.matches(six, five))
        // Not for other messages of four bytes (an Escape).
        let escape = try RecordedFrame(
            direction: .bulkOut, readerIndex: 0, bytes: [0x6B, 4, 0, 0, 0, 0, 0x0A, 0, 0, 0, 0x80, 0x10, 0x00, 0x00])
        let escapeOfFive: [UInt8] = [0x6B, 5, 0, 0, 0, 0, 0x06, 0, 0, 0, 0x80, 0x10, 0x00, 0x00, 0x00]
        #expect(!ReplayFrameMatching.matches(escapeOfFive, escape))
    }
}
