#!/usr/bin/env bash
# Fails when the mallocs per APDU (per flow, per DESFire operation) of the driver, session,
# tracing, flow and DESFire paths go above Benchmarks/allocations/limits.txt. Counts are exact,
# so this is a CI gate that wall-clock benchmarks on shared machines cannot be.
#
#   Benchmarks/allocations/check.sh            build cardflow-bench (release), count, compare
#   Benchmarks/allocations/check.sh --no-build use the cardflow-bench already built
#
# How: malloc-count.c (LD_PRELOAD) counts the process's allocations; each loop runs N and 2N
# times (`cardflow-bench --profile NAME N`) and the difference ÷ N is the count per repetition,
# free of start-up and setup. To see where allocations come from, run one loop with
# MALLOC_COUNT_TRACE_FROM=K (see malloc-count.c). Needs gcc. Not part of Scripts/test.sh: the
# release build of the benchmark package takes minutes (see Benchmarks/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
if [[ "${1:-}" != "--no-build" ]]; then swift build -c release --product cardflow-bench >/dev/null; fi
bench="$(swift build -c release --show-bin-path)/cardflow-bench"
counter="$(mktemp -d)/malloc-count.so"
gcc -O2 -Wall -shared -fPIC -o "$counter" allocations/malloc-count.c -ldl

mallocs() { LD_PRELOAD="$counter" "$bench" --profile "$1" "$2" 2>&1 >/dev/null | sed -n 's/^MALLOCS //p'; }

failed=0
printf '%-32s %10s %8s\n' "loop" "mallocs" "limit"
while read -r name limit; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  n=1000
  [[ "$name" == Flow-* || "$name" == DESFire-* ]] && n=100
  one=$(mallocs "$name" "$n")
  two=$(mallocs "$name" $((2 * n)))
  per=$(awk -v a="$one" -v b="$two" -v n="$n" 'BEGIN { printf "%.2f", (b - a) / n }')
  verdict=ok
  if awk -v c="$per" -v l="$limit" 'BEGIN { exit !(c > l) }'; then verdict="ABOVE LIMIT"; failed=1; fi
  printf '%-32s %10s %8s  %s\n' "$name" "$per" "$limit" "$verdict"
done < allocations/limits.txt
exit "$failed"
