import CardFlowSimulator
import CardFlowTranscripts
import Foundation

/// The reader descriptor dump a transcript replays with: `--reader-profile`, else the dump its
/// `# descriptor:` header names (in `--fixtures`, or in `ccid-readers/` beside the log's folder,
/// the layout of Tests/Fixtures), else the first dump in `--fixtures` with the log's VID:PID.
struct TranscriptReaderProfile {
    let explicitPath: String?
    let fixtures: String

    func profile(for transcript: Transcript, log: String) throws -> ReaderProfile {
        let header = transcript.header
        let profile: ReaderProfile
        if let explicitPath {
            guard let first = try ReaderProfile.profiles(contentsOfFile: explicitPath).first else {
                throw InputError(description: "\(explicitPath) describes no reader")
            }
            profile = first
        } else if let found = try found(
            file: header.descriptorFile, log: log, vendor: header.vendorID, product: header.productID)
        {
            profile = found
        } else {
            throw InputError(
                description: "\(log): no descriptor for the reader (give --reader-profile, or a # descriptor: line)")
        }
        guard profile.interfaces.indices.contains(header.interface) else {
            throw InputError(description: "\(log): the reader has no interface \(header.interface)")
        }
        return profile
    }

    private func found(file: String?, log: String, vendor: UInt16?, product: UInt16?) throws -> ReaderProfile? {
        let matches = { (profile: ReaderProfile) in profile.vendorID == vendor && profile.productID == product }
        if let file {
            let besideLog = URL(fileURLWithPath: log).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("ccid-readers").appendingPathComponent(file).path
            let path = [fixtures + "/" + file, besideLog].first { FileManager.default.fileExists(atPath: $0) }
            guard let path else {
                throw InputError(description: "\(log): the descriptor dump \(file) is not in \(fixtures)")
            }
            return try ReaderProfile.profiles(contentsOfFile: path).first(where: matches)
        }
        guard vendor != nil, product != nil else { return nil }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fixtures))?.sorted() ?? []
        for name in names where name.hasSuffix(".txt") {
            if let found = (try? ReaderProfile.profiles(contentsOfFile: fixtures + "/" + name))?.first(where: matches) {
                return found
            }
        }
        return nil
    }
}
