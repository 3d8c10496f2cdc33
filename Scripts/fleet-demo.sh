#!/usr/bin/env bash
# A fleet of three cardd hosts sharing one batch in PostgreSQL, on one machine: sets up a fresh
# Debian machine (Scripts/setup.sh), builds cardd and cardctl, starts a throwaway PostgreSQL
# (Scripts/postgres-throwaway.sh), imports a batch of NDEF badges, and runs three cardd processes
# with two simulated readers each until every record is done. Then it checks that each record
# was written exactly once (one card per record, per-host counts that add up, one job per card)
# and stops everything. Works as root (the server then runs as the postgres user).
#
# Environment: FLEET_DEMO_RECORDS (default 30), FLEET_DEMO_TIMEOUT (seconds, default 120).
# Exit status: 0 when the batch was done and the checks held, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
bash Scripts/setup.sh
env SWIFT_DETERMINISTIC_HASHING=1 swift build --product cardctl
env SWIFT_DETERMINISTIC_HASHING=1 swift build --product cardd
cardctl=".build/debug/cardctl"
cardd=".build/debug/cardd"

records=${FLEET_DEMO_RECORDS:-30}
deadline_seconds=${FLEET_DEMO_TIMEOUT:-120}
hosts=(bureau-1 bureau-2 bureau-3)
batch=badges-demo

# The server gets a folder of its own: as root, postgres-throwaway.sh hands it to the postgres user.
work=$(mktemp -d)
pg=$(mktemp -d)
pids=()
failed() {
  echo "fleet-demo: FAILED: $*" >&2
  exit 1
}
# SIGTERM to every host still running: cardd cancels its jobs, releases its readers and exits 0.
# Under --pace handled the simulation notices the signal only once the card on each reader was
# handled or its 20 s bound ran out, so a host waiting for records takes up to 20 s; one that
# takes more than 40 s is killed. Returns how many hosts did not exit 0.
stop_hosts() {
  local pid unclean=0
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 400); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || unclean=$((unclean + 1))
  done
  pids=()
  return "$unclean"
}
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  stop_hosts || true
  if [[ $status -ne 0 ]]; then
    for host in "${hosts[@]}"; do
      [[ -f "$work/$host.log" ]] || continue
      echo "--- the last lines of $host's log" >&2
      tail -n 15 "$work/$host.log" >&2
    done
  fi
  bash Scripts/postgres-throwaway.sh stop "$pg" || true
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# PostgreSQL and its schema.
bash Scripts/postgres-throwaway.sh start "$pg" >/dev/null
export CARDFLOW_FLEET_POSTGRES="postgresql:///cardflow?host=$pg&user=postgres"
set -x
"$cardctl" fleet init
{ set +x; } 2>/dev/null

# The batch: one JSON object per line, each record's flow parameters (here a text or a URI
# record per badge) merged over the rule's template ({"kind": "ndef-write"}).
for ((i = 1; i <= records; i++)); do
  if ((i % 2)); then
    printf '{"ref": "BADGE-%04d", "flow": {"text": "Visitor %d"}}\n' "$i" "$i"
  else
    printf '{"ref": "BADGE-%04d", "flow": {"uri": "https://example.org/badge/%04d"}}\n' "$i" "$i"
  fi
done >"$work/badges.jsonl"
head -n 2 "$work/badges.jsonl"
set -x
"$cardctl" fleet import "$batch" "$work/badges.jsonl"
"$cardctl" fleet import "$batch" "$work/badges.jsonl" # a second import skips what is there
{ set +x; } 2>/dev/null

# Three hosts: each its own name, control socket, job log and simulated cards (card seeds a
# million apart, so no two hosts make the same UID). A short lease makes the heartbeat (every
# third of it) show each host's counters in `fleet hosts` within seconds.
for index in "${!hosts[@]}"; do
  host=${hosts[$index]}
  cat >"$work/$host.json" <<EOF
{
  "fleet": {"postgres": "$CARDFLOW_FLEET_POSTGRES", "batch": "$batch",
            "leaseSeconds": 9, "hostName": "$host", "pollSeconds": 1},
  "rules": [{"name": "badges", "flow": {"kind": "fleet", "flow": {"kind": "ndef-write"}}}]
}
EOF
done
echo "+ cardd --config $work/${hosts[0]}.json (one per host):"
cat "$work/${hosts[0]}.json"
started=$(date +%s.%N)
for index in "${!hosts[@]}"; do
  host=${hosts[$index]}
  "$cardd" --config "$work/$host.json" --simulate --readers 2 --kinds ndef4,type2 --pace handled \
    --card-seed-base $(((index + 1) * 1000000)) --latency 2 --quiet \
    --socket "$work/$host.sock" --job-log "$work/$host.sqlite" >"$work/$host.log" 2>&1 &
  pids+=($!)
done

seconds_since() { python3 -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):.1f}')" "$1"; }

# Wait until every record is done (or one failed, or a host died, or the deadline passed).
status_field() { # FIELD... of the batch in `fleet status --json` (total: every record)
  python3 -c '
import json, sys
status = json.load(sys.stdin)[0]
status["total"] = sum(status[state] for state in ("pending", "claimed", "expired", "done", "failed", "void"))
print(" ".join(str(status[name]) for name in sys.argv[1:]))' "$@"
}
limit=$(($(date +%s) + deadline_seconds))
while :; do
  counts=$("$cardctl" fleet status "$batch" --json | status_field done failed total) || failed "cardctl fleet status failed"
  read -r done_count failed_count total <<<"$counts"
  [[ "$done_count" -eq "$total" ]] && break
  if [[ "$failed_count" -gt 0 ]]; then
    "$cardctl" fleet records "$batch" --state failed >&2
    failed "$failed_count records failed"
  fi
  for index in "${!pids[@]}"; do
    kill -0 "${pids[$index]}" 2>/dev/null || failed "cardd ${hosts[$index]} exited"
  done
  if (($(date +%s) >= limit)); then
    "$cardctl" fleet status "$batch" >&2
    failed "the batch was not done within $deadline_seconds s ($done_count of $total records done)"
  fi
  sleep 0.5
done
echo "fleet-demo: $total records done by ${#hosts[@]} hosts in $(seconds_since "$started") s"

# The checks: every record done on a card of its own, the hosts' shares adding up, each host's
# heartbeat counting what the store has for it, and one succeeded job per record.
"$cardctl" fleet records "$batch" --json >"$work/records.json"
"$cardctl" fleet status "$batch" --json >"$work/status.json"
python3 - "$work/records.json" "$work/status.json" "$records" <<'EOF' || failed "the records do not add up"
import json, sys
records = json.load(open(sys.argv[1]))
status = json.load(open(sys.argv[2]))[0]
expected = int(sys.argv[3])
problems = []
if len(records) != expected:
    problems.append(f"{len(records)} records, expected {expected}")
not_done = [r["reference"] for r in records if r["state"] != "done"]
if not_done:
    problems.append(f"not done: {not_done}")
uids = [r.get("uid") for r in records]
if None in uids or len(set(uids)) != len(uids):
    problems.append(f"{len(set(u for u in uids if u))} distinct card UIDs for {len(uids)} records")
if any(r["attempts"] != 1 for r in records):
    problems.append("a record needed more than one claim")
shares = sum(host["done"] for host in status["hosts"])
if shares != expected or status["done"] != expected:
    problems.append(f"hosts' shares add up to {shares}, the batch has {status['done']} done")
if status["spoiled"]:
    problems.append(f"{status['spoiled']} spoiled cards")
for problem in problems:
    print("fleet-demo:", problem, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
# Heartbeats come every third of the lease: wait (bounded) until each host reported its share.
for _ in $(seq 40); do
  "$cardctl" fleet hosts --json >"$work/hosts.json"
  python3 - "$work/hosts.json" "$work/status.json" <<'EOF' && break
import json, sys
hosts = {h["name"]: h for h in json.load(open(sys.argv[1]))}
shares = {h["host"]: h["done"] for h in json.load(open(sys.argv[2]))[0]["hosts"]}
sys.exit(0 if all(hosts.get(name, {}).get("completions") == done for name, done in shares.items()) else 1)
EOF
  sleep 0.5
done
python3 - "$work/hosts.json" "$work/status.json" <<'EOF' || failed "the hosts' own counters do not match the store"
import json, sys
hosts = {h["name"]: h for h in json.load(open(sys.argv[1]))}
shares = {h["host"]: h["done"] for h in json.load(open(sys.argv[2]))[0]["hosts"]}
bad = False
for name, done in shares.items():
    host = hosts.get(name, {})
    if host.get("completions") != done or host.get("claims") != done or host.get("fencedWrites") or host.get("leaseLosses"):
        print(f"fleet-demo: {name}: {done} done in the store, host reports {host}", file=sys.stderr)
        bad = True
sys.exit(1 if bad else 0)
EOF
jobs_total=0
for host in "${hosts[@]}"; do
  succeeded=$("$cardctl" --socket "$work/$host.sock" jobs --limit 1000 --json | python3 -c '
import json, sys
print(sum(1 for job in json.load(sys.stdin) if job["state"] == "succeeded" and job["rule"] == "badges"))')
  jobs_total=$((jobs_total + succeeded))
done
[[ "$jobs_total" -eq "$records" ]] || failed "$jobs_total succeeded jobs in the hosts' job logs for $records records"
echo "fleet-demo: checked: $records records, $records distinct cards, $jobs_total jobs, shares add up"

set -x
"$cardctl" fleet status "$batch"
"$cardctl" fleet hosts
"$cardctl" fleet records "$batch" --limit 3
{ set +x; } 2>/dev/null
echo "fleet-demo: stopping the hosts (SIGTERM) and the server"
stopping=$(date +%s.%N)
stop_hosts || failed "$? of the hosts did not exit 0 within 40 s of SIGTERM"
bash Scripts/postgres-throwaway.sh stop "$pg"
echo "fleet-demo: done (the hosts took $(seconds_since "$stopping") s to stop)"
