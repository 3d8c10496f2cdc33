import Foundation
import Testing

/// `cardctl identify` on the simulator's cards, end to end (reader, power-on, ATR, UID).
@Suite("cardctl identify")
struct IdentifyCommandTests {
    /// Runs `identify --json` without pcsc-tools' list (its presence would change the names).
    private func identify(_ reader: String, _ extra: [String] = ["--atr-list", "none"]) async throws -> (
        CardctlResult, [String: Any]
    ) {
        let result = try await CardctlProcess.run(["identify", "--json", "--reader", reader] + extra)
        try #require(result.status == 0, "\(result)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
        return (result, report)
    }

    @Test func type2TagIsNamedFromThePCSCCardNameBytes() async throws {
        let (result, report) = try await identify("sim:type2")
        #expect(report["kind"] as? String == "contactlessStorage", "\(result)")
        #expect(report["name"] as? String == "MIFARE Ultralight", "\(result)")
        #expect((report["standard"] as? [String: Any])?["name"] as? String == "ISO/IEC 14443 A part 3", "\(result)")
        #expect((report["cardName"] as? [String: Any])?["value"] as? String == "0003", "\(result)")
        #expect((report["uid"] as? String)?.count == 14, "a 7-byte UID from FF CA: \(result)")
        #expect(report["family"] as? String == "ndef", "a Type 2 capability container: \(result)")
    }

    @Test func iso15693TagIsAnICODESLI() async throws {
        let (result, report) = try await identify("sim:iso15693")
        #expect(report["name"] as? String == "ICODE SLI", "\(result)")
        #expect((report["standard"] as? [String: Any])?["name"] as? String == "ISO/IEC 15693 part 3", "\(result)")
        #expect(report["family"] as? String == "iso15693", "\(result)")
    }

    @Test("ISO-DEP cards: historical bytes from the ATS", arguments: ["sim:desfire", "sim:iso7816", "sim:ndef4"])
    func isoDEPCards(reader: String) async throws {
        let (result, report) = try await identify(reader)
        #expect(report["atr"] as? String == "3B8180018080", "\(result)")
        #expect(report["kind"] as? String == "contactlessISODEP", "\(result)")
        #expect(report["historicalBytes"] as? String == "80", "\(result)")
        #expect(report["name"] == nil, "the ATR alone does not name a DESFire: \(result)")
        // The same ATR; the probes tell them apart (the plain ISO 7816 card is none of the families).
        let family: String? = ["sim:desfire": "desfire", "sim:ndef4": "ndef"][reader]
        #expect(report["family"] as? String == family, "\(result)")
    }

    /// Storage cards the ATR names: no probe needed (a Classic block read would need a key).
    @Test(
        "storage-card families from the PC/SC part 3 card name",
        arguments: [("sim:classic1k", "classic"), ("sim:classic4k", "classic"), ("sim:felica-lite-s", "felica")])
    func storageCardFamilies(reader: String, family: String) async throws {
        let (result, report) = try await identify(reader)
        #expect(report["kind"] as? String == "contactlessStorage", "\(result)")
        #expect(report["family"] as? String == family, "\(result)")
    }

    @Test func tonCardShowsItsProprietaryHistoricalText() async throws {
        let (result, report) = try await identify("sim:ton")
        #expect(report["kind"] as? String == "contactlessISODEP", "\(result)")
        #expect((report["details"] as? [String])?.contains { $0.contains("\"JCOP41V221\"") } == true, "\(result)")
        #expect(report["family"] as? String == "ton", "\(result)")
    }

    @Test func contactCardListsItsProtocols() async throws {
        let (result, report) = try await identify("sim:iso7816,contact=dual")
        #expect(report["kind"] as? String == "contact", "\(result)")
        #expect((report["details"] as? [String])?.contains("protocols: T=0, T=1") == true, "\(result)")
        #expect(report["uid"] == nil, "a contact card has no anti-collision UID: \(result)")
    }

    @Test func theATRListNamesWhatTheATRDoesNot() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let list = directory.appendingPathComponent("smartcard_list.txt")
        try Data(
            "# made up for this test\n3B 81 80 01 80 80\n\tA DESFire, says the list\n\tsecond line\n\n3B 8F .*\n\tStorage\n"
                .utf8
        ).write(to: list)
        let (result, report) = try await identify("sim:desfire", ["--atr-list", list.path])
        #expect(report["name"] as? String == "A DESFire, says the list", "\(result)")
        #expect(report["database"] as? String == list.path, "\(result)")
        let matches = try #require(report["matches"] as? [[String: Any]], "\(result)")
        #expect(matches.count == 1)
        #expect(matches.first?["descriptions"] as? [String] == ["A DESFire, says the list", "second line"])

        let text = try await CardctlProcess.run(["identify", "-r", "sim:desfire", "--atr-list", list.path])
        #expect(text.status == 0, "\(text)")
        #expect(text.stdoutLines.contains("Card: A DESFire, says the list"), "\(text)")
        #expect(text.stdoutLines.contains("  second line"), "\(text)")
    }

    @Test func plainTextOutput() async throws {
        let result = try await CardctlProcess.run(["identify", "--reader", "sim:type2", "--atr-list", "none"])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdoutLines.first == "ATR: 3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 03 00 00 00 00 68", "\(result)")
        #expect(result.stdoutLines.contains("Card: MIFARE Ultralight"), "\(result)")
        #expect(result.stdout.contains("UID: "), "\(result)")
    }

    @Test("--atr identifies without a reader (none is chosen here)")
    func givenATR() async throws {
        let result = try await CardctlProcess.run([
            "identify", "--atr", "3B8F8001804F0CA0000003061100 3B 0000000042",
            "--atr-list", "none", "-j",
        ])
        #expect(result.status == 0, "\(result)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(report["name"] as? String == "FeliCa", "\(result)")
    }

    @Test(
        "errors: no card is a card error, bad input a usage error",
        arguments: [
            (["identify", "-r", "sim:none"], Int32(1)),
            (["identify", "--atr", "3BZZ"], Int32(2)),
            (["identify", "--atr", "3B8180018080", "--atr-list", "/nonexistent/smartcard_list.txt"], Int32(2)),
        ])
    func errors(arguments: [String], status: Int32) async throws {
        let result = try await CardctlProcess.run(arguments)
        #expect(result.status == status, "\(result)")
        #expect(!result.stderr.isEmpty, "\(result)")
    }
}
