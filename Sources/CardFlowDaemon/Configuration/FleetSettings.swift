import Foundation

/// The configuration's `fleet` block: this host claims the records of one batch from a store
/// many cardd hosts share.
///
/// ```json
/// "fleet": {"postgres": "postgresql:///cardflow?host=/run/postgresql&user=cardd",
///           "batch": "badges-2026", "leaseSeconds": 60, "hostName": "bureau-3"}
/// ```
///
/// With a primary and a standby, name both; the host follows whichever is the primary:
/// `"postgres": "postgresql://cardd@db1:5432,db2:5432/cardflow"`.
///
/// The address is not read for a password: use `PGPASSWORD` in cardd's environment (a systemd
/// `EnvironmentFile=`) or a socket with peer authentication.
public struct FleetSettings: Sendable, Hashable, Codable {
    /// A `postgresql://` URL or an absolute socket path (`CardFlowFleet.FleetDatabaseAddress`).
    public var postgres: String
    /// The batch whose records this host claims.
    public var batch: String
    /// How long a claim lasts without a heartbeat; the host renews it every third of that. A
    /// host that could not renew in time stops its flow before the next step.
    public var leaseSeconds: Int
    /// The name the fleet knows this host by (default: the machine's host name).
    public var hostName: String
    /// How often a host with a blank card and nothing claimed asks again, besides the
    /// store's notifications.
    public var pollSeconds: Int
    /// How long one database operation may take (waiting for a connection included) before the
    /// host treats the server as unreachable: keeps its completions in the outbox and, with
    /// several servers in `postgres`, looks for the primary again.
    public var databaseTimeoutSeconds: Int

    public init(
        postgres: String, batch: String, leaseSeconds: Int = 60, hostName: String? = nil, pollSeconds: Int = 5,
        databaseTimeoutSeconds: Int = 10
    ) {
        self.postgres = postgres
        self.batch = batch
        self.leaseSeconds = leaseSeconds
        self.hostName = hostName ?? ProcessInfo.processInfo.hostName
        self.pollSeconds = pollSeconds
        self.databaseTimeoutSeconds = databaseTimeoutSeconds
    }

    enum CodingKeys: String, CodingKey {
        case postgres, batch, leaseSeconds, hostName, pollSeconds, databaseTimeoutSeconds
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        postgres = try container.decode(String.self, forKey: .postgres)
        batch = try container.decode(String.self, forKey: .batch)
        leaseSeconds = try container.decodeIfPresent(Int.self, forKey: .leaseSeconds) ?? 60
        hostName = try container.decodeIfPresent(String.self, forKey: .hostName) ?? ProcessInfo.processInfo.hostName
        pollSeconds = try container.decodeIfPresent(Int.self, forKey: .pollSeconds) ?? 5
        databaseTimeoutSeconds = try container.decodeIfPresent(Int.self, forKey: .databaseTimeoutSeconds) ?? 10
        guard (1...128).contains(batch.count) else {
            throw DecodingError.dataCorruptedError(
                forKey: .batch, in: container, debugDescription: "1 to 128 characters")
        }
        guard (3...86_400).contains(leaseSeconds) else {
            throw DecodingError.dataCorruptedError(
                forKey: .leaseSeconds, in: container, debugDescription: "3 to 86400 seconds")
        }
        guard (1...3_600).contains(pollSeconds) else {
            throw DecodingError.dataCorruptedError(
                forKey: .pollSeconds, in: container, debugDescription: "1 to 3600 seconds")
        }
        guard (1...300).contains(databaseTimeoutSeconds) else {
            throw DecodingError.dataCorruptedError(
                forKey: .databaseTimeoutSeconds, in: container, debugDescription: "1 to 300 seconds")
        }
        guard (1...128).contains(hostName.count) else {
            throw DecodingError.dataCorruptedError(
                forKey: .hostName, in: container, debugDescription: "1 to 128 characters")
        }
    }
}
