import CardFlowSimulator
import CardFlowSimulatorReaders
import CardFlowTranscripts
import Foundation
import Testing

/// One rule finds a recorded reader's descriptor dump for `replay:` readers and for cardctl.
@Suite("Transcript reader profile lookup")
struct TranscriptReaderProfileLookupTests {
    static let readers = TranscriptFixtures.fixturesRoot.appendingPathComponent("ccid-readers").path

    static func log(_ name: String) -> String {
        TranscriptFixtures.transcriptsDirectory.appendingPathComponent(name).path
    }

    @Test("the dump the header names is found beside the log's folder, by the log's VID:PID")
    func headerNamesTheDump() throws {
        let name = "pcsc-71-gemalto-ct40-t1.log"
        let profile = try TranscriptReaderProfileLookup().profile(
            for: try TranscriptFixtures.transcript(name), log: Self.log(name))
        #expect(profile.vendorID == 0x08E6 && profile.productID == 0x3437)
    }

    @Test("without a header line the dump is found by VID:PID in the folders searched, and not without them")
    func searchedByIdentifiers() throws {
        // The Gemalto log without its # descriptor: line: only its VID:PID is left.
        let text = try TranscriptFixtures.text("pcsc-71-gemalto-ct40-t1.log")
            .split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("# descriptor:") }.joined(separator: "\n")
        let transcript = try TranscriptParser.parse(text)
        #expect(transcript.header.descriptorFile == nil)
        let log = Self.log("pcsc-71-gemalto-ct40-t1.log")
        let profile = try TranscriptReaderProfileLookup(searchDirectories: [Self.readers])
            .profile(for: transcript, log: log)
        #expect(profile.vendorID == 0x08E6 && profile.productID == 0x3437)
        #expect(throws: TranscriptReaderProfileError.noDescriptor(log: log)) {
            try TranscriptReaderProfileLookup().profile(for: transcript, log: log)
        }
    }

    @Test("a reader no dump describes, a missing dump and an empty one are typed usage errors")
    func typedErrors() throws {
        // The Yubikey NEO OTP+CCID (1050:0111) has no dump of its own: without the header line that
        // names its stand-in, neither the header nor the VID:PID finds one.
        let yubikey = "yubico-piv-tool-63-yubikey-neo-powerup.log"
        let withoutStandIn = try TranscriptParser.parse(
            try TranscriptFixtures.text(yubikey)
                .split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.hasPrefix("# descriptor:") }.joined(separator: "\n"))
        #expect(withoutStandIn.header.descriptorFile == nil)
        #expect(throws: TranscriptReaderProfileError.noDescriptor(log: Self.log(yubikey))) {
            try TranscriptReaderProfileLookup(searchDirectories: [Self.readers])
                .profile(for: withoutStandIn, log: Self.log(yubikey))
        }
        let moved = FileManager.default.temporaryDirectory.appendingPathComponent("lookup-\(UUID())")
        try FileManager.default.createDirectory(at: moved, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: moved) }
        let gemalto = "pcsc-71-gemalto-ct40-t1.log"
        let elsewhere = moved.appendingPathComponent("logs").appendingPathComponent(gemalto).path
        let transcript = try TranscriptFixtures.transcript(gemalto)
        do throws(TranscriptReaderProfileError) {
            _ = try TranscriptReaderProfileLookup().profile(for: transcript, log: elsewhere)
            Issue.record("a dump that is nowhere was found")
        } catch {
            guard case .dumpNotFound(let file, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(file == "Gemalto_IDBridge_CT30.txt")
            #expect(error.category == .usage)
        }
        let empty = moved.appendingPathComponent("empty.txt").path
        FileManager.default.createFile(atPath: empty, contents: Data())
        #expect {
            try TranscriptReaderProfileLookup(explicitPath: empty).profile(for: transcript, log: Self.log(gemalto))
        } throws: { error in
            guard case .unreadableDump(let path, _) = error as? TranscriptReaderProfileError else { return false }
            return path == empty
        }
    }
}
