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
        (version: 4, statements: versionFour),
        (version: 5, statements: versionFive),
        (version: 6, statements: versionSix),
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

    /// One round trip per claim and per completion: what the claim and completion transactions
    /// did in seven and three statements runs in the server as `fleet_claim` and
    /// `fleet_complete` (one implicit transaction each), with the same guarantees and the same
    /// indexed, bounded statements. `CREATE OR REPLACE`: a later step may redefine them.
    static let versionFour: [String] = [
        // Answers one row: outcome 'claimed' (the record), 'bound' (the record the card has and
        // its state), 'spoiled', 'nothing-pending' or 'unknown-batch'. A card bound by another
        // host at the same moment makes the UPDATE fail with unique_violation (23505).
        """
        CREATE OR REPLACE FUNCTION fleet_claim(
            p_batch text, p_host text, p_reader text, p_uid text, p_lease_seconds double precision, p_sweep integer)
        RETURNS TABLE (outcome text, record_id bigint, record_ref text, record_params text, record_token uuid,
                       record_attempt integer, replaces boolean, record_state text)
        LANGUAGE plpgsql AS $fn$
        #variable_conflict use_column
        DECLARE
            v_max integer;
            v_id bigint;
            v_ref text;
            v_params text;
            v_token uuid;
            v_attempt integer;
            v_replaces boolean;
            v_state text;
        BEGIN
            SELECT b.max_attempts INTO v_max FROM fleet_batches b WHERE b.name = p_batch;
            IF NOT FOUND THEN
                RETURN QUERY SELECT 'unknown-batch'::text, NULL::bigint, NULL::text, NULL::text, NULL::uuid,
                                    NULL::integer, NULL::boolean, NULL::text;
                RETURN;
            END IF;
            -- Expired last attempts fail for good: bounded, on the fleet_records_expiring index.
            WITH exhausted AS (
                UPDATE fleet_records r
                SET state = 'failed', lease_until = NULL, updated_at = now(), completed_at = now(),
                    error = 'lease expired on attempt ' || r.attempts || ' of ' || v_max
                            || ' (host ' || coalesce(r.claimed_by, '?') || ')'
                WHERE r.id IN (
                    SELECT e.id FROM fleet_records e
                    WHERE e.batch = p_batch AND e.state = 'claimed' AND e.lease_until < now() AND e.attempts >= v_max
                    ORDER BY e.lease_until
                    LIMIT p_sweep
                    FOR UPDATE SKIP LOCKED
                )
                RETURNING r.id, r.uid, r.batch, r.claimed_by, r.reader, r.claim_token
            )
            INSERT INTO fleet_spoiled (uid, record_id, batch, host, reader, claim_token, reason)
            SELECT x.uid, x.id, x.batch, x.claimed_by, x.reader, x.claim_token, 'lease expired on the last attempt'
            FROM exhausted x WHERE x.uid IS NOT NULL;
            -- Only a blank card gets a record.
            SELECT f.id, f.ref, f.state INTO v_id, v_ref, v_state
            FROM fleet_records f WHERE f.uid = p_uid AND f.state IN ('claimed', 'done') LIMIT 1;
            IF FOUND THEN
                RETURN QUERY SELECT 'bound'::text, v_id, v_ref, NULL::text, NULL::uuid, NULL::integer, NULL::boolean, v_state;
                RETURN;
            END IF;
            SELECT s.record_id INTO v_id FROM fleet_spoiled s WHERE s.uid = p_uid LIMIT 1;
            IF FOUND THEN
                RETURN QUERY SELECT 'spoiled'::text, v_id, NULL::text, NULL::text, NULL::uuid, NULL::integer,
                                    NULL::boolean, NULL::text;
                RETURN;
            END IF;
            WITH candidate AS (
                SELECT c.id, c.uid AS previous_uid, c.claimed_by AS previous_host, c.reader AS previous_reader,
                       c.claim_token AS previous_token
                FROM fleet_records c
                WHERE c.batch = p_batch AND c.attempts < v_max
                  AND (c.state = 'pending' OR (c.state = 'claimed' AND c.lease_until < now()))
                ORDER BY c.id
                FOR UPDATE SKIP LOCKED
                LIMIT 1
            ), spoil AS (
                INSERT INTO fleet_spoiled (uid, record_id, batch, host, reader, claim_token, reason)
                SELECT k.previous_uid, k.id, p_batch, k.previous_host, k.previous_reader, k.previous_token,
                       'lease expired; record claimed again'
                FROM candidate k WHERE k.previous_uid IS NOT NULL
            )
            UPDATE fleet_records r
            SET state = 'claimed', attempts = r.attempts + 1, claim_token = gen_random_uuid(),
                claimed_by = p_host, reader = p_reader,
                lease_until = now() + make_interval(secs => p_lease_seconds),
                uid = p_uid, result = NULL, error = NULL, updated_at = now(), writing = false,
                previous_token = k.previous_token, previous_uid = k.previous_uid,
                previous_host = k.previous_host, previous_reader = k.previous_reader
            FROM candidate k
            WHERE r.id = k.id
            RETURNING r.id, r.ref, r.params::text, r.claim_token, r.attempts, r.previous_token IS NOT NULL
            INTO v_id, v_ref, v_params, v_token, v_attempt, v_replaces;
            IF FOUND THEN
                RETURN QUERY SELECT 'claimed'::text, v_id, v_ref, v_params, v_token, v_attempt, v_replaces, 'claimed'::text;
                RETURN;
            END IF;
            RETURN QUERY SELECT 'nothing-pending'::text, NULL::bigint, NULL::text, NULL::text, NULL::uuid, NULL::integer,
                                NULL::boolean, NULL::text;
        END
        $fn$
        """,
        // Answers 'applied', 'already-applied' or 'fenced'.
        """
        CREATE OR REPLACE FUNCTION fleet_complete(
            p_id bigint, p_token uuid, p_state text, p_result text, p_error text)
        RETURNS text
        LANGUAGE plpgsql AS $fn$
        #variable_conflict use_column
        DECLARE
            v_state text;
            v_token uuid;
        BEGIN
            UPDATE fleet_records r
            SET state = p_state, result = p_result::jsonb, error = p_error,
                lease_until = NULL, completed_at = now(), updated_at = now()
            WHERE r.id = p_id AND r.claim_token = p_token AND r.state = 'claimed';
            IF FOUND THEN RETURN 'applied'; END IF;
            IF p_state = 'done' THEN
                -- The claim a re-claim took the record from wrote its card: it wins while the new claim
                -- has not begun writing, and its card leaves the spoilage list.
                UPDATE fleet_records r
                SET state = 'done', claim_token = r.previous_token, uid = r.previous_uid,
                    claimed_by = r.previous_host, reader = r.previous_reader, writing = true,
                    result = p_result::jsonb, error = NULL, lease_until = NULL,
                    completed_at = now(), updated_at = now(), previous_token = NULL,
                    previous_uid = NULL, previous_host = NULL, previous_reader = NULL
                WHERE r.id = p_id AND r.previous_token = p_token AND r.state = 'claimed' AND NOT r.writing;
                IF FOUND THEN
                    DELETE FROM fleet_spoiled s WHERE s.record_id = p_id AND s.claim_token = p_token;
                    RETURN 'applied';
                END IF;
            END IF;
            SELECT r.state, r.claim_token INTO v_state, v_token FROM fleet_records r WHERE r.id = p_id;
            IF FOUND AND v_token = p_token AND v_state = p_state THEN RETURN 'already-applied'; END IF;
            RETURN 'fenced';
        END
        $fn$
        """,
    ]

    /// Claims stay O(1) however much of a batch is done. Version 4's single candidate query (a
    /// pending record, or a claimed one whose lease ran out, by id) was planned as a walk of the
    /// primary key that filtered out every done record before the first pending one: a claim at
    /// 8,000 done records read 4,500 pages. Now an expired claim is found on
    /// `fleet_records_expiring` and a pending record on `fleet_records_queue`, whose order (import
    /// time, then id) no other index has, so the plan cannot change with the statistics.
    /// Autovacuum visits the table after 2 % of its rows changed (not 20 %), which keeps the
    /// dead entries claimed records leave at the queue index's front short.
    static let versionFive: [String] = [
        """
        CREATE INDEX IF NOT EXISTS fleet_records_queue ON fleet_records (batch, created_at, id)
            WHERE state = 'pending'
        """,
        "DROP INDEX IF EXISTS fleet_records_claimable",
        """
        ALTER TABLE fleet_records SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02)
        """,
        """
        CREATE OR REPLACE FUNCTION fleet_claim(
            p_batch text, p_host text, p_reader text, p_uid text, p_lease_seconds double precision, p_sweep integer)
        RETURNS TABLE (outcome text, record_id bigint, record_ref text, record_params text, record_token uuid,
                       record_attempt integer, replaces boolean, record_state text)
        LANGUAGE plpgsql AS $fn$
        #variable_conflict use_column
        DECLARE
            v_max integer;
            v_id bigint;
            v_ref text;
            v_params text;
            v_token uuid;
            v_attempt integer;
            v_replaces boolean;
            v_state text;
            v_candidate bigint;
        BEGIN
            SELECT b.max_attempts INTO v_max FROM fleet_batches b WHERE b.name = p_batch;
            IF NOT FOUND THEN
                RETURN QUERY SELECT 'unknown-batch'::text, NULL::bigint, NULL::text, NULL::text, NULL::uuid,
                                    NULL::integer, NULL::boolean, NULL::text;
                RETURN;
            END IF;
            -- Expired last attempts fail for good: bounded, on the fleet_records_expiring index.
            WITH exhausted AS (
                UPDATE fleet_records r
                SET state = 'failed', lease_until = NULL, updated_at = now(), completed_at = now(),
                    error = 'lease expired on attempt ' || r.attempts || ' of ' || v_max
                            || ' (host ' || coalesce(r.claimed_by, '?') || ')'
                WHERE r.id IN (
                    SELECT e.id FROM fleet_records e
                    WHERE e.batch = p_batch AND e.state = 'claimed' AND e.lease_until < now() AND e.attempts >= v_max
                    ORDER BY e.lease_until
                    LIMIT p_sweep
                    FOR UPDATE SKIP LOCKED
                )
                RETURNING r.id, r.uid, r.batch, r.claimed_by, r.reader, r.claim_token
            )
            INSERT INTO fleet_spoiled (uid, record_id, batch, host, reader, claim_token, reason)
            SELECT x.uid, x.id, x.batch, x.claimed_by, x.reader, x.claim_token, 'lease expired on the last attempt'
            FROM exhausted x WHERE x.uid IS NOT NULL;
            -- Only a blank card gets a record.
            SELECT f.id, f.ref, f.state INTO v_id, v_ref, v_state
            FROM fleet_records f WHERE f.uid = p_uid AND f.state IN ('claimed', 'done') LIMIT 1;
            IF FOUND THEN
                RETURN QUERY SELECT 'bound'::text, v_id, v_ref, NULL::text, NULL::uuid, NULL::integer, NULL::boolean, v_state;
                RETURN;
            END IF;
            SELECT s.record_id INTO v_id FROM fleet_spoiled s WHERE s.uid = p_uid LIMIT 1;
            IF FOUND THEN
                RETURN QUERY SELECT 'spoiled'::text, v_id, NULL::text, NULL::text, NULL::uuid, NULL::integer,
                                    NULL::boolean, NULL::text;
                RETURN;
            END IF;
            -- The next record: an expired claim (oldest lease first), else the oldest pending one. Two
            -- queries, each on a partial index whose order is its ORDER BY, so neither can be planned
            -- as a walk of the primary key past every record already done.
            SELECT c.id INTO v_candidate FROM fleet_records c
            WHERE c.batch = p_batch AND c.state = 'claimed' AND c.lease_until < now() AND c.attempts < v_max
            ORDER BY c.lease_until
            FOR UPDATE SKIP LOCKED
            LIMIT 1;
            IF NOT FOUND THEN
                SELECT c.id INTO v_candidate FROM fleet_records c
                WHERE c.batch = p_batch AND c.state = 'pending' AND c.attempts < v_max
                ORDER BY c.created_at, c.id
                FOR UPDATE SKIP LOCKED
                LIMIT 1;
            END IF;
            WITH candidate AS (
                SELECT c.id, c.uid AS previous_uid, c.claimed_by AS previous_host, c.reader AS previous_reader,
                       c.claim_token AS previous_token
                FROM fleet_records c
                WHERE c.id = v_candidate
            ), spoil AS (
                INSERT INTO fleet_spoiled (uid, record_id, batch, host, reader, claim_token, reason)
                SELECT k.previous_uid, k.id, p_batch, k.previous_host, k.previous_reader, k.previous_token,
                       'lease expired; record claimed again'
                FROM candidate k WHERE k.previous_uid IS NOT NULL
            )
            UPDATE fleet_records r
            SET state = 'claimed', attempts = r.attempts + 1, claim_token = gen_random_uuid(),
                claimed_by = p_host, reader = p_reader,
                lease_until = now() + make_interval(secs => p_lease_seconds),
                uid = p_uid, result = NULL, error = NULL, updated_at = now(), writing = false,
                previous_token = k.previous_token, previous_uid = k.previous_uid,
                previous_host = k.previous_host, previous_reader = k.previous_reader
            FROM candidate k
            WHERE r.id = k.id
            RETURNING r.id, r.ref, r.params::text, r.claim_token, r.attempts, r.previous_token IS NOT NULL
            INTO v_id, v_ref, v_params, v_token, v_attempt, v_replaces;
            IF FOUND THEN
                RETURN QUERY SELECT 'claimed'::text, v_id, v_ref, v_params, v_token, v_attempt, v_replaces, 'claimed'::text;
                RETURN;
            END IF;
            RETURN QUERY SELECT 'nothing-pending'::text, NULL::bigint, NULL::text, NULL::text, NULL::uuid, NULL::integer,
                                NULL::boolean, NULL::text;
        END
        $fn$
        """,
    ]

    /// The LISTEN/NOTIFY channel; the payload is the batch name.
    static let channel = "cardflow_fleet"

    /// Several completions in one round trip: a host's delivery pass that finds more than one
    /// completion waiting sends them together, each applied by `fleet_complete` (its own fencing),
    /// in one transaction. Answers each one's outcome with its position in the array.
    static let versionSix: [String] = [
        """
        CREATE OR REPLACE FUNCTION fleet_complete_many(p_completions jsonb)
        RETURNS TABLE (item integer, outcome text)
        LANGUAGE plpgsql AS $fn$
        #variable_conflict use_column
        DECLARE
            v_entry jsonb;
            v_position bigint;
        BEGIN
            FOR v_entry, v_position IN
                SELECT e.value, e.ordinality FROM jsonb_array_elements(p_completions) WITH ORDINALITY AS e
                ORDER BY e.ordinality
            LOOP
                item := v_position - 1;
                outcome := fleet_complete((v_entry->>'id')::bigint, (v_entry->>'token')::uuid, v_entry->>'state',
                                          v_entry->>'result', v_entry->>'error');
                RETURN NEXT;
            END LOOP;
        END
        $fn$
        """
    ]
}
