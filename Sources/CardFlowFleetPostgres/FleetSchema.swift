import CardFlowFleet

/// The fleet's tables in PostgreSQL. Created and upgraded by ``FleetStore/migrate()`` (cardd
/// does it at start, `cardctl fleet init` on demand) under an advisory lock, so hosts starting
/// together do not race.
///
/// `fleet_schema` holds the version a database is at; `migrate()` runs the ``steps`` above it, in
/// order, in its transaction. A released step is never edited: a change is a new step.
enum FleetSchema {
    static var version: Int { steps.last?.version ?? 0 }

    /// Runs under `pg_advisory_xact_lock(lockKey)`.
    static let lockKey: Int64 = 0x4361_7264_466C_6F77 // "CardFlow"

    /// Created before the version is read.
    static let versionTable = "CREATE TABLE IF NOT EXISTS fleet_schema (version integer NOT NULL)"

    static let steps: [(version: Int, statements: [String])] = [
        (version: 1, statements: versionOne),
        (version: 2, statements: versionTwo),
        (version: 3, statements: versionThree),
    ]

    static let versionOne: [String] = [
        """
        CREATE TABLE IF NOT EXISTS fleet_batches (
            name text PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 128),
            max_attempts integer NOT NULL DEFAULT 3 CHECK (max_attempts >= 1),
            created_at timestamptz NOT NULL DEFAULT now()
        )
        """,
        // One row per card to personalise. `claim_token` is the fencing token: every write after
        // the claim carries it, so a host whose lease expired and was re-claimed writes nothing.
        """
        CREATE TABLE IF NOT EXISTS fleet_records (
            id bigserial PRIMARY KEY,
            batch text NOT NULL REFERENCES fleet_batches(name),
            ref text NOT NULL CHECK (length(ref) BETWEEN 1 AND 256),
            params jsonb NOT NULL CHECK (jsonb_typeof(params) = 'object'),
            state text NOT NULL DEFAULT 'pending'
                CHECK (state IN ('pending', 'claimed', 'done', 'failed', 'void')),
            attempts integer NOT NULL DEFAULT 0,
            claim_token uuid,
            claimed_by text,
            reader text,
            lease_until timestamptz,
            uid text,
            result jsonb,
            error text,
            created_at timestamptz NOT NULL DEFAULT now(),
            updated_at timestamptz NOT NULL DEFAULT now(),
            completed_at timestamptz,
            UNIQUE (batch, ref)
        )
        """,
        """
        CREATE INDEX IF NOT EXISTS fleet_records_claimable ON fleet_records (batch, id)
            WHERE state IN ('pending', 'claimed')
        """,
        // One card, one record: a card whose UID is bound to a live or finished record cannot
        // be bound to a second one, whichever host tries.
        """
        CREATE UNIQUE INDEX IF NOT EXISTS fleet_records_one_record_per_card ON fleet_records (uid)
            WHERE uid IS NOT NULL AND state IN ('claimed', 'done')
        """,
        // Cards a host bound and may have half-written before its lease expired.
        """
        CREATE TABLE IF NOT EXISTS fleet_spoiled (
            id bigserial PRIMARY KEY,
            uid text NOT NULL,
            record_id bigint REFERENCES fleet_records(id),
            batch text NOT NULL,
            host text,
            reader text,
            claim_token uuid,
            reason text NOT NULL,
            spoiled_at timestamptz NOT NULL DEFAULT now()
        )
        """,
        """
        CREATE INDEX IF NOT EXISTS fleet_spoiled_uid ON fleet_spoiled (uid)
        """,
        """
        CREATE TABLE IF NOT EXISTS fleet_hosts (
            name text PRIMARY KEY,
            version text NOT NULL,
            batch text,
            readers jsonb NOT NULL DEFAULT '[]',
            running_jobs integer NOT NULL DEFAULT 0,
            claims bigint NOT NULL DEFAULT 0,
            completions bigint NOT NULL DEFAULT 0,
            fenced bigint NOT NULL DEFAULT 0,
            lease_losses bigint NOT NULL DEFAULT 0,
            outbox_depth integer NOT NULL DEFAULT 0,
            started_at timestamptz NOT NULL DEFAULT now(),
            last_seen timestamptz NOT NULL DEFAULT now()
        )
        """,
    ]

    /// Claims and completions touch a bounded number of rows: expired claims are found through an
    /// index of the claimed rows by lease end, not by a scan of the batch. A host's counters add
    /// up across restarts: a heartbeat carries its run's (session's) counts, and a new session
    /// moves the previous one's into `earlier_*`.
    static let versionTwo: [String] = [
        """
        CREATE INDEX IF NOT EXISTS fleet_records_expiring ON fleet_records (batch, lease_until)
            WHERE state = 'claimed'
        """,
        """
        ALTER TABLE fleet_hosts
            ADD COLUMN IF NOT EXISTS session uuid,
            ADD COLUMN IF NOT EXISTS earlier_claims bigint NOT NULL DEFAULT 0,
            ADD COLUMN IF NOT EXISTS earlier_completions bigint NOT NULL DEFAULT 0,
            ADD COLUMN IF NOT EXISTS earlier_fenced bigint NOT NULL DEFAULT 0,
            ADD COLUMN IF NOT EXISTS earlier_lease_losses bigint NOT NULL DEFAULT 0
        """,
    ]

    /// A written card's completion wins over a re-claim that has not written its card yet.
    /// `previous_*`: the expired claim a re-claim took the record from, so that claim's late
    /// completion can still be applied; `writing`: the re-claim told the store that its first step
    /// begins, after which it keeps the record.
    static let versionThree: [String] = [
        """
        ALTER TABLE fleet_records
            ADD COLUMN IF NOT EXISTS writing boolean NOT NULL DEFAULT false,
            ADD COLUMN IF NOT EXISTS previous_token uuid,
            ADD COLUMN IF NOT EXISTS previous_uid text,
            ADD COLUMN IF NOT EXISTS previous_host text,
            ADD COLUMN IF NOT EXISTS previous_reader text
        """
    ]

    /// The LISTEN/NOTIFY channel; the payload is the batch name.
    static let channel = "cardflow_fleet"
}
