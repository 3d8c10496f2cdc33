import Foundation
import Testing

/// Locates the test fixtures.
///
/// Order: `$CARDFLOW_FIXTURES` (a folder containing `ccid-readers/`, or the `ccid-readers`
/// folder itself), then the copy vendored in the repository (`Tests/Fixtures`, found from
/// `#filePath`, so a fresh clone works), then `../shared/fixtures` next to the repository (the
/// shared folder of the development machine).
enum Fixtures {
    /// The repository root, from this file's path (`<root>/Tests/CardFlowSimulatorTests/Fixtures.swift`).
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The folder of reader descriptor dumps, or a message saying where it was looked for.
    static func ccidReadersDirectory() -> Result<URL, FixtureMissing> {
        let fileManager = FileManager.default
        func isDirectory(_ url: URL) -> Bool {
            var directory: ObjCBool = false
            return fileManager.fileExists(atPath: url.path, isDirectory: &directory) && directory.boolValue
        }
        if let variable = ProcessInfo.processInfo.environment["CARDFLOW_FIXTURES"], !variable.isEmpty {
            let root = URL(fileURLWithPath: variable)
            if isDirectory(root.appendingPathComponent("ccid-readers")) {
                return .success(root.appendingPathComponent("ccid-readers"))
            }
            if fileManager.fileExists(atPath: root.appendingPathComponent("ACR122U_PICC.txt").path) {
                return .success(root)
            }
            return .failure(FixtureMissing(message: "CARDFLOW_FIXTURES=\(variable) has no ccid-readers folder"))
        }
        let candidates = [
            repositoryRoot.appendingPathComponent("Tests/Fixtures/ccid-readers"),
            repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/ccid-readers"),
        ]
        if let found = candidates.first(where: isDirectory) { return .success(found) }
        return .failure(
            FixtureMissing(
                message: "ccid-readers fixtures not found (looked in \(candidates.map(\.path))); set CARDFLOW_FIXTURES")
        )
    }

    /// The fixtures folder, or: a recorded failure on CI (env `CI` set) / a skipped test otherwise.
    static func requireCCIDReaders(sourceLocation: SourceLocation = #_sourceLocation) throws -> URL {
        switch ccidReadersDirectory() {
        case .success(let url):
            return url
        case .failure(let missing):
            if ProcessInfo.processInfo.environment["CI"] != nil {
                Issue.record(Comment(rawValue: missing.message), sourceLocation: sourceLocation)
                throw missing
            }
            try Test.cancel(Comment(rawValue: missing.message), sourceLocation: sourceLocation)
        }
    }

    /// A fixture dump by file name.
    static func dump(_ name: String) throws -> URL {
        try requireCCIDReaders().appendingPathComponent(name)
    }
}

/// The fixtures folder could not be found.
struct FixtureMissing: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
