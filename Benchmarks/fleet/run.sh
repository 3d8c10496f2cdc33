#!/usr/bin/env bash
# Fleet coordination cost per card (issue 36, item 6): N simulated cards through one cardd host,
# with 1 and with 8 simulated readers, once plain (`cardd --simulate`, the same ndef-write flow
# from a rule) and once as a fleet host on a throwaway PostgreSQL (Scripts/postgres-throwaway.sh).
# Cards are paced by the daemon (`--pace handled`: the next card arrives as soon as the last was
# handled), so a reader's cycle (one job start to the next on that reader) is the whole cost of a
# card. The fleet's overhead per card is the fleet cycle minus the plain cycle, at p50 and p99.
# CPU time per card is measured too: cardd's (user + system) and the server's (its processes'
# times, Benchmarks/fleet/server-cpu.sh). Unlike cycle times it hardly
# depends on what else the machine runs, and where the host is CPU-bound (R readers on C cores) a
# card waits for about R / C cards' CPU: that is what the overhead is made of there.
#
# Usage: Benchmarks/fleet/run.sh [CARDS]   (default 400 per run)
# Environment: CARDD, CARDCTL (built binaries; default: swift build --product …, debug),
#              READER_COUNTS ("1 8"), LATENCY (simulated ms per APDU, 0).
# Prints one markdown table row per run. Numbers depend on the machine and its load: compare
# runs made one after the other on the same machine, never against a fixed bound.
set -euo pipefail
cd "$(dirname "$0")/../.."
cards=${1:-400}
reader_counts=${READER_COUNTS:-"1 8"}
latency=${LATENCY:-0}
if [[ -z "${CARDD:-}" || -z "${CARDCTL:-}" ]]; then
  env SWIFT_DETERMINISTIC_HASHING=1 swift build --product cardd >/dev/null
  env SWIFT_DETERMINISTIC_HASHING=1 swift build --product cardctl >/dev/null
  bin=$(swift build --show-bin-path)
  CARDD=${CARDD:-$bin/cardd}
  CARDCTL=${CARDCTL:-$bin/cardctl}
fi
command -v sqlite3 >/dev/null || { echo "fleet bench: needs the sqlite3 command" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "fleet bench: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
source Benchmarks/fleet/server-cpu.sh

work=$(mktemp -d)
pg=$(mktemp -d)
cleanup() {
  bash Scripts/postgres-throwaway.sh stop "$pg" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
# Statements are counted by pg_stat_statements (top-level calls), not by logging each one: a
# server writing every statement to its log spends CPU the fleet itself would not.
POSTGRES_THROWAWAY_OPTIONS="-c shared_preload_libraries=pg_stat_statements" \
  bash Scripts/postgres-throwaway.sh start "$pg" >/dev/null
export CARDFLOW_FLEET_POSTGRES="postgresql:///cardflow?host=$pg&user=postgres"
"$CARDCTL" fleet init >/dev/null
psql -h "$pg" -U postgres -d cardflow -X -q -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null
statements() {
  psql -h "$pg" -U postgres -d cardflow -X -q -t -A \
    -c "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'"
}

# A card that already has a record (from an earlier run: UIDs are unique across batches) gets no
# job, so every run's cards have seeds of their own (--card-seed-base).

# Cycle statistics of a job log: records/s over the run and per-reader cycle percentiles (ms).
cycles() {
  sqlite3 -separator ' ' "$1" "SELECT reader, started_at FROM job WHERE state = 'succeeded' ORDER BY reader, started_at" |
    python3 -c '
import sys
rows = [line.split() for line in sys.stdin if line.strip()]
by_reader = {}
for reader, started in rows:
    by_reader.setdefault(reader, []).append(float(started))
cycles = sorted(b - a for times in by_reader.values() for a, b in zip(times, times[1:]))
starts = sorted(float(s) for _, s in rows)
def pct(p):
    return 1000 * cycles[min(len(cycles) - 1, int(p * len(cycles)))] if cycles else float("nan")
rate = (len(starts) - 1) / (starts[-1] - starts[0]) if len(starts) > 1 else float("nan")
print(f"{len(rows)} {rate:.1f} {pct(0.5):.2f} {pct(0.99):.2f}")'
}

run() { # MODE READERS → "jobs records/s p50 p99 statements-per-card cardd-cpu-ms server-cpu-ms" (per card)
  local mode=$1 readers=$2 name="$1-$2" config
  config="$work/$name.json"
  if [[ $mode == fleet ]]; then
    local batch="bench-$readers"
    for ((i = 1; i <= cards; i++)); do printf '{"ref": "B%05d", "flow": {"text": "Visitor %d"}}\n' "$i" "$i"; done \
      >"$work/$name.jsonl"
    "$CARDCTL" fleet import "$batch" "$work/$name.jsonl" >/dev/null
    cat >"$config" <<JSON
{"fleet": {"postgres": "$CARDFLOW_FLEET_POSTGRES", "batch": "$batch", "leaseSeconds": 30,
           "hostName": "bench-$readers", "pollSeconds": 1},
 "rules": [{"name": "badges", "flow": {"kind": "fleet", "flow": {"kind": "ndef-write"}}}]}
JSON
  else
    cat >"$config" <<JSON
{"rules": [{"name": "badges", "flow": {"kind": "ndef-write", "text": "Visitor"}}]}
JSON
  fi
  local before server_before
  before=$(statements)
  server_before=$(server_cpu "$pg")
  /usr/bin/time -f "%U %S" -o "$work/$name.time" "$CARDD" --config "$config" --simulate --readers "$readers" --kinds ndef4,type2 --pace handled \
    --arrivals "$cards" --latency "$latency" --card-seed-base "$((readers * 10000000))" --quiet --log-level error \
    --socket "$work/$name.sock" --job-log "$work/$name.sqlite" >"$work/$name.log" 2>&1 ||
    { echo "fleet bench: cardd $name failed:" >&2; tail -n 20 "$work/$name.log" >&2; exit 1; }
  local stats
  stats=$(cycles "$work/$name.sqlite")
  echo "$stats $(python3 -c "
import sys
before, after, cards, jobs, server_before, server_after, times = sys.argv[1:]
user, system = map(float, open(times).read().split()[-2:])
jobs = max(int(jobs), 1)
print(f'{(int(after) - int(before)) / int(cards):.1f} {(user + system) / jobs * 1000:.2f}'
      f' {(float(server_after) - float(server_before)) / jobs * 1000:.2f}')" \
    "$before" "$(statements)" "$cards" "${stats%% *}" "$server_before" "$(server_cpu "$pg")" "$work/$name.time")"
}

echo "| readers | mode | jobs | records/s | cycle p50 ms | cycle p99 ms | fleet overhead p50 / p99 ms | SQL statements per card | cardd CPU ms per card | server CPU ms per card |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for readers in $reader_counts; do
  read -r pjobs prate pp50 pp99 _ pcpu _ <<<"$(run plain "$readers")"
  read -r fjobs frate fp50 fp99 fstatements fcpu fserver <<<"$(run fleet "$readers")"
  echo "| $readers | plain | $pjobs | $prate | $pp50 | $pp99 | | | $pcpu | |"
  overhead=$(python3 -c "import sys; print(f'{float(sys.argv[1]) - float(sys.argv[3]):.2f} / {float(sys.argv[2]) - float(sys.argv[4]):.2f}')" \
    "$fp50" "$fp99" "$pp50" "$pp99")
  echo "| $readers | fleet | $fjobs | $frate | $fp50 | $fp99 | $overhead | $fstatements | $fcpu | $fserver |"
done
