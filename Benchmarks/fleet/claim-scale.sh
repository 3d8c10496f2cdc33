#!/usr/bin/env bash
# Claim and completion cost against the size of a batch (issue 36, "flat cost"): the fleet's own
# server functions (`fleet_claim`, `fleet_complete`, created by `cardctl fleet init`) driven by
# pgbench, PostgreSQL's load generator — a client nobody here wrote — on a throwaway server, once
# per batch size. Each transaction is what a cardd host does per card: one claim for a fresh UID,
# one completion with the claim's token.
#
# Usage: Benchmarks/fleet/claim-scale.sh [SIZES] [CLAIMS]
#   SIZES   pending records per run (default "10000 1000000"); CLAIMS per run (default 8000)
# Environment: CARDCTL (a built cardctl; default: swift build --product cardctl), CLIENTS (8
#   concurrent pgbench clients, as 8 readers), PGBENCH (default: the newest installed).
# Prints a markdown table: per card (claim + completion, two round trips) latency percentiles as
# pgbench saw them, over the first and the last quarter of the run (a cost that grows as records
# are done shows there); the server's own time for each claim and completion statement
# (log_min_duration_statement = 0); server CPU per card (all the server's processes, from /proc);
# and the database's size.
set -euo pipefail
cd "$(dirname "$0")/../.."
sizes=${1:-"10000 1000000"}
claims=${2:-8000}
clients=${CLIENTS:-8}
if [[ -z "${CARDCTL:-}" ]]; then
  env SWIFT_DETERMINISTIC_HASHING=1 swift build --product cardctl >/dev/null
  CARDCTL=$(swift build --show-bin-path)/cardctl
fi
pgbench=${PGBENCH:-$(ls -d /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | sort -V | tail -1)}
[[ -x "$pgbench" ]] || { echo "claim-scale: needs pgbench (Debian's postgresql package)" >&2; exit 2; }

work=$(mktemp -d)
pg=""
cleanup() {
  [[ -n "$pg" ]] && bash Scripts/postgres-throwaway.sh stop "$pg" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"

cat >"$work/card.sql" <<'SQL'
\set u random(1, 4000000000000)
SELECT record_id AS id, record_token AS tok FROM fleet_claim('big', 'host' || :client_id, 'r', 'U' || :u, 30, 16) \gset
SELECT fleet_complete(:id, ':tok'::uuid, 'done', NULL, NULL);
SQL

source Benchmarks/fleet/server-cpu.sh

echo "| pending records | cards | card p50 / p99 ms, first ¼ | card p50 / p99 ms, last ¼ | server: claim p50 / p99 ms | server: completion p50 / p99 ms | cards/s | server CPU ms per card | database MB |"
echo "|---|---|---|---|---|---|---|---|---|"
run=0
for size in $sizes; do
  run=$((run + 1))
  pg="$work/pg-$run"
  bash Scripts/postgres-throwaway.sh start "$pg" >/dev/null
  url="postgresql:///cardflow?host=$pg&user=postgres"
  "$CARDCTL" fleet init --postgres "$url" >/dev/null
  echo '{"ref": "R0", "flow": {"text": "card 0"}}' >"$work/one.jsonl"
  "$CARDCTL" fleet import big "$work/one.jsonl" --postgres "$url" >/dev/null
  psql -h "$pg" -U postgres -d cardflow -X -q -c \
    "INSERT INTO fleet_records (batch, ref, params) SELECT 'big', 'R' || g, jsonb_build_object('text', 'card ' || g) FROM generate_series(1, $size - 1) g" \
    -c "VACUUM ANALYZE" -c "ALTER SYSTEM SET log_min_duration_statement = 0" -c "SELECT pg_reload_conf()" >/dev/null
  : >"$pg/server.log"
  cpu_before=$(server_cpu "$pg")
  (cd "$work" && "$pgbench" -h "$pg" -U postgres -n -f card.sql -c "$clients" -j 2 -t $((claims / clients)) \
    --log --log-prefix="run-$run" -r cardflow >"$work/pgbench-$run.txt" 2>&1) ||
    { echo "claim-scale: pgbench failed:" >&2; cat "$work/pgbench-$run.txt" >&2; exit 1; }
  cpu_after=$(server_cpu "$pg")
  bytes=$(psql -h "$pg" -U postgres -d cardflow -X -A -t -c "SELECT pg_database_size('cardflow')")
  # pgbench's per-transaction log: client, transaction, latency (µs), script, epoch s, µs. The claim
  # and the completion are one pgbench transaction: their split comes from -r's averages.
  python3 - "$work" "$run" "$size" "$pg/server.log" "$cpu_before" "$cpu_after" "$bytes" <<'PY'
import glob, re, sys
work, run, size, server_log, cpu0, cpu1, size_bytes = sys.argv[1:]
rows = []
for path in glob.glob(f"{work}/run-{run}.*"):
    for line in open(path):
        f = line.split()
        rows.append((int(f[4]) + int(f[5]) / 1e6, int(f[2]) / 1000))
rows.sort()
durations = {"claim": [], "complete": []}
for line in open(server_log, errors="replace"):
    m = re.search(r"duration: ([\d.]+) ms\s+statement: SELECT (record_id|fleet_complete)", line)
    if m:
        durations["claim" if m.group(2) == "record_id" else "complete"].append(float(m.group(1)))
def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))] if values else float("nan")
quarter = max(1, len(rows) // 4)
first = [l for _, l in rows[:quarter]]
last = [l for _, l in rows[-quarter:]]
span = rows[-1][0] - rows[0][0]
tps = (len(rows) - 1) / span if span > 0 else float("nan")
cpu_ms = (float(cpu1) - float(cpu0)) * 1000 / len(rows)
def pair(values): return f"{pct(values, .5):.2f} / {pct(values, .99):.2f}"
print(f"| {int(size):,} | {len(rows):,} | {pair(first)} | {pair(last)} | {pair(durations['claim'])} "
      f"| {pair(durations['complete'])} | {tps:.0f} | {cpu_ms:.2f} | {int(size_bytes) / 1e6:.0f} |")
PY
  bash Scripts/postgres-throwaway.sh stop "$pg" >/dev/null
  pg=""
done
