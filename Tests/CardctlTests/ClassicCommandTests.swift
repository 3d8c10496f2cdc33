import Foundation
import Testing

/// `cardctl classic` against simulated MIFARE Classic cards on reader profiles of each vendor
/// family: ACS ACR1252U, Identiv uTrust 3700 F, HID OMNIKEY 5422 (each speaks its own dialect of
/// the PC/SC part 3 storage commands, and the card model answers in that dialect).
@Suite("cardctl classic")
struct ClassicCommandTests {
    static let profiles = [
        "ACS_ACR1252_Dual_Reader.txt", "Identiv_uTrust_3700_F_CL_Reader.txt", "HID_OMNIKEY_5422.txt",
    ]

    /// A simulated card of `kind` with its state in `directory`, on the reader `profile` describes.
    static func reader(_ kind: String, in directory: URL, profile: String? = nil) -> String {
        var selector = "sim:\(kind),state=\(directory.appendingPathComponent("card.json").path)"
        if let profile { selector += ",profile=\(Fixtures.readerDump(profile).path)" }
        return selector
    }

    static func object(_ result: CardctlResult) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return try #require(value as? [String: Any], "\(result)")
    }

    @Test("blocks and value blocks on each reader family", arguments: profiles)
    func blocksAndValues(profile: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let reader = Self.reader("classic1k", in: directory, profile: profile)
        let info = try await CardctlProcess.run(["--reader", reader, "--json", "classic", "info"])
        #expect(info.status == 0, "\(info)")
        let family = try Self.object(info)["readerFamily"] as? String
        #expect(family == ["ACS_": "acs", "Iden": "identiv", "HID_": "omnikey"][String(profile.prefix(4))], "\(info)")

        let data = (0..<32).map { String(format: "%02X", $0 * 7 % 256) }.joined()
        let write = try await CardctlProcess.run([
            "--reader", reader, "classic", "write", "--block", "8", "--data", data,
        ])
        #expect(write.status == 0, "\(write)")
        let read = try await CardctlProcess.run([
            "--reader", reader, "--json", "classic", "read", "--block", "8", "--count", "2",
        ])
        #expect(read.status == 0, "\(read)")
        let blocks = try #require(try Self.object(read)["blocks"] as? [[String: Any]])
        #expect(blocks.compactMap { $0["data"] as? String }.joined() == data)

        // A purse: set, top up, spend, copy to the backup block; each prints the value after.
        var value: [Int] = []
        for step in [["--set", "1000"], ["--add", "250"], ["--subtract", "75"], ["--copy-to", "13"]] {
            let result = try await CardctlProcess.run(
                ["--reader", reader, "--json", "classic", "value", "--block", "12"] + step)
            #expect(result.status == 0, "\(result)")
            value.append(try Self.object(result)["value"] as? Int ?? -1)
        }
        #expect(value == [1000, 1250, 1175, 1175])
        // The backup block holds a valid value block (value copies and address copies agree).
        let backup = try await CardctlProcess.run(["--reader", reader, "--json", "classic", "value", "--block", "13"])
        #expect(try Self.object(backup)["value"] as? Int == 1175, "\(backup)")
        // A data block is no value block: a card error, named.
        let notValue = try await CardctlProcess.run(["--reader", reader, "classic", "value", "--block", "8"])
        #expect(notValue.status == 1 && notValue.stderr.contains("no value block"), "\(notValue)")
    }

    @Test("new keys and access bits: the old key is refused, the new one opens the sector", arguments: profiles)
    func trailerLifecycle(profile: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let reader = Self.reader("classic1k", in: directory, profile: profile)
        // Data blocks readable with A|B, writable with B only (100); trailer 011 (key B writes all).
        let change = try await CardctlProcess.run([
            "--reader", reader, "--json", "classic", "trailer", "--sector", "3", "--write",
            "--new-key-a", "A0A1A2A3A4A5", "--new-key-b", "B0B1B2B3B4B5", "--access", "100,100,100,011",
        ])
        #expect(change.status == 0, "\(change)")
        #expect(try Self.object(change)["conditions"] as? [String] == ["100", "100", "100", "011"], "\(change)")

        let transport = try await CardctlProcess.run(["--reader", reader, "classic", "read", "--block", "12"])
        #expect(transport.status == 1, "\(transport)")
        #expect(transport.stderr.contains("wrong key or wrong key slot"), "\(transport)")

        let block = String(repeating: "5A", count: 16)
        let writeWithA = try await CardctlProcess.run([
            "--reader", reader, "classic", "write", "--block", "12", "--data", block, "--key", "A0A1A2A3A4A5",
        ])
        #expect(writeWithA.status == 1, "key A may not write under 100: \(writeWithA)")
        let writeWithB = try await CardctlProcess.run([
            "--reader", reader, "classic", "write", "--block", "12", "--data", block, "--key", "B0B1B2B3B4B5",
            "--key-type", "b",
        ])
        #expect(writeWithB.status == 0, "\(writeWithB)")
        let readWithA = try await CardctlProcess.run([
            "--reader", reader, "classic", "read", "--block", "12", "--key", "A0A1A2A3A4A5",
        ])
        #expect(
            readWithA.stdoutLines.first?.hasSuffix(Array(repeating: "5A", count: 16).joined(separator: " ")) == true,
            "\(readWithA)")

        // A trailer no key could write again is refused before anything is sent; the sector still
        // opens with key B afterwards.
        let lock = try await CardctlProcess.run([
            "--reader", reader, "classic", "trailer", "--sector", "3", "--write", "--new-key-a", "A0A1A2A3A4A5",
            "--new-key-b", "B0B1B2B3B4B5", "--access", "000,000,000,111", "--key", "B0B1B2B3B4B5", "--key-type", "b",
        ])
        #expect(lock.status == 2 && lock.stderr.contains("add --force"), "\(lock)")
        // Refused before LOAD KEYS and GENERAL AUTHENTICATE (issue 35, item 13): the trace is silent.
        let traced = try await CardctlProcess.run([
            "--reader", reader, "-v", "classic", "trailer", "--sector", "3", "--write", "--new-key-a", "A0A1A2A3A4A5",
            "--new-key-b", "B0B1B2B3B4B5", "--access", "000,000,000,111", "--key", "B0B1B2B3B4B5", "--key-type", "b",
        ])
        let trace = (traced.stdout + traced.stderr).lowercased().replacingOccurrences(of: " ", with: "")
        #expect(traced.status == 2 && !trace.contains("ff82") && !trace.contains("ff86"), "\(traced)")
        let after = try await CardctlProcess.run([
            "--reader", reader, "--json", "classic", "trailer", "--sector", "3", "--key", "B0B1B2B3B4B5",
            "--key-type", "b",
        ])
        #expect(try Self.object(after)["accessBits"] as? String != nil, "\(after)")
        #expect(try Self.object(after)["trailerWritable"] as? Bool == true, "\(after)")
    }

    @Test func ndefOnA4KCardWithMAD2() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let reader = Self.reader("classic4k", in: directory)
        let format = try await CardctlProcess.run([
            "--reader", reader, "classic", "ndef", "format", "--new-key-b", "0A0B0C0D0E0F",
        ])
        #expect(format.status == 0, "\(format)")
        let mad = try await CardctlProcess.run(["--reader", reader, "--json", "classic", "mad"])
        let madObject = try Self.object(mad)
        #expect(madObject["version"] as? Int == 2, "\(mad)")
        let applications = try #require(madObject["applications"] as? [[String: Any]])
        // Every sector but the MAD sectors 0 and 16 is an NDEF sector.
        #expect(applications.filter { $0["aid"] as? String == "E103" }.count == 38, "\(mad)")
        #expect(!applications.contains { $0["sector"] as? Int == 16 && $0["aid"] as? String == "E103" })

        let text = String(repeating: "Classic ", count: 100)
        let write = try await CardctlProcess.run(["--reader", reader, "classic", "ndef", "write", "--text", text])
        #expect(write.status == 0, "\(write)")
        let read = try await CardctlProcess.run(["--reader", reader, "--json", "classic", "ndef", "read"])
        #expect(try Fixtures.jsonObjects(read.stdout).first?["text"] as? String == text, "\(read)")

        let tooLarge = try await CardctlProcess.run([
            "--reader", reader, "classic", "ndef", "write", "--text", String(repeating: "x", count: 5000),
        ])
        #expect(tooLarge.status == 2 && tooLarge.stderr.contains("does not fit"), "\(tooLarge)")
        // The refused write left the message in place.
        let again = try await CardctlProcess.run(["--reader", reader, "--json", "classic", "ndef", "read"])
        #expect(try Fixtures.jsonObjects(again.stdout).first?["text"] as? String == text, "\(again)")
    }

    /// Issue 35: `cardctl ndef read` said "not an NDEF tag" on a Classic 1K that `classic ndef
    /// read` read. The generic commands now open the MAD and the NDEF sectors, on every family.
    @Test("ndef read and write (generic) on an NDEF-formatted Classic 1K", arguments: profiles)
    func genericNDEFOnClassic(profile: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let reader = Self.reader("classic1k", in: directory, profile: profile)
        // Not formatted yet: sector 0 does not open with the MAD key, and that is what is said.
        let blank = try await CardctlProcess.run(["--reader", reader, "ndef", "read"])
        #expect(blank.status != 0 && !blank.stderr.contains("not an NDEF tag"), "\(blank)")
        #expect(blank.stderr.contains("not formatted for NDEF: sector 0 (the MAD)"), "\(blank)")
        let format = try await CardctlProcess.run([
            "--reader", reader, "classic", "ndef", "format", "--new-key-b", "0A0B0C0D0E0F",
        ])
        #expect(format.status == 0, "\(format)")
        let empty = try await CardctlProcess.run(["--reader", reader, "ndef", "read"])
        #expect(empty.status == 0 && empty.stdoutLines == ["empty NDEF message (no records)"], "\(empty)")
        let written = try await CardctlProcess.run([
            "--reader", reader, "ndef", "write", "--uri", "https://example.org/classic",
        ])
        #expect(written.status == 0, "\(written)")
        // The generic write is what the Classic-specific read finds, and the other way round.
        let classicRead = try await CardctlProcess.run(["--reader", reader, "--json", "classic", "ndef", "read"])
        #expect(
            try Fixtures.jsonObjects(classicRead.stdout).first?["uri"] as? String == "https://example.org/classic",
            "\(classicRead)")
        let classicWrite = try await CardctlProcess.run([
            "--reader", reader, "classic", "ndef", "write", "--text", "written by classic ndef",
        ])
        #expect(classicWrite.status == 0, "\(classicWrite)")
        let genericRead = try await CardctlProcess.run(["--reader", reader, "--json", "ndef", "read"])
        #expect(
            try Fixtures.jsonObjects(genericRead.stdout).first?["text"] as? String == "written by classic ndef",
            "\(genericRead)")
    }

    @Test func dumpReportsSectorsTheKeyDoesNotOpenAndGoesOn() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let reader = Self.reader("classic1k", in: directory)
        let change = try await CardctlProcess.run([
            "--reader", reader, "classic", "trailer", "--sector", "5", "--write", "--new-key-a", "112233445566",
            "--new-key-b", "665544332211", "--access", "000,000,000,001",
        ])
        #expect(change.status == 0, "\(change)")
        let dump = try await CardctlProcess.run(["--reader", reader, "--json", "classic", "dump"])
        #expect(dump.status == 0, "\(dump)")
        let sectors = try #require(try Self.object(dump)["sectors"] as? [[String: Any]])
        #expect(sectors.count == 16)
        #expect((sectors[5]["error"] as? String)?.contains("authentication") == true, "\(dump)")
        #expect(
            sectors.enumerated().allSatisfy { index, sector in index == 5 || (sector["blocks"] as? [Any])?.count == 4 })
        // Trailers come back decoded (key A reads as zeros).
        let trailer = try #require((sectors[0]["blocks"] as? [[String: Any]])?.last)
        #expect((trailer["access"] as? String)?.contains("FF 07 80") == true, "\(trailer)")
        #expect((trailer["data"] as? String)?.hasPrefix("000000000000FF078069") == true, "\(trailer)")
    }

    @Test(
        "bad input is exit 2 before any APDU",
        arguments: [
            ["classic", "read", "--block", "4", "--key", "FFFF"],
            ["classic", "read", "--block", "4", "--key", "ZZZZZZZZZZZZ"],
            ["classic", "read", "--block", "64"],
            ["classic", "write", "--block", "4", "--data", "0011"],
            ["classic", "write", "--block", "0", "--data", String(repeating: "00", count: 16)],
            ["classic", "write", "--block", "6", "--data", String(repeating: "00", count: 32)],
            ["classic", "value", "--block", "4", "--add", "1", "--subtract", "1"],
            ["classic", "trailer", "--sector", "1", "--write", "--new-key-a", "FFFFFFFFFFFF"],
            [
                "classic", "trailer", "--sector", "1", "--write", "--new-key-a", "FFFFFFFFFFFF", "--new-key-b",
                "FFFFFFFFFFFF", "--access", "0,0,0,9",
            ],
        ])
    func badInput(arguments: [String]) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let reader = Self.reader("classic1k", in: directory)
        let result = try await CardctlProcess.run(["--reader", reader] + arguments)
        #expect(result.status == 2, "\(result)")
        // Block 6 is untouched by the refused two-block write that would have reached trailer 7.
        let read = try await CardctlProcess.run(["--reader", reader, "classic", "read", "--block", "6"])
        #expect(
            read.stdoutLines.first?.hasSuffix(Array(repeating: "00", count: 16).joined(separator: " ")) == true,
            "\(read)")
    }
}
