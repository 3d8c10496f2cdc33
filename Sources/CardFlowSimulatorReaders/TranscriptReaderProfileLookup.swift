import CardFlowSimulator
import CardFlowTranscripts
import Foundation

/// The reader descriptor dump a recorded reader is replayed with: one rule for the `replay:`
/// reader source and for `cardctl transcript-check` and `cardctl simulate --replay`.
///
/// In order: an explicit dump (`profile=PATH`, `--reader-profile`); else the dump the log's
/// `# descriptor:` header line names, looked for in each search directory and then in
/// `ccid-readers/` beside the log's folder (the layout of `Tests/Fixtures`); else the first dump
/// in the search directories with the log's VID:PID. Within a dump, the reader with the log's
/// VID:PID is taken, else the dump's first reader.
///
/// ```swift
/// let transcript = try TranscriptParser.parse(logText)
/// let lookup = TranscriptReaderProfileLookup(searchDirectories: ["Tests/Fixtures/ccid-readers"])
/// let profile = try lookup.profile(for: transcript, log: logPath)
/// ```
public struct TranscriptReaderProfileLookup: Sendable {
    /// A dump to use whatever the log says.
    public var explicitPath: String?
    /// Folders of descriptor dumps (`*.txt`, as in `Tests/Fixtures/ccid-readers`).
    public var searchDirectories: [String]

    /// A lookup with an explicit dump and folders to search.
    ///
    /// - Parameters:
    ///   - explicitPath: a dump to use whatever the log says.
    ///   - searchDirectories: folders of descriptor dumps, searched in order.
    public init(explicitPath: String? = nil, searchDirectories: [String] = []) {
        self.explicitPath = explicitPath
        self.searchDirectories = searchDirectories
    }

    /// The reader profile for `transcript`, recorded in the file at `log`.
    ///
    /// - Parameters:
    ///   - transcript: the parsed log (its header gives the dump's name, VID:PID and interface).
    ///   - log: the log's path (dumps are also looked for beside its folder).
    /// - Throws: ``TranscriptReaderProfileError`` (a usage error: the input names no usable dump).
    public func profile(for transcript: Transcript, log: String) throws(TranscriptReaderProfileError) -> ReaderProfile {
        let header = transcript.header
        let matches = { (profile: ReaderProfile) in
            profile.vendorID == header.vendorID && profile.productID == header.productID
        }
        let profile: ReaderProfile
        let named: String?
        if let explicitPath { named = explicitPath } else { named = try namedDump(header.descriptorFile, log: log) }
        if let path = named {
            let profiles = try Self.profiles(in: path)
            guard let chosen = profiles.first(where: matches) ?? profiles.first else {
                throw .unreadableDump(path, reason: "it describes no reader")
            }
            profile = chosen
        } else if let found = firstDump(matching: matches, vendor: header.vendorID, product: header.productID) {
            profile = found
        } else {
            throw .noDescriptor(log: log)
        }
        guard profile.interfaces.indices.contains(header.interface) else {
            throw .noInterface(log: log, interface: header.interface)
        }
        return profile
    }

    /// The path of the dump `file` names, nil when the log names none.
    private func namedDump(_ file: String?, log: String) throws(TranscriptReaderProfileError) -> String? {
        guard let file else { return nil }
        let besideLog = URL(fileURLWithPath: log).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ccid-readers").path
        let candidates = (searchDirectories + [besideLog]).map { $0 + "/" + file }
        guard let path = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw .dumpNotFound(file, searched: searchDirectories + [besideLog])
        }
        return path
    }

    private func firstDump(
        matching matches: (ReaderProfile) -> Bool, vendor: UInt16?, product: UInt16?
    ) -> ReaderProfile? {
        guard vendor != nil, product != nil else { return nil }
        for directory in searchDirectories {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory))?.sorted() ?? []
            for name in names where name.hasSuffix(".txt") {
                // A dump that does not parse cannot be the reader's; the search goes on.
                if let found = (try? ReaderProfile.profiles(contentsOfFile: directory + "/" + name))?.first(
                    where: matches)
                {
                    return found
                }
            }
        }
        return nil
    }

    private static func profiles(in path: String) throws(TranscriptReaderProfileError) -> [ReaderProfile] {
        do {
            return try ReaderProfile.profiles(contentsOfFile: path)
        } catch {
            throw .unreadableDump(path, reason: "\(error)")
        }
    }
}
