import Foundation
import Testing

@Suite("cardctl shell")
struct ShellCommandTests {
    @Test("one answer line per APDU line; a bad line gets an error line and the session goes on")
    func sessionWithBadLines() async throws {
        let lines = [
            Card.selectApplication,
            "00A4ZZ", // bad hex
            Card.selectEF0101,
            "00A4", // too short for an APDU
            Card.readBinary(4), // still the same session: EF 0101 is current
            "00 B0 00 00 02", // spaces allowed
        ]
        let result = try await CardctlProcess.run(
            ["--reader", "sim:iso7816", "shell"], input: lines.joined(separator: "\n") + "\n")
        #expect(result.status == 0, "\(result)")
        let output = result.stdoutLines
        try #require(output.count == 6, "\(result)")
        #expect(output[0] == Card.applicationFCI + "9000")
        #expect(output[1].hasPrefix("error: "), "\(result)")
        #expect(output[2] == "9000")
        #expect(output[3].hasPrefix("error: "), "\(result)")
        #expect(output[4] == "000102039000")
        #expect(output[5] == "00019000")
    }

    @Test("answers are flushed per line, before stdin ends")
    func flushedPerLine() async throws {
        let shell = try CardctlProcess(["--reader", "sim:iso7816", "shell"], interactiveInput: true)
        shell.send(Card.selectApplication + "\n")
        let first = await shell.nextOutputLine()
        #expect(first == Card.applicationFCI + "9000")
        shell.send("not hex\n")
        let second = await shell.nextOutputLine()
        #expect(second?.hasPrefix("error: ") == true, "got \(String(describing: second))")
        shell.send(Card.selectEF0101 + "\n")
        let third = await shell.nextOutputLine()
        #expect(third == "9000")
        #expect(shell.isRunning, "the session should wait for more input")
        shell.closeInput()
        let result = try await shell.waitForExit()
        #expect(result.status == 0, "\(result)")
    }

    @Test("global options before the subcommand apply to the shell")
    func globalOptionsBefore() async throws {
        let result = try await CardctlProcess.run(
            ["--reader", "sim:iso7816", "--trace", "shell"],
            input: Card.selectApplication + "\n")
        #expect(result.status == 0, "\(result)")
        // The trace must not mix with the answers on stdout.
        #expect(result.stdoutLines == [Card.applicationFCI + "9000"], "\(result)")
        #expect(result.stderrLines.contains("SW1-SW2: 90, 00"), "\(result)")
    }
}
