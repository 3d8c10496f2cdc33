/// A relay between clients and a ``ThrowawayPostgres`` (Scripts/partition-proxy.py) that a test
/// cuts and heals: a network partition as TCP has it. While cut, nothing passes either way and
/// nothing is closed; what was sent arrives after ``heal()``, so a statement a client gave up on
/// may still run on the server then.
public struct PartitionProxy: Sendable {
    /// The relay's socket folder.
    public let folder: String

    /// `postgresql:///cardflow?host=FOLDER&user=postgres`: the server, through the relay.
    public var url: String { "postgresql:///cardflow?host=\(folder)&user=postgres" }

    /// Cuts the link.
    public func cut() async throws {
        try await ThrowawayPostgres.run("bash", [ThrowawayPostgres.script, "cut", folder])
    }

    /// Heals the link.
    public func heal() async throws {
        try await ThrowawayPostgres.run("bash", [ThrowawayPostgres.script, "heal", folder])
    }

    /// Ends the relay and deletes its folder.
    public func stop() async {
        _ = try? await ThrowawayPostgres.run("bash", [ThrowawayPostgres.script, "stop", folder])
    }
}
