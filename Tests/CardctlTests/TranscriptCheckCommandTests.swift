import Foundation
import Testing

/// `cardctl transcript-check` on the transcript corpus, as Scripts/transcript-check.sh runs it.
@Suite("cardctl transcript-check")
struct TranscriptCheckCommandTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func run(_ logs: [String]) async throws -> CardctlResult {
        try await CardctlProcess.run(
            ["transcript-check", "--fixtures", fixtures.appendingPathComponent("ccid-readers").path]
                + logs.map { fixtures.appendingPathComponent("transcripts/\($0)").path })
    }

    @Test("a log that replays identically exits 0 and shows both outcomes of each operation")
    func identical() async throws {
        let result = try await Self.run(["pcsc-66-utrust-3700f-no-card.log"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("slot status → no card | CardFlow: no card"), "\(result)")
        #expect(result.stdout.contains("identical"), "\(result)")
    }

    @Test("a log that differs exits 3 and marks the operation")
    func differs() async throws {
        let result = try await Self.run(["pyscard-18-acr122u-ultralight-mute.log"])
        #expect(result.status == 3, "\(result)")
        #expect(result.stdout.contains("CardFlow: failure (cardAbsentOrMute)  <-- differs"), "\(result)")
    }

    @Test("a log whose reader has no descriptor dump exits 2")
    func noDescriptor() async throws {
        // The Yubikey NEO OTP+CCID log without the header line naming its stand-in dump: no dump
        // of 1050:0111 exists.
        let original = try String(
            contentsOf: Self.fixtures.appendingPathComponent("transcripts/yubico-piv-tool-63-yubikey-neo-powerup.log"),
            encoding: .utf8)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("transcript-check-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("neo.log")
        try original.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("# descriptor:") }.joined(separator: "\n")
            .write(to: log, atomically: true, encoding: .utf8)
        let result = try await CardctlProcess.run(
            ["transcript-check", "--fixtures", Self.fixtures.appendingPathComponent("ccid-readers").path, log.path])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("no descriptor for the reader"), "\(result)")
    }
}
