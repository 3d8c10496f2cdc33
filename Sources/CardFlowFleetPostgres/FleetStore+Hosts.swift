import CardFlowFleet
import Foundation
import Logging
import PostgresNIO

extension FleetStore {
    /// Records a host's heartbeat in `fleet_hosts` (insert or update by name).
    ///
    /// The report's counters are those of its run (``/CardFlowFleet/FleetHostReport/session``)
    /// since it started; the store keeps the host's totals: when a new session of the same host
    /// name reports, the previous session's counters join the totals instead of being
    /// overwritten. Sending the same report twice, or an older one late, changes nothing.
    public func report(_ host: FleetHostReport) async throws(FleetStoreError) {
        let readers = String(decoding: (try? JSONEncoder().encode(host.readers)) ?? Data("[]".utf8), as: UTF8.self)
        try await perform("host heartbeat") { client, logger in
            try await client.query(
                """
                INSERT INTO fleet_hosts AS h (name, version, batch, readers, running_jobs, claims, completions, fenced,
                                              lease_losses, outbox_depth, started_at, last_seen, session)
                VALUES (\(host.name), \(host.version), \(host.batch), \(readers)::jsonb, \(host.runningJobs),
                        \(host.claims), \(host.completions), \(host.fencedWrites), \(host.leaseLosses),
                        \(host.outboxDepth), \(host.startedAt), now(), \(host.session))
                ON CONFLICT (name) DO UPDATE SET
                    version = EXCLUDED.version, batch = EXCLUDED.batch, readers = EXCLUDED.readers,
                    running_jobs = EXCLUDED.running_jobs, outbox_depth = EXCLUDED.outbox_depth,
                    started_at = EXCLUDED.started_at, last_seen = now(), session = EXCLUDED.session,
                    earlier_claims = h.earlier_claims
                        + CASE WHEN h.session IS DISTINCT FROM EXCLUDED.session THEN h.claims ELSE 0 END,
                    earlier_completions = h.earlier_completions
                        + CASE WHEN h.session IS DISTINCT FROM EXCLUDED.session THEN h.completions ELSE 0 END,
                    earlier_fenced = h.earlier_fenced
                        + CASE WHEN h.session IS DISTINCT FROM EXCLUDED.session THEN h.fenced ELSE 0 END,
                    earlier_lease_losses = h.earlier_lease_losses
                        + CASE WHEN h.session IS DISTINCT FROM EXCLUDED.session THEN h.lease_losses ELSE 0 END,
                    claims = CASE WHEN h.session IS DISTINCT FROM EXCLUDED.session THEN EXCLUDED.claims
                        ELSE greatest(h.claims, EXCLUDED.claims) END,
                    completions = CASE WHEN h.session IS DISTINCT FROM EXCLUDED.session THEN EXCLUDED.completions
                        ELSE greatest(h.completions, EXCLUDED.completions) END,
                    fenced = CASE WHEN h.session IS DISTINCT FROM EXCLUDED.session THEN EXCLUDED.fenced
                        ELSE greatest(h.fenced, EXCLUDED.fenced) END,
                    lease_losses = CASE WHEN h.session IS DISTINCT FROM EXCLUDED.session THEN EXCLUDED.lease_losses
                        ELSE greatest(h.lease_losses, EXCLUDED.lease_losses) END
                -- A late heartbeat of a run that has since been replaced is dropped.
                WHERE h.session IS NOT DISTINCT FROM EXCLUDED.session OR h.started_at <= EXCLUDED.started_at
                """, logger: logger)
        }
    }

    /// Every host that ever reported, most recently seen first, with its totals over all its runs.
    public func hosts() async throws(FleetStoreError) -> [FleetHostReport] {
        try await perform("hosts") { client, logger in
            let rows = try await client.query(
                """
                SELECT name, version, batch, readers::text, running_jobs, earlier_claims + claims,
                       earlier_completions + completions, earlier_fenced + fenced, earlier_lease_losses + lease_losses,
                       outbox_depth, started_at, last_seen, session
                FROM fleet_hosts ORDER BY last_seen DESC, name
                """, logger: logger)
            var hosts: [FleetHostReport] = []
            for try await (
                name, version, batch, readers, running, claims, completions, fenced, losses, outbox, started, seen,
                session
            )
                in rows.decode(
                    (String, String, String?, String, Int, Int, Int, Int, Int, Int, Date, Date, UUID?).self)
            {
                let readerList = (try? JSONDecoder().decode([String].self, from: Data(readers.utf8))) ?? []
                hosts.append(
                    FleetHostReport(
                        name: name, version: version, batch: batch, readers: readerList, runningJobs: running,
                        claims: claims, completions: completions, fencedWrites: fenced, leaseLosses: losses,
                        outboxDepth: outbox, startedAt: started, session: session, lastSeen: seen))
            }
            return hosts
        }
    }

    /// Tells listening hosts that `batch` has claimable records (LISTEN/NOTIFY).
    public func announce(batch: String) async throws(FleetStoreError) {
        try await perform("notify") { client, logger in
            try await client.query("SELECT pg_notify(\(FleetSchema.channel), \(batch))", logger: logger)
        }
    }

    /// Yields whenever a record of `batch` may have become claimable (an import, a retry),
    /// as PostgreSQL's NOTIFY says. While the server is unreachable the listener retries every
    /// `retryInterval`; callers keep polling as well, since a notification sent while nobody
    /// listened is lost. Ends when the consuming task stops iterating.
    public func wakeUps(batch: String, retryInterval: Duration = .seconds(2)) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let configurations = listenConfigurations
        let selector = self.selector
        let logger = self.logger
        let listener = Task {
            while !Task.isCancelled {
                do {
                    // The primary's notifications: after a failover the next connection follows it.
                    let server = try await selector.serverForOperation("listen")
                    guard let configuration = configurations[server] else {
                        throw FleetStoreError.unreachable(operation: "listen", reason: "no TLS context for LISTEN")
                    }
                    let connection = try await PostgresConnection.connect(
                        configuration: configuration, id: 0, logger: logger)
                    // However listening ends (a server that stops makes it throw), the connection
                    // is closed before it goes: postgres-nio asserts that none is dropped open.
                    let ended: Result<Void, any Error>
                    do {
                        try await withTaskCancellationHandler {
                            try await connection.listen(on: FleetSchema.channel) { notifications in
                                // Listening now: whatever arrived while it was not is picked up by one poll.
                                continuation.yield()
                                for try await notification in notifications where notification.payload == batch {
                                    continuation.yield()
                                }
                            }
                        } onCancel: {
                            connection.close().whenComplete { _ in }
                        }
                        ended = .success(())
                    } catch {
                        ended = .failure(error)
                    }
                    try? await connection.close()
                    try ended.get()
                } catch {
                    logger.debug("fleet listener lost its connection", metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: retryInterval)
            }
        }
        continuation.onTermination = { _ in listener.cancel() }
        return stream
    }
}
