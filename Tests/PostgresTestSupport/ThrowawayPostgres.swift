import Foundation

/// A PostgreSQL server of the test's own (Scripts/postgres-throwaway.sh): a cluster in a
/// temporary folder, on a Unix socket there, trust authentication, deleted by ``stop()``.
///
/// Tests that need one are enabled when PostgreSQL is installed; under `CI=true` they always run,
/// so a CI machine without it fails them instead of passing silently.
public struct ThrowawayPostgres: Sendable {
    /// The socket folder (and the cluster's home).
    public let folder: String

    /// `postgresql:///cardflow?host=FOLDER&user=postgres`.
    public var url: String { "postgresql:///cardflow?host=\(folder)&user=postgres" }

    /// Whether these tests run here: PostgreSQL is installed, or this is CI (where they must).
    public static var enabled: Bool {
        installed || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    /// Why they are skipped elsewhere.
    public static let skipReason =
        "PostgreSQL is not installed (apt-get install postgresql, or Scripts/setup.sh); CI runs these tests"

    static var installed: Bool {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.contains {
            FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/initdb")
        }
    }

    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scripts/postgres-throwaway.sh").path

    /// Starts a server with an empty `cardflow` database.
    public static func start() async throws -> ThrowawayPostgres {
        let folder = "/tmp/cardflow-pg-\(UUID().uuidString.prefix(8))"
        try await run("bash", [script, "start", folder])
        return ThrowawayPostgres(folder: folder)
    }

    /// Stops the server and deletes its folder.
    public func stop() async {
        _ = try? await Self.run("bash", [Self.script, "stop", folder])
    }

    /// Stops the server, keeping its data ("the database went down").
    public func pause() async throws {
        try await Self.run("bash", [Self.script, "pause", folder])
    }

    /// Starts it again after ``pause()``.
    public func resume() async throws {
        try await Self.run("bash", [Self.script, "resume", folder])
    }

    /// Runs SQL with psql and returns its unaligned, tuples-only output.
    @discardableResult
    public func psql(_ sql: String) async throws -> String {
        try await Self.run("psql", ["-h", folder, "-U", "postgres", "-d", "cardflow", "-X", "-A", "-t", "-c", sql])
    }

    /// Runs a program to its end without blocking a concurrency thread; throws with its output
    /// when it fails.
    @discardableResult
    static func run(_ program: String, _ arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard status == 0 else {
            throw ThrowawayPostgresError(
                description: "\(program) \(arguments.joined(separator: " ")) → \(status): \(text)")
        }
        return text
    }
}

public struct ThrowawayPostgresError: Error, CustomStringConvertible {
    public let description: String
}
