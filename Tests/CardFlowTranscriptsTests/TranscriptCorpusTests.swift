import Testing

@testable import CardFlowTranscripts

/// Every file of `Tests/Fixtures/transcripts` is a usable, honest transcript.
@Suite("Transcript corpus")
struct TranscriptCorpusTests {
    @Test("the corpus is there")
    func corpusPresent() {
        #expect(TranscriptFixtures.names.count >= 25)
    }

    @Test(
        "each file names its source, reader, card and license, and parses without problems",
        arguments: TranscriptFixtures.names)
    func fileIsComplete(name: String) throws {
        let transcript = try TranscriptFixtures.transcript(name)
        let header = transcript.header
        #expect(header.source?.hasPrefix("https://github.com/") == true, "\(name): # source")
        #expect(
            header.readerName?.isEmpty == false && header.vendorID != nil && header.productID != nil,
            "\(name): # reader")
        #expect(header.card?.isEmpty == false, "\(name): # card")
        #expect(header.license == "quoted from a public issue for interoperability testing", "\(name): # license")
        #expect(transcript.problems.isEmpty, "\(name): \(transcript.problems)")
        #expect(!transcript.segments.flatMap(\.frames).isEmpty, "\(name): no CCID message")
    }

    /// A VERIFY (INS 20) with data carries a PIN: the corpus keeps none (a file that needs the
    /// exchange replaces the PIN bytes and says so in a note).
    @Test("no PIN is stored", arguments: TranscriptFixtures.names)
    func noPIN(name: String) throws {
        let transcript = try TranscriptFixtures.transcript(name)
        let redacted = transcript.header.notes.contains { $0.contains("PIN replaced") }
        for event in transcript.events {
            guard case .commandAPDU(let apdu) = event, apdu.count > 5, apdu[1] == 0x20 else { continue }
            #expect(redacted, "\(name): VERIFY with data and no note saying its PIN was replaced")
        }
    }
}
