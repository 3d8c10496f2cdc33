import Testing

@Suite("cardctl help")
struct HelpTests {
    @Test("help is printed on stdout with exit 0", arguments: [["--help"], ["help"], ["apdu", "--help"], ["list", "-h"], ["--reader", "sim", "shell", "--help"]])
    func helpRequests(arguments: [String]) async throws {
        let result = try await CardctlProcess.run(arguments)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("USAGE"), "\(result)")
        #expect(!result.stderr.contains("CommandError"), "\(result)")
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
