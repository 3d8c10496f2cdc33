import Foundation
import Testing

@Suite("cardctl apdu")
struct APDUCommandTests {
    @Test("SELECT of the application answers its FCI and 9000")
    func selectApplication() async throws {
        let result = try await CardctlProcess.run(["--reader", "sim:iso7816", "apdu", Card.selectApplication])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines == ["\(Card.applicationFCI) 9000"], "\(result)")
    }

    @Test("several APDUs run in order in one session; an answer without data is just the SW")
    func severalInOneSession() async throws {
        let result = try await CardctlProcess.run([
            "--reader", "sim:iso7816", "apdu", Card.selectApplication, Card.selectEF0101, Card.readBinary(32),
        ])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdoutLines == [
                "\(Card.applicationFCI) 9000",
                "9000",
                "\(Card.hex(Card.ef0101)) 9000",
            ], "\(result)")
    }

    @Test("spaces inside a quoted APDU are allowed")
    func spacedHex() async throws {
        let result = try await CardctlProcess.run([
            "--reader", "sim:iso7816", "apdu", "00 A4 04 00 07 A0 00 00 02 47 10 01",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines == ["\(Card.applicationFCI) 9000"], "\(result)")
    }

    @Test("exit 0 whenever the card answered, whatever the SW")
    func errorStatusWordsStillExitZero() async throws {
        // 6A82: unknown AID; 6982: EF 0103 is read-only.
        let result = try await CardctlProcess.run([
            "--reader", "sim:iso7816", "apdu", Card.selectUnknownApplication, Card.selectApplication, Card.selectEF0103,
            "00D6000001FF",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines == ["6A82", "\(Card.applicationFCI) 9000", "9000", "6982"], "\(result)")
    }

    @Test("--expect-sw 9000 passes when every answer is 9000")
    func expectedStatusMatches() async throws {
        let result = try await CardctlProcess.run([
            "--reader", "sim:iso7816", "apdu", "--expect-sw", "9000", Card.selectApplication, Card.selectEF0101,
        ])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines == ["\(Card.applicationFCI) 9000", "9000"], "\(result)")
    }

    @Test("--expect-sw 9000 turns another SW into exit 1")
    func expectedStatusMismatch() async throws {
        let result = try await CardctlProcess.run([
            "--reader", "sim:iso7816", "apdu", Card.selectUnknownApplication, "--expect-sw", "9000",
        ])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdoutLines.first == "6A82", "the answer is still printed: \(result)")
        #expect(result.stderr.contains("9000") && result.stderr.contains("6A82"), "\(result)")
    }

    @Test(
        "bad hex: exit 2, the message names the bad character and its position",
        arguments: [
            (apdu: "00A4040G07", character: "G", position: 8),
            (apdu: "00A4040007A00000024710Z1", character: "Z", position: 23),
        ])
    func badHex(apdu: String, character: String, position: Int) async throws {
        let result = try await CardctlProcess.run(["--reader", "sim:iso7816", "apdu", apdu])
        #expect(result.status == 2, "\(result)")
        #expect(result.stdout.isEmpty, "nothing is sent: \(result)")
        #expect(result.stderr.contains(character) && result.stderr.contains("position \(position)"), "\(result)")
    }

    @Test("a bad APDU among good ones: exit 2 before anything is sent")
    func badHexAmongGoodOnes() async throws {
        let result = try await CardctlProcess.run([
            "--reader", "sim:iso7816", "apdu", Card.selectApplication, "00B0XX00",
        ])
        #expect(result.status == 2, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
    }

    @Test(
        "bad --expect-sw and unknown options: exit 2",
        arguments: [
            ["--reader", "sim:iso7816", "apdu", Card.selectApplication, "--expect-sw", "90"],
            ["--reader", "sim:iso7816", "apdu", Card.selectApplication, "--expect-sw", "90XY"],
            ["--reader", "sim:iso7816", "apdu", Card.selectApplication, "--no-such-option"],
            ["--no-such-option", "apdu", Card.selectApplication],
            ["apdu"],
            ["--reader", "sim:iso7816", "apdu", "00A4"],
        ])
    func usageErrors(arguments: [String]) async throws {
        let result = try await CardctlProcess.run(arguments)
        #expect(result.status == 2, "\(result)")
        #expect(!result.stderr.isEmpty, "\(result)")
    }

    @Test(
        "--trace prints each exchange",
        arguments: [
            ["--reader", "sim:iso7816", "--trace", "apdu", Card.selectApplication],
            ["--reader", "sim:iso7816", "apdu", Card.selectApplication, "--trace"],
        ])
    func trace(arguments: [String]) async throws {
        let result = try await CardctlProcess.run(arguments)
        #expect(result.status == 0, "\(result)")
        let lines = result.stdoutLines + result.stderrLines
        #expect(lines.contains(">>> Send apdu 00 A4 04 00 07 A0 00 00 02 47 10 01"), "\(result)")
        #expect(lines.contains("SW1-SW2: 90, 00"), "\(result)")
        #expect(lines.contains("APDU Response: 6F 0D 83 02 70 01 84 07 A0 00 00 02 47 10 01"), "\(result)")
        #expect(result.stdoutLines.contains("\(Card.applicationFCI) 9000"), "\(result)")
    }

    @Test(
        "--json: an array of answers with command, data and sw",
        arguments: [
            ["--reader", "sim:iso7816", "--json", "apdu", Card.selectApplication, Card.readBinary(4)],
            ["--reader", "sim:iso7816", "apdu", "--json", Card.selectApplication, Card.readBinary(4)],
            ["--reader", "sim:iso7816", "apdu", Card.selectApplication, Card.readBinary(4), "--json"],
        ])
    func json(arguments: [String]) async throws {
        let result = try await CardctlProcess.run(arguments)
        #expect(result.status == 0, "\(result)")
        let answers = try Fixtures.jsonObjects(result.stdout)
        try #require(answers.count == 2, "\(result)")
        #expect(answers[0]["command"] as? String == Card.selectApplication)
        #expect(answers[0]["data"] as? String == Card.applicationFCI)
        #expect(answers[0]["sw"] as? String == "9000")
        // READ BINARY with only a DF selected: 6986 (no current EF), no data.
        #expect(answers[1]["command"] as? String == Card.readBinary(4))
        #expect(answers[1]["data"] as? String == "")
        #expect(answers[1]["sw"] as? String == "6986")
    }

    @Test("--json with --trace keeps stdout pure JSON")
    func jsonWithTrace() async throws {
        let result = try await CardctlProcess.run([
            "--reader", "sim:iso7816", "--trace", "apdu", "--json", Card.selectApplication,
        ])
        #expect(result.status == 0, "\(result)")
        let answers = try Fixtures.jsonObjects(result.stdout)
        #expect(answers.count == 1)
        #expect(result.stderrLines.contains("SW1-SW2: 90, 00"), "\(result)")
    }

    @Test(
        "global options before and after the subcommand mean the same",
        arguments: [
            ["--reader", "sim:none", "apdu", Card.selectApplication],
            ["--reader=sim:none", "apdu", Card.selectApplication],
            ["apdu", "--reader", "sim:none", Card.selectApplication],
            ["apdu", Card.selectApplication, "--reader", "sim:none"],
        ])
    func readerOptionPlacement(arguments: [String]) async throws {
        // With an empty reader the APDU cannot be sent: proof the selector was honoured.
        let result = try await CardctlProcess.run(arguments)
        #expect(result.status != 0, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.contains("no card"), "\(result)")
    }

    @Test(
        "--timeout is accepted before and after the subcommand",
        arguments: [
            ["--reader", "sim:iso7816", "--timeout", "5000", "apdu", Card.selectApplication],
            ["--reader", "sim:iso7816", "apdu", Card.selectApplication, "--timeout", "5000"],
            ["--timeout", "5000", "--reader", "sim:iso7816", "--trace", "apdu", Card.selectApplication],
        ])
    func timeoutPlacement(arguments: [String]) async throws {
        let result = try await CardctlProcess.run(arguments)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines.contains("\(Card.applicationFCI) 9000"), "\(result)")
    }

    @Test(
        "--timeout is validated wherever it is given",
        arguments: [
            ["--reader", "sim:iso7816", "--timeout", "0", "apdu", Card.selectApplication],
            ["--reader", "sim:iso7816", "apdu", Card.selectApplication, "--timeout", "0"],
        ])
    func timeoutValidation(arguments: [String]) async throws {
        let result = try await CardctlProcess.run(arguments)
        #expect(result.status == 2, "\(result)")
    }

    @Test(
        "list: --json before and after the subcommand",
        arguments: [
            ["--json", "list", "--reader", "sim:iso7816"], ["list", "--json", "-r", "sim:iso7816"],
            ["--reader", "sim:none", "--json", "list"],
        ])
    func listJSONPlacement(arguments: [String]) async throws {
        let result = try await CardctlProcess.run(arguments)
        #expect(result.status == 0, "\(result)")
        let listings = try Fixtures.jsonObjects(result.stdout)
        #expect(listings.count == 1)
        #expect(listings.first?["cardPresent"] as? Bool == !arguments.contains("sim:none"))
    }
}
