#!/usr/bin/env bash
# Compares two builds of cardflow-bench on one profile loop (ProfileLoops.swift), on a machine
# whose speed drifts by tens of percent from one run to the next: the two binaries run
# alternately (which goes first alternates too), ROUNDS times, and each round's ratio compares two
# runs seconds apart. Prints every round's times, the ratios sorted (the spread) and their median.
#
# Usage: Benchmarks/compare-builds.sh OLD NEW [PROFILE] [APDUS] [ROUNDS]
#   OLD, NEW  two cardflow-bench binaries (copy .build/release/cardflow-bench aside between builds)
#   PROFILE   a ProfileLoops name (default Driver-Short-5-2); APDUS per run (default 200000);
#   ROUNDS    (default 10)
# --pinned (first argument) runs the two binaries at the same time, each on one core of its own
# (taskset), swapping cores every round: both see the same moment of the machine, but on one core
# the concurrency runtime behaves differently from the usual two.
set -euo pipefail
pinned=0
if [[ "${1:-}" == "--pinned" ]]; then pinned=1; shift; fi
if [[ $# -lt 2 ]]; then
  sed -n '2,13p' "$0" >&2
  exit 2
fi
old="$1" new="$2" profile="${3:-Driver-Short-5-2}" apdus="${4:-200000}" rounds="${5:-10}"
for binary in "$old" "$new"; do
  [[ -x "$binary" ]] || { echo "compare-builds: $binary is not an executable" >&2; exit 2; }
done

# Milliseconds of APDUS repetitions of the loop in BINARY (pinned to CORE when given): a run of
# APDUS + 1 less a run of 1, so process start and reader set-up (~25-30 ms here, a few percent of
# a run) drop out, as in Benchmarks/pcsc/run.sh.
run_ms() {  # BINARY [CORE]
  local pin=() t0 t1 t2
  if [[ -n "${2:-}" ]]; then pin=(taskset -c "$2"); fi
  t0=$(date +%s%N)
  "${pin[@]}" "$1" --profile "$profile" 1 >/dev/null
  t1=$(date +%s%N)
  "${pin[@]}" "$1" --profile "$profile" "$((apdus + 1))" >/dev/null
  t2=$(date +%s%N)
  echo $((((t2 - t1) - (t1 - t0)) / 1000000))
}

results=$(mktemp)
trap 'rm -f "$results"' EXIT
for round in $(seq 1 "$rounds"); do
  if [[ $pinned == 1 ]]; then
    first=$((round % 2)) second=$(((round + 1) % 2))
    old_ms_file=$(mktemp) new_ms_file=$(mktemp)
    run_ms "$old" "$first" >"$old_ms_file" &
    run_ms "$new" "$second" >"$new_ms_file" &
    wait
    old_ms=$(cat "$old_ms_file") new_ms=$(cat "$new_ms_file")
    rm -f "$old_ms_file" "$new_ms_file"
  elif ((round % 2)); then
    old_ms=$(run_ms "$old") new_ms=$(run_ms "$new")
  else
    new_ms=$(run_ms "$new") old_ms=$(run_ms "$old")
  fi
  echo "round $round: old $old_ms ms, new $new_ms ms"
  echo "$old_ms $new_ms" >>"$results"
done
python3 - "$results" "$profile" "$apdus" <<'EOF'
import statistics, sys
pairs = [tuple(map(int, line.split())) for line in open(sys.argv[1])]
ratios = sorted(new / old for old, new in pairs)
print(f"{sys.argv[2]}, {sys.argv[3]} APDUs a run: new / old time per round, sorted:",
      " ".join(f"{r:.3f}" for r in ratios))
print(f"median new / old {statistics.median(ratios):.3f} over {len(ratios)} rounds"
      f" (old median {statistics.median(o for o, _ in pairs)} ms, new {statistics.median(n for _, n in pairs)} ms)")
EOF
