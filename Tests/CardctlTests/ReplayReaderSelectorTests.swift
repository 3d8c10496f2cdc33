import Foundation
import Testing

/// `--reader replay:LOG`: a recorded reader behind cardctl's ordinary commands.
@Suite("cardctl --reader replay:LOG")
struct ReplayReaderSelectorTests {
    static func log(_ name: String) -> String {
        TranscriptCheckCommandTests.fixtures.appendingPathComponent("transcripts/\(name)").path
    }

    @Test("list shows the recorded reader, its USB IDs and the recorded empty slot")
    func list() async throws {
        let result = try await CardctlProcess.run([
            "list", "--reader", "replay:" + Self.log("pcsc-66-utrust-3700f-no-card.log"),
        ])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Identiv uTrust 3700 F CL Reader [04E6:5790] replay"), "\(result)")
        #expect(result.stdout.contains("no card"), "\(result)")
    }

    @Test("the recorded mute card answers an APDU with the driver's card error")
    func muteCard() async throws {
        let result = try await CardctlProcess.run([
            "apdu", "--reader", "replay:" + Self.log("pyscard-18-acr122u-ultralight-mute.log"), "A0A40000027F10",
        ])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("the card did not answer"), "\(result)")
    }

    @Test("a replay selector with an unknown option is a usage error")
    func unknownOption() async throws {
        let result = try await CardctlProcess.run([
            "list", "--reader", "replay:" + Self.log("pcsc-66-utrust-3700f-no-card.log") + ",speed=2",
        ])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("unknown replay option"), "\(result)")
    }
}
