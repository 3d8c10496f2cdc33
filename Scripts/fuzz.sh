#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/, a separate package: the normal build is untouched) and
# runs each for a while; any crash, time-out or out-of-memory fails the script.
#
#   Scripts/fuzz.sh [seconds-per-target] [target...]    default: 60 seconds, every target
#   Scripts/fuzz.sh --list                              the targets
#   Scripts/fuzz.sh --write-seeds                       regenerate Fuzz/Corpus from encoders and fixtures
#
# Seeds come from Fuzz/Corpus/<target> (in the repository); what the fuzzer finds goes to
# Fuzz/Work/<target> and crash inputs to Fuzz/Artifacts/<target> (both ignored by git). Reproduce
# a crash with: CARDFLOW_FUZZ_TARGET=<target> Fuzz/.build-fuzz/release/CardFlowFuzz <input>
#
# Environment: FUZZ_TIMEOUT (seconds one input may take, default 10), FUZZ_RSS_LIMIT_MB (default
# 2048, also the largest single allocation), FUZZ_SCRATCH (build folder, default Fuzz/.build-fuzz),
# FUZZ_CONFIGURATION (release, the default, or debug: quicker to build, slower to run), FUZZ_RUNS
# (stop each target after this many inputs, e.g. 10000000 for the long run).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

scratch="${FUZZ_SCRATCH:-Fuzz/.build-fuzz}"
timeout_seconds="${FUZZ_TIMEOUT:-10}"
rss_limit="${FUZZ_RSS_LIMIT_MB:-2048}"
configuration="${FUZZ_CONFIGURATION:-release}"

build_started=$(date +%s)
# -enable-testing: a few decoders are internal and reached with @testable import.
# CardFlowFuzz holds every target; the CCID and tag targets also get light binaries of their own
# (libFuzzer scans all of a binary's coverage counters after each input), and run with those.
binaries=(CardFlowFuzzCCID CardFlowFuzzTags CardFlowFuzz)
for product in "${binaries[@]}"; do
  swift build --package-path Fuzz --scratch-path "$scratch" -c "$configuration" --sanitize=fuzzer \
    -Xswiftc -enable-testing --product "$product"
done
fuzzer="$scratch/$configuration/CardFlowFuzz"
echo "fuzz build: $(( $(date +%s) - build_started )) s"

# The lightest binary that holds a target.
binary_for() {
  local product
  for product in "${binaries[@]}"; do
    if CARDFLOW_FUZZ_TARGET=list "$scratch/$configuration/$product" 2>/dev/null | grep -qx "$1"; then
      echo "$scratch/$configuration/$product"
      return
    fi
  done
  echo "$fuzzer"
}

case "${1:-}" in
  --list) CARDFLOW_FUZZ_TARGET=list "$fuzzer"; exit 0 ;;
  --write-seeds)
    rm -rf Fuzz/Corpus
    CARDFLOW_FUZZ_TARGET=write-seeds CARDFLOW_FUZZ_CORPUS=Fuzz/Corpus CARDFLOW_FUZZ_REPOSITORY=. "$fuzzer"
    exit 0 ;;
esac

seconds="${1:-60}"
# FUZZ_RUNS stops each target after that many inputs (the seconds stay an upper bound).
runs_option=""
[ -n "${FUZZ_RUNS:-}" ] && runs_option="-runs=$FUZZ_RUNS"
shift || true
if [ $# -gt 0 ]; then targets=("$@"); else mapfile -t targets < <(CARDFLOW_FUZZ_TARGET=list "$fuzzer"); fi

# Swift's own backtracer would catch the trap first and exit, so libFuzzer could not save the input.
export SWIFT_BACKTRACE=enable=no
mkdir -p Fuzz/Work Fuzz/Artifacts
results=()
failed=0
for target in "${targets[@]}"; do
  seeds="Fuzz/Corpus/$target"
  work="Fuzz/Work/$target"
  artifacts="Fuzz/Artifacts/$target"
  log="Fuzz/Work/$target.log"
  [ -d "$seeds" ] || { echo "no seed corpus $seeds" >&2; exit 2; }
  mkdir -p "$work" "$artifacts"
  echo "== $target (${seconds} s${FUZZ_RUNS:+ or $FUZZ_RUNS inputs})"
  status=0
  # New inputs go to the first folder (the work corpus); the seeds are only read.
  CARDFLOW_FUZZ_TARGET="$target" "$(binary_for "$target")" "$work" "$seeds" $runs_option \
    -max_total_time="$seconds" -timeout="$timeout_seconds" -rss_limit_mb="$rss_limit" \
    -malloc_limit_mb="$rss_limit" -artifact_prefix="$artifacts/" -print_final_stats=1 \
    >"$log" 2>&1 || status=$?
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  crashes=$(grep -cE 'ERROR: libFuzzer: (deadly signal|fuzz target exited)|ERROR: AddressSanitizer|Fatal error' "$log" || true)
  timeouts=$(grep -c 'ERROR: libFuzzer: timeout' "$log" || true)
  ooms=$(grep -cE 'ERROR: libFuzzer: (out-of-memory|malloc)' "$log" || true)
  corpus=$(find "$work" -type f | wc -l)
  if [ "$status" -ne 0 ] || [ "$crashes$timeouts$ooms" != "000" ]; then
    failed=1
    [ "$crashes$timeouts$ooms" = "000" ] && crashes=1   # a failure the log did not name
    echo "FAILED (exit $status): see $log; inputs in $artifacts" >&2
    tail -40 "$log" >&2
  fi
  results+=("$(printf '%-22s %12s %9s %4s/%s/%s %8s' "$target" "${executions:-0}" "${rate:-0}" "$crashes" "$timeouts" "$ooms" "$corpus")")
done

printf '\n%-22s %12s %9s %10s %8s\n' target executions exec/s "crash/t/o" corpus
printf '%s\n' "${results[@]}"
exit "$failed"
