#!/usr/bin/env bash
# Soak (issue 16, item 7): cardd runs N card sessions on simulated readers whose cards and
# readers misbehave at random (garbage answers, lifted and swapped cards, stalls, mute cards,
# time-extension bursts, unplugged readers), paced by the daemon itself: a card leaves as soon
# as cardd reported it handled and the next one arrives at once, so nothing sleeps.
#
# Usage: Scripts/soak.sh [SESSIONS]   (default 100000)
# Environment: READERS (4), MISBEHAVE (share of faulty sessions, 0.3), SEED (1), SAMPLE_SECONDS (5),
#              FAULTS (comma-separated fault kinds, see `cardd --help`; default: all),
#              RSS_TOLERANCE_PCT (15), RSS_TOLERANCE_KB (16384), CARDD (path of a built cardd),
#              KEEP=1 keeps the work folder.
#
# Checks, each a failure when it does not hold:
#   - cardd exits with status 0 (no crash, no hang: the run ends by itself);
#   - every arrival was reported handled by cardd (none waited out the 20 s bound);
#   - every job in the SQLite job log ended in a terminal state (no 'running', no 'interrupted'),
#     and PRAGMA integrity_check says ok;
#   - RSS stays flat: the last sample is within max(RSS_TOLERANCE_PCT % , RSS_TOLERANCE_KB) of the
#     first sample taken after warm-up (20 % of the wall time).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
sessions=${1:-100000}
readers=${READERS:-4}
rate=${MISBEHAVE:-0.3}
seed=${SEED:-1}
# Every fault kind by default (as `cardd --faults` names them).
faults=${FAULTS:-garbledResponse,shortResponse,staleFrame,wrongSequence,iccMute,hardwareError,noResponse,stall,timeExtensions,lift,liftForever,swap,garbageCard,unplug}
interval=${SAMPLE_SECONDS:-5}
tolerance_pct=${RSS_TOLERANCE_PCT:-15}
tolerance_kb=${RSS_TOLERANCE_KB:-16384}

if [ -z "${CARDD:-}" ]; then
  env SWIFT_DETERMINISTIC_HASHING=1 swift build --product cardd >/dev/null
  CARDD="$(swift build --show-bin-path)/cardd"
fi
command -v sqlite3 >/dev/null || { echo "soak: needs the sqlite3 command (apt-get install sqlite3)" >&2; exit 2; }

work=$(mktemp -d)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
log="$work/jobs.sqlite"
start=$(date +%s)
"$CARDD" --simulate --pace handled --misbehave "$rate" --faults "$faults" --seed "$seed" --arrivals "$sessions" --readers "$readers" \
  --apdu-timeout 300 --step-timeout 5000 --card-return 200 --quiet --log-level error \
  --socket "$work/cardd.sock" --job-log "$log" >"$work/stdout" 2>"$work/stderr" &
pid=$!

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true; }
: >"$work/rss.tsv"
while kill -0 "$pid" 2>/dev/null; do
  value=$(rss)
  [ -n "$value" ] && printf '%s\t%s\n' "$(( $(date +%s) - start ))" "$value" >>"$work/rss.tsv"
  sleep "$interval"
done
set +e
wait "$pid"
status=$?
set -e
wall=$(( $(date +%s) - start ))

failed=0
fail() { echo "soak: FAIL: $*" >&2; failed=1; }

echo "soak: $sessions sessions, $readers readers, misbehave $rate ($faults), seed $seed, wall ${wall}s, exit status $status"
[ "$status" -eq 0 ] || fail "cardd exited with status $status; last stderr lines:"$'\n'"$(tail -20 "$work/stderr")"

report=$(grep '^simulation ' "$work/stdout" | sed 's/^simulation //' || true)
echo "soak: simulation $report"
[ -n "$report" ] || fail "cardd printed no simulation report"
arrivals=$(echo "$report" | sed -n 's/.*"arrivals":\([0-9]*\).*/\1/p')
unhandled=$(echo "$report" | sed -n 's/.*"unhandled":\([0-9]*\).*/\1/p')
[ "${arrivals:-0}" = "$sessions" ] || fail "arrivals ${arrivals:-?}, expected $sessions"
[ "${unhandled:-1}" = 0 ] || fail "$unhandled arrivals were never reported handled"

echo "soak: jobs by state:"
sqlite3 "$log" "SELECT '  ' || state || ' ' || count(*) FROM job GROUP BY state ORDER BY state"
total=$(sqlite3 "$log" "SELECT count(*) FROM job")
open_jobs=$(sqlite3 "$log" "SELECT count(*) FROM job WHERE state NOT IN ('succeeded', 'failed', 'cancelled')")
unfinished=$(sqlite3 "$log" "SELECT count(*) FROM job WHERE finished_at IS NULL")
integrity=$(sqlite3 "$log" "PRAGMA integrity_check")
events=$(sqlite3 "$log" "SELECT count(*) FROM job_event")
echo "soak: $total jobs, $events events, integrity_check: $integrity"
[ "$open_jobs" = 0 ] || fail "$open_jobs jobs not in a terminal state"
[ "$unfinished" = 0 ] || fail "$unfinished jobs without finished_at"
[ "$integrity" = ok ] || fail "integrity_check: $integrity"
errors=$(grep -c 'error' "$work/stderr" || true)
echo "soak: $errors error-level log lines (expected: faults make jobs fail; none may be a crash)"

samples=$(wc -l <"$work/rss.tsv")
if [ "$samples" -ge 3 ]; then
  first=$(head -1 "$work/rss.tsv" | cut -f2)
  warm_at=$(( wall / 5 ))
  warm=$(awk -v t="$warm_at" '$1 >= t { print $2; exit }' "$work/rss.tsv")
  last=$(tail -1 "$work/rss.tsv" | cut -f2)
  peak=$(cut -f2 "$work/rss.tsv" | sort -n | tail -1)
  allowed=$(( warm * tolerance_pct / 100 ))
  [ "$allowed" -ge "$tolerance_kb" ] || allowed=$tolerance_kb
  echo "soak: RSS kB: start $first, after warm-up (t=${warm_at}s) $warm, end $last, peak $peak, allowed growth $allowed ($samples samples every ${interval}s)"
  [ $(( last - warm )) -le "$allowed" ] || fail "RSS grew by $(( last - warm )) kB after warm-up (allowed $allowed kB)"
else
  echo "soak: too short for RSS samples ($samples); RSS not judged"
fi
[ "${KEEP:-0}" = 1 ] && echo "soak: work folder $work (rss.tsv, stdout, stderr, jobs.sqlite)"
[ "$failed" = 0 ] && echo "soak: PASS"
exit "$failed"
