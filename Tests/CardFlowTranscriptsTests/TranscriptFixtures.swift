import CardFlowCCIDProtocol
import CardFlowSimulator
import CardFlowSimulatorReaders
import CardFlowTranscripts
import Foundation

/// The transcript corpus (`Tests/Fixtures/transcripts`) and the reader descriptor dumps
/// (`Tests/Fixtures/ccid-readers`), found from this file's path so a fresh clone works.
enum TranscriptFixtures {
    static let fixturesRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    static let transcriptsDirectory = fixturesRoot.appendingPathComponent("transcripts")

    /// Every transcript file name, sorted.
    static let names: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: transcriptsDirectory.path)) ?? []
        return files.filter { $0.hasSuffix(".log") }.sorted()
    }()

    static func text(_ name: String) throws -> String {
        String(decoding: try Data(contentsOf: transcriptsDirectory.appendingPathComponent(name)), as: UTF8.self)
    }

    static func transcript(_ name: String) throws -> Transcript {
        try TranscriptParser.parse(try text(name))
    }

    /// The CCID class descriptor of the transcript's reader (its `# descriptor:` dump, found as
    /// `replay:` readers and cardctl find it), nil when the corpus has no dump of the reader.
    static func descriptor(for transcript: Transcript, named name: String) throws -> CCIDClassDescriptor? {
        let log = transcriptsDirectory.appendingPathComponent(name).path
        let profile: ReaderProfile
        do {
            profile = try TranscriptReaderProfileLookup().profile(for: transcript, log: log)
        } catch .noDescriptor {
            return nil
        }
        return try CCIDClassDescriptor(bytes: profile.classDescriptorBytes(interface: transcript.header.interface))
    }
}
