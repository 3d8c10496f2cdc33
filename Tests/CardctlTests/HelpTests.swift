import CardFlow
import CardFlowProcessTestSupport
import Foundation
import Testing

@Suite("cardctl help")
struct HelpTests {
    @Test(
        "help is printed on stdout with exit 0",
        arguments: [
            ["--help"], ["help"], ["apdu", "--help"], ["list", "-h"], ["--reader", "sim", "shell", "--help"],
        ])
    func helpRequests(arguments: [String]) async throws {
        let result = try await CardctlProcess.run(arguments)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("USAGE"), "\(result)")
        #expect(!result.stderr.contains("CommandError"), "\(result)")
    }

    /// One version constant: both programs print CardFlowVersion.current (and CHANGELOG.md's
    /// newest release is the same).
    @Test func bothProgramsPrintTheOneVersion() async throws {
        let result = try await CardctlProcess.run(["--version"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == CardFlowVersion.current, "\(result)")
        let cardd = try await ChildProcess.run(CardctlExecutable.locate("cardd").path, ["--version"])
        #expect(cardd.status == 0, "\(cardd)")
        #expect(cardd.outputText.trimmingCharacters(in: .whitespacesAndNewlines) == CardFlowVersion.current)
        let changelog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("CHANGELOG.md")
        let text = try String(contentsOf: changelog, encoding: .utf8)
        #expect(
            text.contains("## [\(CardFlowVersion.current)]"),
            "CHANGELOG.md has no section for \(CardFlowVersion.current)")
    }

    @Test func noSubcommandPrintsUsage() async throws {
        let result = try await CardctlProcess.run([])
        #expect(result.stdout.contains("SUBCOMMANDS") || result.stderr.contains("SUBCOMMANDS"), "\(result)")
        #expect(!result.stderr.contains("error: --help"), "\(result)")
    }

    @Test func missingProfileIsBadInput() async throws {
        let result = try await CardctlProcess.run(["list", "--reader", "sim:iso7816,profile=/nonexistent/reader.txt"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("/nonexistent/reader.txt"), "\(result)")
    }
}
