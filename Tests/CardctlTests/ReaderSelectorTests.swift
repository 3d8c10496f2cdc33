import Foundation
import Testing

@Suite("cardctl --reader selectors")
struct ReaderSelectorTests {
    @Test("sim:desfire answers ISO-wrapped native commands through the reader stack")
    func desfireSimulator() async throws {
        let result = try await CardctlProcess.run([
            "apdu", "905A00000300000000", "9060000000", "--reader", "sim:desfire",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("9100"), "\(result)")
        #expect(result.stdout.contains("04010101001A05 91AF"), "\(result)")
    }

    @Test(
        "usb selectors that match no reader: list prints none, card commands exit 3",
        arguments: [
            ["apdu", Card.selectApplication, "--reader", "usb:FFFE:FFFE"],
            ["--reader", "usb:250:127", "shell"],
            ["apdu", Card.selectApplication, "--reader", "usb:serial=NO-SUCH-READER"],
        ])
    func usbNoMatchingReader(arguments: [String]) async throws {
        let result = try await CardctlProcess.run(arguments)
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("no reader matches"), "\(result)")
    }

    @Test func usbListWithNoMatchingReaderIsEmpty() async throws {
        let result = try await CardctlProcess.run(["list", "--json", "--reader", "usb:FFFE:FFFE"])
        #expect(result.status == 0, "\(result)")
        #expect(try Fixtures.jsonObjects(result.stdout).isEmpty, "\(result)")
    }

    @Test(
        "bad sim: selectors: exit 2 with a message",
        arguments: [
            "sim:nosuchcard", "sim:iso7816,bogus=1", "sim:iso7816,latency=abc", "sim:iso7816,lift-after=-1",
            "sim:iso7816,seed=x", "sim:iso7816,,seed=1", "sim:iso7816,swap", "sim:iso7816,return-after=10",
        ])
    func badSimulatorSelectors(selector: String) async throws {
        let result = try await CardctlProcess.run(["list", "--reader", selector])
        #expect(result.status == 2, "\(result)")
        #expect(!result.stderr.isEmpty, "\(result)")
    }

    @Test(
        "bad non-sim selectors: exit 2 (usage), like other bad selectors",
        arguments: ["foo", "usb:1:2:3", "usb:GGGG:0000", "simulator"])
    func badOtherSelectors(selector: String) async throws {
        let result = try await CardctlProcess.run(["list", "--reader", selector])
        #expect(!result.stderr.isEmpty, "\(result)")
        #expect(result.status == 2, "\(result)")
    }

    @Test("lift-after=1: the second APDU fails with a non-zero exit and a clear message")
    func liftAfterOne() async throws {
        let result = try await CardctlProcess.run([
            "apdu", "--reader", "sim:iso7816,lift-after=1", Card.selectApplication, Card.selectEF0101,
        ])
        #expect(result.status != 0, "\(result)")
        #expect(result.status == 1, "card gone is a card error: \(result)")
        #expect(result.stdoutLines == ["\(Card.applicationFCI) 9000"], "the first answer is printed: \(result)")
        #expect(result.stderr.contains("no card"), "\(result)")
    }

    @Test("sim:none: apdu fails with a non-zero exit and says there is no card")
    func noCard() async throws {
        let result = try await CardctlProcess.run(["apdu", "--reader", "sim:none", Card.selectApplication])
        #expect(result.status != 0, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.contains("no card"), "\(result)")
    }
}

@Suite("cardctl state=PATH")
struct CardStateTests {
    @Test("UPDATE BINARY in one run is seen by READ BINARY in the next")
    func persistsAcrossRuns() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let state = directory.appendingPathComponent("card.json").path
        let reader = "sim:iso7816,state=\(state)"

        let write = try await CardctlProcess.run([
            "apdu", "--reader", reader, Card.selectApplication, Card.selectEF0101, "00D6000004DEADBEEF",
        ])
        #expect(write.status == 0, "\(write)")
        #expect(write.stdoutLines.last == "9000", "\(write)")
        #expect(FileManager.default.fileExists(atPath: state), "the state file is written")

        let read = try await CardctlProcess.run([
            "apdu", Card.selectApplication, Card.selectEF0101, Card.readBinary(8), "--reader", reader,
        ])
        #expect(read.status == 0, "\(read)")
        #expect(read.stdoutLines.last == "DEADBEEF04050607 9000", "\(read)")

        // A card without state=PATH is fresh.
        let fresh = try await CardctlProcess.run([
            "--reader", "sim:iso7816", "apdu", Card.selectApplication, Card.selectEF0101, Card.readBinary(8),
        ])
        #expect(fresh.stdoutLines.last == "0001020304050607 9000", "\(fresh)")
    }

    enum Corruption: String, CaseIterable, Sendable {
        case garbage, empty, truncated, missingFields
    }

    @Test("a corrupt state file is an error and is left unchanged", arguments: Corruption.allCases)
    func corruptStateFile(corruption: Corruption) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let state = directory.appendingPathComponent("card.json")
        let contents: Data
        switch corruption {
        case .garbage: contents = Data("{not json at all".utf8)
        case .empty: contents = Data()
        case .missingFields: contents = Data(#"{"format": 1, "kind": "iso7816", "card": {}}"#.utf8)
        case .truncated:
            // A real state file, cut in half.
            let saved = try await CardctlProcess.run([
                "apdu", "--reader", "sim:iso7816,state=\(state.path)", Card.selectApplication,
            ])
            try #require(saved.status == 0, "\(saved)")
            let whole = try Data(contentsOf: state)
            contents = whole.prefix(whole.count / 2)
        }
        try contents.write(to: state)

        let result = try await CardctlProcess.run([
            "apdu", "--reader", "sim:iso7816,state=\(state.path)", Card.selectApplication, Card.selectEF0101,
            "00D6000004DEADBEEF",
        ])
        #expect(result.status != 0, "\(result)")
        #expect(result.stderr.contains("corrupt"), "\(result)")
        #expect(try Data(contentsOf: state) == contents, "the state file must not be touched")
    }
}
