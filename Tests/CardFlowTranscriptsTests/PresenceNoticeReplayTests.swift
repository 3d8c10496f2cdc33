import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import Testing

@testable import CardFlowTranscripts

/// A real ACR122U's card events (pyscard#18): the reader announces a card (NotifySlotChange
/// `50 03`) while its slot status, asked right after, still says no card (bStatus 02; pcscd
/// logged "Card absent"), then announces it gone (`50 02`). The arrival must reach CardFlow as an
/// arrival, not as a bare change the next presence check would turn into nothing.
@Suite("Presence notices from a recorded reader")
struct PresenceNoticeReplayTests {
    @Test("an ACR122U's recorded 50 03 / 50 02 are an arrival and a removal")
    func recordedNotificationsAreArrivalAndRemoval() async throws {
        let transcript = try TranscriptFixtures.transcript("pyscard-18-acr122u-card-events.log")
        let recorded = transcript.events.compactMap { event -> [UInt8]? in
            if case .interrupt(let bytes) = event { return bytes }
            return nil
        }
        #expect(recorded == [[0x50, 0x03], [0x50, 0x02]])
        let descriptor = try #require(
            try TranscriptFixtures.descriptor(for: transcript, named: "pyscard-18-acr122u-card-events.log"))
        let driver = CCIDReaderDriver(
            driver: CCIDDriver(transport: ReplayUSBTransport(transcript: transcript), descriptor: descriptor), slot: 0)
        var notices: [PresenceNotice] = []
        for _ in recorded { notices.append(try await driver.nextPresenceNotice(timeout: .seconds(1))) }
        #expect(notices == [.arrived, .removed])
    }
}
