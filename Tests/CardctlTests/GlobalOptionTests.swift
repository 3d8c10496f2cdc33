import Foundation
import Testing

/// Global options through ArgumentParser's own option groups: before or after the subcommand,
/// short or long, on nested subcommands too.
@Suite("cardctl global options")
struct GlobalOptionTests {
    @Test(
        "-r/--reader before and after the subcommand, short and long",
        arguments: [
            ["-r", "sim:none", "apdu", Card.selectApplication],
            ["apdu", "-r", "sim:none", Card.selectApplication],
            ["apdu", Card.selectApplication, "-r", "sim:none"],
            ["--reader", "sim:none", "apdu", Card.selectApplication],
            ["apdu", Card.selectApplication, "--reader=sim:none"],
        ])
    func readerPlacement(arguments: [String]) async throws {
        // An empty simulated reader: the APDU cannot be sent, proof the selector was honoured.
        let result = try await CardctlProcess.run(arguments)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("no card"), "\(result)")
    }

    @Test(
        "-j and -v before and after the subcommand",
        arguments: [
            ["-j", "-v", "-r", "sim:iso7816", "apdu", Card.selectApplication],
            ["-r", "sim:iso7816", "apdu", Card.selectApplication, "-j", "-v"],
            ["-jv", "apdu", "-r", "sim:iso7816", Card.selectApplication],
            ["--json", "--trace", "apdu", Card.selectApplication, "--reader", "sim:iso7816"],
        ])
    func jsonAndTraceShortOptions(arguments: [String]) async throws {
        let result = try await CardctlProcess.run(arguments)
        #expect(result.status == 0, "\(result)")
        let answers = try Fixtures.jsonObjects(result.stdout)
        #expect(answers.first?["sw"] as? String == "9000", "\(result)")
        // With --json the trace goes to stderr, leaving stdout pure JSON.
        #expect(result.stderrLines.contains("SW1-SW2: 90, 00"), "\(result)")
    }

    @Test(
        "nested subcommands take global options before the group, between, and after",
        arguments: [
            ["-r", "sim:iso15693", "-j", "iso15693", "info"],
            ["iso15693", "-r", "sim:iso15693", "info", "-j"],
            ["iso15693", "info", "--json", "--reader", "sim:iso15693"],
        ])
    func nestedSubcommand(arguments: [String]) async throws {
        let result = try await CardctlProcess.run(arguments)
        #expect(result.status == 0, "\(result)")
        #expect((try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) != nil, "stdout is JSON: \(result)")
    }

    @Test(
        "commands without a reader take -j wherever it is given",
        arguments: [
            ["-j", "ndef", "decode", "D1010B55026769746875622E636F6D"],
            ["ndef", "decode", "D1010B55026769746875622E636F6D", "-j"],
        ])
    func jsonOnReaderlessCommands(arguments: [String]) async throws {
        let result = try await CardctlProcess.run(arguments)
        #expect(result.status == 0, "\(result)")
        let records = try Fixtures.jsonObjects(result.stdout)
        #expect(records.count == 1, "\(result)")
    }

    @Test("an option value that looks like a subcommand name stays the option's value")
    func optionValueNamedLikeASubcommand() async throws {
        let result = try await CardctlProcess.run(["--reader", "list", "apdu", Card.selectApplication])
        #expect(result.status == 2, "'list' is a bad selector, not the subcommand: \(result)")
    }

    @Test func subcommandHelpShowsTheGlobalOptions() async throws {
        let result = try await CardctlProcess.run(["apdu", "--help"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("-r, --reader <SELECTOR>"), "\(result)")
        #expect(result.stdout.contains("-j, --json"), "\(result)")
        #expect(result.stdout.contains("-v, --trace"), "\(result)")
    }

    @Test("ArgumentParser's completion script")
    func completionScript() async throws {
        // Seconds of CPU in a debug build: give a loaded machine time.
        let result = try await CardctlProcess.run(["--generate-completion-script", "bash"], timeout: .seconds(120))
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("cardctl"), "\(result)")
        #expect(
            result.stdout.contains("apdu") && result.stdout.contains("iso15693"), "subcommands are completed: \(result)"
        )
    }
}
