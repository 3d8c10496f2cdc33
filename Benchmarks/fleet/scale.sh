#!/usr/bin/env bash
# The fleet at scale (issue 36): HOSTS cardd hosts with READERS simulated readers each, on one
# throwaway PostgreSQL whose batch holds RECORDS records, each host personalising CARDS cards
# (`--pace handled`: the next card comes as soon as the last was handled). The batch is loaded
# with one SQL statement (an import of a million lines through `cardctl fleet import` measures
# the import, not the fleet); everything after runs through cardd's real fleet path.
#
# Usage: Benchmarks/fleet/scale.sh [RECORDS] [HOSTS] [READERS] [CARDS]
#   defaults: 1000000 records, 8 hosts, 4 readers per host, 250 cards per host
# Environment: CARDD, CARDCTL (built binaries; default: swift build --product …, debug),
#   LATENCY (simulated ms per APDU, default 0), REQUIRE_ALL=1 (exit 1 unless the store has every
#   card done: HOSTS × CARDS records, each once — the short run in Scripts/test.sh).
# Prints a markdown table row: records done, records/s over the run, a reader's cycle (one card's
# whole cost) p50/p99, the server's own time for each claim and completion statement
# (log_min_duration_statement = 0), server CPU and WAL per record, the database's size.
set -euo pipefail
cd "$(dirname "$0")/../.."
records=${1:-1000000}
hosts=${2:-8}
readers=${3:-4}
cards=${4:-250}
latency=${LATENCY:-0}
if [[ -z "${CARDD:-}" || -z "${CARDCTL:-}" ]]; then
  env SWIFT_DETERMINISTIC_HASHING=1 swift build --product cardd >/dev/null
  env SWIFT_DETERMINISTIC_HASHING=1 swift build --product cardctl >/dev/null
  bin=$(swift build --show-bin-path)
  CARDD=${CARDD:-$bin/cardd}
  CARDCTL=${CARDCTL:-$bin/cardctl}
fi
command -v sqlite3 >/dev/null || { echo "fleet scale: needs the sqlite3 command" >&2; exit 2; }

work=$(mktemp -d)
chmod 755 "$work"
pg="$work/pg"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  bash Scripts/postgres-throwaway.sh stop "$pg" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
bash Scripts/postgres-throwaway.sh start "$pg" >/dev/null
url="postgresql:///cardflow?host=$pg&user=postgres"
sql() { psql -h "$pg" -U postgres -d cardflow -X -A -t -q "$@"; }
"$CARDCTL" fleet init --postgres "$url" >/dev/null
echo '{"ref": "R0", "flow": {"text": "Visitor 0"}}' >"$work/one.jsonl"
"$CARDCTL" fleet import scale "$work/one.jsonl" --postgres "$url" >/dev/null
sql -c "INSERT INTO fleet_records (batch, ref, params) SELECT 'scale', 'R' || g, jsonb_build_object('text', 'Visitor ' || g) FROM generate_series(1, $records - 1) g" \
  -c "VACUUM ANALYZE" -c "ALTER SYSTEM SET log_min_duration_statement = 0" -c "SELECT pg_reload_conf()" >/dev/null
: >"$pg/server.log"

source Benchmarks/fleet/server-cpu.sh
cpu_before=$(server_cpu "$pg")
wal_before=$(sql -c "SELECT pg_current_wal_lsn()")

for ((host = 1; host <= hosts; host++)); do
  cat >"$work/host-$host.json" <<JSON
{"fleet": {"postgres": "$url", "batch": "scale", "leaseSeconds": 30, "hostName": "host-$host", "pollSeconds": 1},
 "rules": [{"name": "badges", "flow": {"kind": "fleet", "flow": {"kind": "ndef-write"}}}]}
JSON
  "$CARDD" --config "$work/host-$host.json" --simulate --readers "$readers" --kinds ndef4,type2 --pace handled \
    --arrivals "$cards" --latency "$latency" --card-seed-base "$((host * 10000000))" --quiet --log-level error \
    --socket "$work/host-$host.sock" --job-log "$work/host-$host.sqlite" >"$work/host-$host.log" 2>&1 &
  pids+=($!)
done
for pid in "${pids[@]}"; do
  wait "$pid" || { echo "fleet scale: a cardd host failed:" >&2; tail -n 20 "$work"/host-*.log >&2; exit 1; }
done
pids=()
# The last completions may still be in an outbox when cardd exits; they are delivered at the next
# start. The table counts what the store has.
cpu_after=$(server_cpu "$pg")
wal_bytes=$(sql -c "SELECT pg_current_wal_lsn() - '$wal_before'::pg_lsn")
done_count=$(sql -c "SELECT count(*) FROM fleet_records WHERE batch = 'scale' AND state = 'done'")
db_bytes=$(sql -c "SELECT pg_database_size('cardflow')")
if [[ "${REQUIRE_ALL:-}" == 1 ]]; then
  # Every card a host handled has its record done, no UID on two records, no card spoiled.
  uids=$(sql -c "SELECT count(DISTINCT uid) FROM fleet_records WHERE batch = 'scale' AND state = 'done'")
  spoiled=$(sql -c "SELECT count(*) FROM fleet_spoiled")
  if [[ "$done_count" != $((hosts * cards)) || "$uids" != "$done_count" || "$spoiled" != 0 ]]; then
    echo "fleet scale: $done_count records done ($uids cards) of $((hosts * cards)), $spoiled spoiled" >&2
    exit 1
  fi
fi

for ((host = 1; host <= hosts; host++)); do
  sqlite3 -separator ' ' "$work/host-$host.sqlite" \
    "SELECT 'host-$host/' || reader, started_at FROM job WHERE state = 'succeeded' ORDER BY reader, started_at"
done >"$work/jobs.txt"
python3 - "$work/jobs.txt" "$pg/server.log" "$records" "$hosts" "$readers" "$done_count" "$cpu_before" "$cpu_after" "$wal_bytes" "$db_bytes" <<'PY'
import re, sys
jobs, server_log, records, hosts, readers, done, cpu0, cpu1, wal, db = sys.argv[1:]
by_reader = {}
for line in open(jobs):
    if line.strip():
        reader, started = line.split()
        by_reader.setdefault(reader, []).append(float(started))
cycles = sorted(b - a for times in by_reader.values() for a, b in zip(times, times[1:]))
starts = sorted(s for times in by_reader.values() for s in times)
durations = {"claim": [], "complete": []}
# One log entry per statement, continued on lines without a timestamp (the claim's SQL spans lines).
for entry in re.split(r"\n(?=\d{4}-\d\d-\d\d )", open(server_log, errors="replace").read()):
    m = re.search(r"duration: ([\d.]+) ms\s+(?:statement|execute [^:]*): SELECT .*?fleet_(claim|complete)\(", entry, re.S)
    if m:
        durations[m.group(2)].append(float(m.group(1)))
def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))] if values else float("nan")
def pair(values, scale=1):
    return f"{pct(values, .5) * scale:.2f} / {pct(values, .99) * scale:.2f}"
rate = (len(starts) - 1) / (starts[-1] - starts[0]) if len(starts) > 1 else float("nan")
done = int(done)
print("| records in the batch | hosts × readers | records done | records/s | cycle p50 / p99 ms "
      "| server: claim p50 / p99 ms | server: completion p50 / p99 ms | server CPU ms per record "
      "| WAL KB per record | database MB |")
print("|---|---|---|---|---|---|---|---|---|---|")
print(f"| {int(records):,} | {hosts} × {readers} | {done:,} | {rate:.1f} | {pair(cycles, 1000)} "
      f"| {pair(durations['claim'])} | {pair(durations['complete'])} "
      f"| {(float(cpu1) - float(cpu0)) * 1000 / max(done, 1):.2f} | {int(wal) / 1024 / max(done, 1):.1f} "
      f"| {int(db) / 1e6:.0f} |")
PY
