import CardFlowFleet
import CardFlowFleetPostgres
import CardFlowPostgresTestSupport
import Foundation
import Logging
import Testing

/// Claims and completions touch a bounded number of rows whatever the batch's size: every
/// statement they send is planned on an index, never as a scan of the records table.
@Suite(
    "PostgresFleet claim plans", .serialized,
    .enabled(if: FleetTestEnvironment.hasPostgres, FleetTestEnvironment.skipReason))
struct PostgresFleetClaimPlanTests {
    /// 20,000 records of a batch part-way through (15,000 done, 100 claimed of which two thirds
    /// have expired leases and a third are on their last attempt) beside another 20,000-record
    /// batch. The statistics are those of the freshly imported batch, as between two autovacuum
    /// runs of a busy fleet (autovacuum is off for the test, so it cannot refresh them midway):
    /// a planner that trusts them expects every record to be pending.
    static func fillRealisticBatch(_ server: ThrowawayPostgres) async throws {
        try await server.psql(
            """
            ALTER TABLE fleet_records SET (autovacuum_enabled = off);
            INSERT INTO fleet_batches (name) VALUES ('b'), ('other');
            INSERT INTO fleet_records (batch, ref, params)
                SELECT 'b', 'R' || g, '{"text": "card"}' FROM generate_series(1, 20000) g;
            INSERT INTO fleet_records (batch, ref, params)
                SELECT 'other', 'R' || g, '{"text": "card"}' FROM generate_series(1, 20000) g;
            """)
        try await server.psql("ANALYZE")
        try await server.psql(
            """
            UPDATE fleet_records SET state = 'done', uid = 'D' || id, attempts = 1, completed_at = now()
                WHERE batch = 'b' AND id <= 15000;
            UPDATE fleet_records SET state = 'claimed', uid = 'C' || id, claim_token = gen_random_uuid(),
                   claimed_by = 'h', attempts = 1 + id % 3,
                   lease_until = now() + make_interval(mins => (id % 3)::integer - 1)
                WHERE batch = 'b' AND id BETWEEN 15001 AND 15100;
            """)
    }

    /// Logs the plan of every statement the server runs from now on (new connections).
    static func explainEverything(_ server: ThrowawayPostgres) async throws {
        try await server.psql("ALTER SYSTEM SET session_preload_libraries = 'auto_explain'")
        try await server.psql("SELECT pg_reload_conf()")
        // A new session has the module loaded, so its settings are known.
        try await server.psql("ALTER SYSTEM SET auto_explain.log_min_duration = 0")
        // Claims and completions run inside the store's functions (schema 4).
        try await server.psql("ALTER SYSTEM SET auto_explain.log_nested_statements = on")
        // With the rows each plan node read and threw away: an index walk that filters out the
        // done records is as unbounded as a scan.
        try await server.psql("ALTER SYSTEM SET auto_explain.log_analyze = on")
        try await server.psql("SELECT pg_reload_conf()")
    }

    @Test func claimAndCompletionNeverScanTheRecordsTable() async throws {
        try await withFleetStore { _, server in
            try await Self.fillRealisticBatch(server)
            try await Self.explainEverything(server)
            let logPath = server.folder + "/server.log"
            let logStart = (try? FileManager.default.attributesOfItem(atPath: logPath)[.size] as? Int) ?? 0
            var logger = Logger(label: "fleet.plans")
            logger.logLevel = .warning
            let store = FleetStore(address: try FleetDatabaseAddress(server.url), logger: logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await store.run() }
                defer { group.cancelAll() }
                // 80 claims: the 67 expired claims with attempts left first, then pending records.
                var claims: [FleetClaim] = []
                for index in 0..<80 {
                    claims.append(
                        try claimed(
                            try await store.claim(
                                batch: "b", host: "h2", reader: "r", uid: uid(index), lease: .seconds(60))))
                }
                // A card already bound, and one on the spoilage list, are answered without a claim.
                _ = try await store.claim(batch: "b", host: "h2", reader: "r", uid: uid(0), lease: .seconds(60))
                #expect(try await store.beginWriting(claims[0], lease: .seconds(60)))
                #expect(try await store.extendLease(claims[0], by: .seconds(60)))
                #expect(
                    try await store.complete(
                        recordID: claims[0].recordID, token: claims[0].token, state: .done, result: nil, error: nil)
                        == .applied)
                #expect(
                    try await store.complete(
                        recordID: claims[1].recordID, token: UUID(), state: .done, result: nil, error: nil) == .fenced)
                #expect(try await store.release(claims[2]))
            }
            let log = try String(contentsOfFile: logPath, encoding: .utf8)
            let plans = String(decoding: Array(log.utf8.dropFirst(logStart)), as: UTF8.self)
            // The plans were logged (else the test proves nothing), and none scans fleet_records.
            #expect(plans.contains("SKIP LOCKED"), "no claim plan logged:\n\(plans.suffix(2000))")
            #expect(
                plans.contains("fleet_records_expiring"),
                "the expiry sweep does not use its index:\n\(plans.suffix(3000))")
            #expect(
                !plans.contains("Seq Scan on fleet_records"),
                "\(plans.components(separatedBy: "LOG:").filter { $0.contains("Seq Scan on fleet_records") })")
            #expect(
                plans.contains("fleet_records_queue"), "the claim does not take the queue index:\n\(plans.suffix(3000))"
            )
            // No statement reads past the 15,000 done records: at most the 100 claimed ones (and
            // the 80 this test claimed) are read and left.
            let removed = plans.components(separatedBy: "Rows Removed by Filter: ").dropFirst()
                .compactMap { Int($0.prefix { $0.isNumber }) }
            #expect(!removed.isEmpty, "no analysed plan logged")
            #expect(
                removed.allSatisfy { $0 <= 200 },
                "a claim or completion read and dropped \(removed.max() ?? 0) rows:\n\(plans.suffix(4000))")
        }
    }

    @Test func aVersionOneDatabaseIsUpgraded() async throws {
        try await withFleetStore { store, server in
            // Back to the first schema as it shipped, with a host that has counted already.
            try await server.psql("DROP TABLE fleet_spoiled, fleet_records, fleet_batches, fleet_hosts, fleet_schema")
            try await server.psql(Self.versionOneSchema)
            try await server.psql(
                """
                INSERT INTO fleet_hosts (name, version, claims, completions, fenced, lease_losses)
                VALUES ('bureau-1', '1.0', 10, 8, 1, 1)
                """)
            try await store.migrate()
            #expect(try await server.psql("SELECT max(version) FROM fleet_schema") == "6\n")
            #expect(
                try await server.psql("SELECT count(*) FROM pg_proc WHERE proname = 'fleet_complete_many'") == "1\n")
            let indexes = try await server.psql("SELECT indexname FROM pg_indexes WHERE tablename = 'fleet_records'")
            #expect(indexes.contains("fleet_records_expiring"))
            #expect(indexes.contains("fleet_records_queue"))
            #expect(!indexes.contains("fleet_records_claimable"))
            let host = try #require(try await store.hosts().first)
            #expect(host.claims == 10)
            #expect(host.completions == 8)
            // The first heartbeat of a run under the new schema adds to what the old one counted.
            var report = host
            (report.session, report.claims, report.completions, report.startedAt) = (UUID(), 1, 1, Date())
            try await store.report(report)
            #expect(try await store.hosts().first?.completions == 9)
            #expect(try await store.hosts().first?.claims == 11)
            // Twice is harmless (several hosts start at once).
            try await store.migrate()
            #expect(try await server.psql("SELECT count(*) FROM fleet_schema") == "1\n")
        }
    }

    /// FleetSchema's statements at version 1.
    static let versionOneSchema = """
        CREATE TABLE fleet_schema (version integer NOT NULL);
        CREATE TABLE fleet_batches (
            name text PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 128),
            max_attempts integer NOT NULL DEFAULT 3 CHECK (max_attempts >= 1),
            created_at timestamptz NOT NULL DEFAULT now());
        CREATE TABLE fleet_records (
            id bigserial PRIMARY KEY,
            batch text NOT NULL REFERENCES fleet_batches(name),
            ref text NOT NULL CHECK (length(ref) BETWEEN 1 AND 256),
            params jsonb NOT NULL CHECK (jsonb_typeof(params) = 'object'),
            state text NOT NULL DEFAULT 'pending'
                CHECK (state IN ('pending', 'claimed', 'done', 'failed', 'void')),
            attempts integer NOT NULL DEFAULT 0,
            claim_token uuid, claimed_by text, reader text, lease_until timestamptz, uid text, result jsonb,
            error text, created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now(),
            completed_at timestamptz,
            UNIQUE (batch, ref));
        CREATE INDEX fleet_records_claimable ON fleet_records (batch, id) WHERE state IN ('pending', 'claimed');
        CREATE UNIQUE INDEX fleet_records_one_record_per_card ON fleet_records (uid)
            WHERE uid IS NOT NULL AND state IN ('claimed', 'done');
        CREATE TABLE fleet_spoiled (
            id bigserial PRIMARY KEY, uid text NOT NULL, record_id bigint REFERENCES fleet_records(id),
            batch text NOT NULL, host text, reader text, claim_token uuid, reason text NOT NULL,
            spoiled_at timestamptz NOT NULL DEFAULT now());
        CREATE INDEX fleet_spoiled_uid ON fleet_spoiled (uid);
        CREATE TABLE fleet_hosts (
            name text PRIMARY KEY, version text NOT NULL, batch text, readers jsonb NOT NULL DEFAULT '[]',
            running_jobs integer NOT NULL DEFAULT 0, claims bigint NOT NULL DEFAULT 0,
            completions bigint NOT NULL DEFAULT 0, fenced bigint NOT NULL DEFAULT 0,
            lease_losses bigint NOT NULL DEFAULT 0, outbox_depth integer NOT NULL DEFAULT 0,
            started_at timestamptz NOT NULL DEFAULT now(), last_seen timestamptz NOT NULL DEFAULT now());
        INSERT INTO fleet_schema (version) VALUES (1);
        """
}
