import Foundation
import Testing

@Suite("cardctl ndef read/write and iso15693")
struct TagCommandTests {
    @Test("ndef write then read on simulated Type 4 and Type 2 tags", arguments: ["ndef4", "type2"])
    func ndefRoundTrip(kind: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let reader = "sim:\(kind),state=\(directory.appendingPathComponent("tag.json").path)"
        let write = try await CardctlProcess.run(["--reader", reader, "ndef", "write", "--uri", "https://example.org"])
        #expect(write.status == 0, "\(write)")
        let read = try await CardctlProcess.run(["--reader", reader, "ndef", "read", "--json"])
        #expect(read.status == 0, "\(read)")
        let records = try Fixtures.jsonObjects(read.stdout)
        #expect(records.first?["uri"] as? String == "https://example.org", "\(read)")
    }

    @Test func ndefReadOnACardWithoutNDEFIsACardError() async throws {
        let result = try await CardctlProcess.run(["--reader", "sim:iso7816", "ndef", "read"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("not an NDEF tag"), "\(result)")
    }

    @Test func iso15693ExchangeWritesTheCommandsAnswerBack() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let reader = "sim:iso15693,state=\(directory.appendingPathComponent("tag.json").path)"
        let exchange = try await CardctlProcess.run([
            "--reader", reader, "--json", "iso15693", "exchange", "--via", "tr 0-9 5-9A-E",
        ])
        #expect(exchange.status == 0, "\(exchange)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(exchange.stdout.utf8)) as? [String: String])
        let read = try #require(object["read"])
        let written = try #require(object["written"])
        let expected = String(
            read.map { character -> Character in
                guard let digit = character.wholeNumberValue, digit <= 9 else { return character }
                return Array("56789ABCDE")[digit]
            })
        #expect(written == expected)
        // The tag now holds what was written (state file), block by block.
        let back = try await CardctlProcess.run(["--reader", reader, "iso15693", "read"])
        #expect(back.stdoutLines.first == written, "\(back)")
    }
}
