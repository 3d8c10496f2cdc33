import CardFlowCCIDProtocol
import CardFlowSimulator
import Testing

@testable import CardFlowTranscripts

/// Driver bugs the replays exposed, each pinned by the recorded bytes that showed it.
@Suite("Driver regressions found by replays")
struct DriverRegressionTests {
    /// pyscard#18 (ACR122U): an XfrBlock answered by an empty DataBlock with bStatus 00 and
    /// bError FE. The driver handed an empty "response APDU" up; it must report a mute card.
    @Test("an empty DataBlock with bError ICC_MUTE at APDU level is a mute card, not an empty response")
    func emptyDataBlockWithICCMuteIsCardMute() async throws {
        let log = """
            # atr: 3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 03 00 00 00 00 68
            00000002 APDU: A0 A4 00 00 02 7F 10 
            00000002 -> 000000 6F 07 00 00 00 00 0F 00 00 00 A0 A4 00 00 02 7F 10 
            00005363 <- 000000 80 00 00 00 00 00 0F 00 FE 00 
            """
        let replay = ReplayUSBTransport(transcript: try TranscriptParser.parse(log))
        let profile = try ReaderProfile(
            contentsOfFile: TranscriptFixtures.fixturesRoot.appendingPathComponent("ccid-readers/ACR122U_PICC.txt").path
        )
        let driver = CCIDDriver(
            transport: replay, descriptor: try CCIDClassDescriptor(bytes: profile.classDescriptorBytes(interface: 0)))
        _ = try await driver.powerOn()
        await #expect(throws: CCIDDriverError.cardMute(during: .xfrBlock)) {
            try await driver.transmit([0xA0, 0xA4, 0x00, 0x00, 0x02, 0x7F, 0x10])
        }
        #expect(await replay.mismatches.isEmpty)
    }

    /// The same frame with data is an ordinary response: bError is not read when the command
    /// succeeded (the ACR122U puts 0x81 there on success).
    @Test("a DataBlock with data is a response whatever bError says")
    func dataBlockWithDataIsAResponse() async throws {
        let log = """
            # atr: 3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 03 00 00 00 00 68
            -> 000000 6F 05 00 00 00 00 0F 00 00 00 FF CA 00 00 00 
            <- 000000 80 06 00 00 00 00 0F 00 81 00 04 A1 B2 C3 90 00 
            """
        let replay = ReplayUSBTransport(transcript: try TranscriptParser.parse(log))
        let profile = try ReaderProfile(
            contentsOfFile: TranscriptFixtures.fixturesRoot.appendingPathComponent("ccid-readers/ACR122U_PICC.txt").path
        )
        let driver = CCIDDriver(
            transport: replay, descriptor: try CCIDClassDescriptor(bytes: profile.classDescriptorBytes(interface: 0)))
        _ = try await driver.powerOn()
        #expect(try await driver.transmit([0xFF, 0xCA, 0x00, 0x00, 0x00]) == [0x04, 0xA1, 0xB2, 0xC3, 0x90, 0x00])
    }
}
