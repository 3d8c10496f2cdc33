import Foundation
import Testing

/// Storage-card command behaviour found by the datasheet-written partners (issue 35, items 8,
/// 9 and 13): a page count past the end is refused, an empty NDEF message is a message, pages
/// take hex like blocks do.
@Suite("cardctl storage cards: counts, empty NDEF, page numbers")
struct StorageCardCommandFixesTests {
    @Test("ntag read --page 134 --count 2 on an NTAG215 (135 pages) is refused with exit 2, nothing printed")
    func countPastTheEndIsRefused() async throws {
        let read = try await CardctlProcess.run([
            "--reader", "sim:ntag215", "ntag", "read", "--page", "134", "--count", "2",
        ])
        #expect(read.status == 2, "\(read)")
        #expect(read.stdout.isEmpty, "\(read)")
        #expect(read.stderr.contains("runs past the last page"), "\(read)")
        #expect(read.stderr.contains("at most --count 1"), "\(read)")
        let last = try await CardctlProcess.run([
            "--reader", "sim:ntag215", "ntag", "read", "--page", "134", "--count", "1",
        ])
        #expect(last.status == 0 && last.stdoutLines.count == 1 && last.stdoutLines[0].count == 8, "\(last)")
    }

    @Test("--page takes 0x hex as block numbers do")
    func pageInHex() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let reader = "sim:ntag215,state=\(directory.appendingPathComponent("tag.json").path)"
        let write = try await CardctlProcess.run(
            ["--reader", reader, "ntag", "write", "--page", "0x10", "--data", "CAFEF00D"])
        #expect(write.status == 0, "\(write)")
        let read = try await CardctlProcess.run(["--reader", reader, "ntag", "read", "--page", "16", "--count", "1"])
        #expect(read.stdoutLines == ["CAFEF00D"], "\(read)")
        let bad = try await CardctlProcess.run(["--reader", reader, "ntag", "read", "--page", "0x100"])
        #expect(bad.status == 2, "\(bad)")
    }

    @Test("ndef read of a factory NTAG (empty NDEF TLV 03 00 FE) is an empty message, exit 0")
    func emptyNDEFMessage() async throws {
        let text = try await CardctlProcess.run(["--reader", "sim:ntag215", "ndef", "read"])
        #expect(text.status == 0, "\(text)")
        #expect(text.stdoutLines == ["empty NDEF message (no records)"], "\(text)")
        let json = try await CardctlProcess.run(["--reader", "sim:ntag215", "--json", "ndef", "read"])
        #expect(json.status == 0, "\(json)")
        let records = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [Any], "\(json)")
        #expect(records.isEmpty)
    }
}

/// Found by the datasheet-written NTAG215 (Scripts/datasheet-cards-check.sh): `ndef read` read
/// the whole data area (31 READs on an NTAG215) and so failed on a tag whose reads are
/// password-protected after the message; it now reads up to the end of the NDEF TLV.
@Suite("cardctl ndef on a tag read-protected after its message")
struct NDEFBelowAUTH0Tests {
    @Test("ndef write, pwd-set --auth0 16 --protect-reads, ndef read without the password")
    func readBelowAUTH0() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let reader = "sim:ntag215,state=\(directory.appendingPathComponent("tag.json").path)"
        let write = try await CardctlProcess.run([
            "--reader", reader, "ndef", "write", "--uri", "https://example.org/p",
        ])
        #expect(write.status == 0, "\(write)")
        let protect = try await CardctlProcess.run([
            "--reader", reader, "ntag", "pwd-set", "--new-password", "CAFEF00D", "--new-pack", "BEEF",
            "--auth0", "16", "--protect-reads",
        ])
        #expect(protect.status == 0, "\(protect)")
        let read = try await CardctlProcess.run(["--reader", reader, "--trace", "ndef", "read"])
        #expect(read.status == 0, "\(read)")
        #expect(read.stdout.contains("uri https://example.org/p"), "\(read)")
        // The capability container (twice: detection, then the read) and two groups of four
        // pages, nothing past the message (the whole area would be 31 reads).
        let reads = read.stdoutLines.filter { $0.hasPrefix(">>> Send apdu FF B0 00") }
        #expect(reads.count == 4, "\(reads)")
    }
}

/// `ntag info` on a read-protected tag (issue 35, item 13): what can be read is printed, and
/// what cannot is named with the reason.
@Suite("cardctl ntag info on a read-protected tag")
struct NTAGInfoProtectedTests {
    @Test("pwd-set --protect-reads, then info without the password: UID and CC, configuration unavailable")
    func readProtected() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let reader = "sim:ntag215,state=\(directory.appendingPathComponent("tag.json").path)"
        let set = try await CardctlProcess.run([
            "--reader", reader, "ntag", "pwd-set", "--new-password", "CAFEF00D", "--new-pack", "BEEF",
            "--auth0", "4", "--protect-reads",
        ])
        #expect(set.status == 0, "\(set)")
        let info = try await CardctlProcess.run(["--reader", reader, "--json", "ntag", "info"])
        #expect(info.status == 0, "\(info)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        #expect(object["product"] as? String == "ntag215", "\(info)")
        #expect((object["uid"] as? String)?.count == 14, "\(info)")
        #expect(object["capabilityContainer"] as? String == "E1103E00", "\(info)")
        #expect(object["auth0"] == nil, "\(info)")
        let unavailable = try #require(object["unavailable"] as? [String], "\(info)")
        #expect(unavailable.contains { $0.hasPrefix("configuration pages") && $0.contains("--password") }, "\(info)")
        let text = try await CardctlProcess.run(["--reader", reader, "ntag", "info"])
        #expect(text.status == 0 && text.stdout.contains("unavailable: configuration pages"), "\(text)")
        // With the password, everything.
        let full = try await CardctlProcess.run([
            "--reader", reader, "--json", "ntag", "info", "--password", "CAFEF00D",
        ])
        let fullObject = try #require(try JSONSerialization.jsonObject(with: Data(full.stdout.utf8)) as? [String: Any])
        #expect(fullObject["auth0"] as? Int == 4 && fullObject["unavailable"] == nil, "\(full)")
    }
}
