import Foundation
import Testing

/// `cardctl felica …` against a simulated FeliCa Lite-S, its state kept in a file between runs,
/// on the default simulated reader (an ACR1252U: ACS direct transmit) and on an Identiv uTrust
/// 3700 F profile (part 3 transparent exchange).
@Suite("cardctl felica")
struct FeliCaCommandTests {
    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("poll, write, read, ndef format/write/read on two reader families")
    func endToEnd() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let profile = Fixtures.readerDump("Identiv_uTrust_3700_F_CL_Reader.txt").path
        for reader in [
            "sim:felica-lite-s,state=\(directory.appendingPathComponent("a.json").path)",
            "sim:felica-lite-s,profile=\(profile),state=\(directory.appendingPathComponent("b.json").path)",
        ] {
            let poll = try await CardctlProcess.run(["--reader", reader, "--json", "felica", "poll"])
            #expect(poll.status == 0, "\(poll)")
            let polled = try json(poll.stdout)
            #expect(polled["product"] as? String == "FeliCa Lite-S" && polled["systemCode"] as? String == "88B4")
            #expect((polled["idm"] as? String)?.hasPrefix("012E") == true, "\(poll)")

            let data = String(repeating: "AB", count: 16) + String(repeating: "CD", count: 16)
            let write = try await CardctlProcess.run([
                "--reader", reader, "felica", "write", "--block", "3", "--data", data,
            ])
            #expect(write.status == 0, "\(write)")
            let read = try await CardctlProcess.run([
                "--reader", reader, "--json", "felica", "read", "--block", "0x03", "--count", "2",
            ])
            #expect(try json(read.stdout)["data"] as? String == data, "\(read)")
            let text = try await CardctlProcess.run(["--reader", reader, "felica", "read", "--block", "0x85"])
            #expect(text.stdoutLines.first?.hasPrefix("0085: 88 B4") == true, "\(text)")

            let format = try await CardctlProcess.run(["--reader", reader, "--json", "felica", "ndef", "format"])
            #expect(try json(format.stdout)["maximumBlocks"] as? Int == 13, "\(format)")
            let ndefWrite = try await CardctlProcess.run([
                "--reader", reader, "felica", "ndef", "write", "--uri", "https://example.org/felica",
            ])
            #expect(ndefWrite.status == 0, "\(ndefWrite)")
            let ndefRead = try await CardctlProcess.run(["--reader", reader, "felica", "ndef", "read"])
            #expect(ndefRead.stdout.contains("https://example.org/felica"), "\(ndefRead)")
            // The generic NDEF command finds the Type 3 tag as well.
            let generic = try await CardctlProcess.run(["--reader", reader, "ndef", "read"])
            #expect(generic.stdout.contains("https://example.org/felica"), "\(generic)")
            // NDEF on: the card answers Polling for 12FC.
            let ndefPoll = try await CardctlProcess.run([
                "--reader", reader, "--json", "felica", "poll", "--system-code", "12FC",
            ])
            #expect(try json(ndefPoll.stdout)["systemCode"] as? String == "12FC", "\(ndefPoll)")
        }
    }

    @Test("the card's refusals are exit 1 with the status flags; bad input is exit 2 and sends nothing")
    func refusalsAndBadInput() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let reader = "sim:felica-lite-s,state=\(directory.appendingPathComponent("c.json").path)"
        let readOnly = try await CardctlProcess.run([
            "--reader", reader, "felica", "write", "--block", "0x83", "--data", String(repeating: "00", count: 16),
        ])
        #expect(readOnly.status == 1 && readOnly.stderr.contains("01 A8"), "\(readOnly)")
        let unformatted = try await CardctlProcess.run(["--reader", reader, "felica", "ndef", "read"])
        #expect(unformatted.status == 1 && unformatted.stderr.contains("not NDEF formatted"), "\(unformatted)")
        let noSystem = try await CardctlProcess.run(["--reader", reader, "felica", "poll", "--system-code", "0003"])
        #expect(noSystem.status == 1, "\(noSystem)")
        let badInputs: [[String]] = [
            ["felica", "write", "--block", "1", "--data", "0102"],
            ["felica", "write", "--block", "1", "--data", "zz"],
            ["felica", "read", "--block", "0x10000"],
            ["felica", "read", "--block", "1", "--count", "0"],
            ["felica", "read", "--block", "1", "--service", "0B"],
            ["felica", "poll", "--system-code", "12"],
            ["felica", "ndef", "write"],
        ]
        for arguments in badInputs {
            let result = try await CardctlProcess.run(["--reader", reader] + arguments)
            #expect(result.status == 2, "\(arguments): \(result)")
        }
        let big = String(repeating: "x", count: 300)
        let tooLarge = try await CardctlProcess.run(["--reader", reader, "felica", "ndef", "format"])
        #expect(tooLarge.status == 0, "\(tooLarge)")
        let refused = try await CardctlProcess.run(["--reader", reader, "felica", "ndef", "write", "--text", big])
        #expect(refused.status == 2, "\(refused)")
    }
}
