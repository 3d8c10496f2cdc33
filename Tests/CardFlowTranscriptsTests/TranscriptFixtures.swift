import CardFlowCCIDProtocol
import CardFlowSimulator
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

    /// The CCID class descriptor the transcript's header names (`# descriptor:` and `# interface:`).
    static func descriptor(for transcript: Transcript) throws -> CCIDClassDescriptor? {
        guard let file = transcript.header.descriptorFile else { return nil }
        let path = fixturesRoot.appendingPathComponent("ccid-readers").appendingPathComponent(file).path
        let profile = try ReaderProfile.profiles(contentsOfFile: path).first { profile in
            profile.vendorID == transcript.header.vendorID && profile.productID == transcript.header.productID
        }
        guard let profile, profile.interfaces.indices.contains(transcript.header.interface) else { return nil }
        return try CCIDClassDescriptor(bytes: profile.classDescriptorBytes(interface: transcript.header.interface))
    }
}
