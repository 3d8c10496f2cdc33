#!/usr/bin/env bash
# Fails when the mallocs per APDU (per flow, per DESFire operation) of the driver, session,
# tracing, flow and DESFire paths go above Benchmarks/allocations/limits.txt. Counts are exact,
# so this is a CI gate that wall-clock benchmarks on shared machines cannot be.
#
#   Benchmarks/allocations/check.sh            build cardflow-bench (release), count, compare
#   Benchmarks/allocations/check.sh --static   the same with the flags of Scripts/package.sh
#                                              (Scripts/lib/release-build.sh), whose release modules
#                                              it reuses (Scripts/test.sh runs it after the package step)
#   Benchmarks/allocations/check.sh --no-build use the cardflow-bench already built (release)
#
# How: malloc-count.c (LD_PRELOAD) counts the process's allocations; each loop runs N and 2N
# times (`cardflow-bench --profile NAME N`) and the difference ÷ N is the count per repetition,
# free of start-up and setup. To see where allocations come from, run one loop with
# MALLOC_COUNT_TRACE_FROM=K (see malloc-count.c). A loop above its limit is measured up to three
# times and the least count taken (scheduling noise only adds). Needs gcc. cardflow-bench is a
# product of the main package (the repository root), so the build runs there.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
export PATH="/opt/swift/usr/bin:$PATH"
swift_build=(env SWIFT_DETERMINISTIC_HASHING=1 swift build -c release)
build=true
case "${1:-}" in
  "") ;;
  --static)
    # shellcheck source=../../Scripts/lib/release-build.sh
    source Scripts/lib/release-build.sh
    swift_build=("${release_build[@]}") ;;
  --no-build) build=false ;;
  *) echo "allocations/check.sh: unknown argument $1 (options: --static, --no-build)" >&2; exit 2 ;;
esac
if $build; then "${swift_build[@]}" --product cardflow-bench >&2; fi
bench="$("${swift_build[@]}" --show-bin-path)/cardflow-bench"
[[ -x "$bench" ]] || { echo "allocations/check.sh: no $bench (build it, or drop --no-build)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
counter="$work/malloc-count.so"
gcc -O2 -Wall -shared -fPIC -o "$counter" "$here/malloc-count.c" -ldl

# The count the counter prints at exit; a loop that fails or prints none stops the check (a
# missing count must not read as zero allocations).
mallocs() {
  local output count
  output=$(LD_PRELOAD="$counter" "$bench" --profile "$1" "$2" 2>&1 >/dev/null) \
    || { echo "allocations/check.sh: cardflow-bench --profile $1 $2 failed: $output" >&2; exit 2; }
  count=$(sed -n 's/^MALLOCS //p' <<<"$output")
  [[ "$count" =~ ^[0-9]+$ ]] || { echo "allocations/check.sh: no malloc count from --profile $1 $2: $output" >&2; exit 2; }
  echo "$count"
}

failed=0
printf '%-32s %10s %8s\n' "loop" "mallocs" "limit"
while read -r name limit; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  n=1000
  [[ "$name" == DESFire-* ]] && n=100
  # Scheduling can only add allocations (a task resumed on another thread, a runtime slab
  # refilled: a few per thousand repetitions on a loaded machine, e.g. 8.01 for 8 in one CI run),
  # never remove the ones the code makes, so the least of up to five measurements is the count.
  # A flow hops between threads, so its count wanders most: 270.97-271.05 per flow over 100
  # flows (a CI run found 271.05 three times in a row), 271.000-271.015 over 1,000.
  per=""
  for _attempt in 1 2 3 4 5; do
    one=$(mallocs "$name" "$n")
    two=$(mallocs "$name" $((2 * n)))
    this=$(awk -v a="$one" -v b="$two" -v n="$n" 'BEGIN { printf "%.2f", (b - a) / n }')
    if [[ -z "$per" ]] || awk -v t="$this" -v p="$per" 'BEGIN { exit !(t < p) }'; then per="$this"; fi
    awk -v c="$per" -v l="$limit" 'BEGIN { exit !(c <= l) }' && break
  done
  verdict=ok
  if awk -v c="$per" -v l="$limit" 'BEGIN { exit !(c > l) }'; then verdict="ABOVE LIMIT"; failed=1; fi
  printf '%-32s %10s %8s  %s\n' "$name" "$per" "$limit" "$verdict"
done < "$here/limits.txt"
exit "$failed"
