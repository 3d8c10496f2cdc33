import CardFlowProcessTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

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

    /// Starts a server whose folder is a tmpfs of `megabytes` (root only), so that a test can fill
    /// its disk with ``fillDisk()``.
    public static func startSmall(megabytes: Int) async throws -> ThrowawayPostgres {
        let folder = "/tmp/cardflow-pg-\(UUID().uuidString.prefix(8))"
        try await run("bash", [script, "start-small", folder, String(megabytes)])
        return ThrowawayPostgres(folder: folder)
    }

    /// Fills the file system of a ``startSmall(megabytes:)`` server until no byte is left.
    public func fillDisk() async throws {
        try await Self.run("bash", [Self.script, "fill", folder])
    }

    /// Gives back the space ``fillDisk()`` took.
    public func freeDisk() async throws {
        try await Self.run("bash", [Self.script, "unfill", folder])
    }

    /// Starts a relay to this server that the test can cut (a network partition) and heal.
    public func startProxy() async throws -> PartitionProxy {
        let folder = "/tmp/cardflow-pg-proxy-\(UUID().uuidString.prefix(8))"
        try await Self.run("bash", [Self.script, "proxy", folder, self.folder])
        return PartitionProxy(folder: folder)
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

    /// Starts a streaming-replication standby of this server in a folder of its own; this
    /// server then waits for it on every commit (synchronous replication).
    public func startStandby() async throws -> ThrowawayPostgres {
        let folder = "/tmp/cardflow-pg-\(UUID().uuidString.prefix(8))"
        try await Self.run("bash", [Self.script, "standby", folder, self.folder])
        return ThrowawayPostgres(folder: folder)
    }

    /// Stops the server at once, as a crash would (`pg_ctl stop -m immediate`), keeping its data.
    public func crash() async throws {
        try await Self.run("bash", [Self.script, "crash", folder])
    }

    /// Makes a standby the primary and waits until it takes writes.
    public func promote() async throws {
        try await Self.run("bash", [Self.script, "promote", folder])
    }

    /// One address for several servers, as libpq writes it: `?host=A,B`.
    public static func url(of servers: [ThrowawayPostgres]) -> String {
        "postgresql:///cardflow?host=\(servers.map(\.folder).joined(separator: ","))&user=postgres"
    }

    /// Runs SQL with psql and returns its unaligned, tuples-only output.
    @discardableResult
    public func psql(_ sql: String) async throws -> String {
        try await Self.run("psql", ["-h", folder, "-U", "postgres", "-d", "cardflow", "-X", "-A", "-t", "-c", sql])
    }

    /// Runs a program to its end without blocking a concurrency thread; throws with its output
    /// when it fails or takes longer than 120 s.
    ///
    /// A ``ChildProcess`` (posix_spawn), not Foundation's `Process`, whose child-exit monitoring
    /// left the script a zombie here. The output goes to a file, not a pipe, since the server the
    /// script starts keeps the script's stdout and stderr.
    @discardableResult
    static func run(_ program: String, _ arguments: [String]) async throws -> String {
        let outputPath = NSTemporaryDirectory() + "cardflow-pg-output-\(UUID().uuidString)"
        defer { unlink(outputPath) }
        let child = try ChildProcess(program, arguments, output: .file(outputPath), errors: .file(outputPath))
        let result = try await child.waitForExit(timeout: .seconds(120))
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard result.termination == .exited(0) else {
            throw ThrowawayPostgresError(
                description: "\(program) \(arguments.joined(separator: " ")) → \(result.termination): \(text)")
        }
        return text
    }
}

public struct ThrowawayPostgresError: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}
