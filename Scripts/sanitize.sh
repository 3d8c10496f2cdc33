#!/usr/bin/env bash
# Builds and runs the whole test suite under AddressSanitizer and under ThreadSanitizer, each in
# its own build folder (.build-asan, .build-tsan), the libusb tests under umockdev as in
# Scripts/test.sh. Slow (a full instrumented build each): not part of the default CI run.
#
#   Scripts/sanitize.sh [address|thread]...     default: both
#
# Prints per sanitizer the test outcome and the number of sanitizer reports; the logs are
# .build-asan/sanitize-test.log and .build-tsan/sanitize-test.log. Exits non-zero when a test
# fails or a sanitizer reports anything. Environment: SANITIZE_FILTER, SANITIZE_SKIP (`swift test
# --filter`/`--skip` patterns), SANITIZE_TEST_SECONDS (limit of the test run, default 3600: a hang is a finding).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

# umockdev-wrapper preloads libumockdev-preload.so; the sanitizer runtimes are linked into the test
# binary, so ASan's check that its runtime comes first in the library list is turned off.
# Leak checking is off: the Swift runtime's metadata caches and the process-lifetime libusb and
# NIO singletons are reported as leaks, which would drown real findings.
export ASAN_OPTIONS="${ASAN_OPTIONS:-verify_asan_link_order=0:detect_leaks=0:halt_on_error=0:print_summary=1}"
# TSan cannot see GLib's futex-based locks in the C USB test bed: see Scripts/tsan-suppressions.txt.
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=0:second_deadlock_stack=1:report_signal_unsafe=0:suppressions=$PWD/Scripts/tsan-suppressions.txt}"
# A hang under a sanitizer is a finding too: the test run is stopped after this many seconds.
test_limit="${SANITIZE_TEST_SECONDS:-3600}"

# SANITIZE_FILTER / SANITIZE_SKIP (swift test --filter / --skip patterns) narrow the run, e.g. to
# re-check one suite, or to run the CPU-heavy campaigns apart as Scripts/test.sh does.
filter=()
[ -n "${SANITIZE_FILTER:-}" ] && filter=(--filter "$SANITIZE_FILTER")
[ -n "${SANITIZE_SKIP:-}" ] && filter+=(--skip "$SANITIZE_SKIP")
sanitizers=("$@")
[ ${#sanitizers[@]} -gt 0 ] || sanitizers=(address thread)

summary=()
failed=0
for sanitizer in "${sanitizers[@]}"; do
  case "$sanitizer" in
    address) scratch=.build-asan; pattern='ERROR: AddressSanitizer' ;;
    thread) scratch=.build-tsan; pattern='WARNING: ThreadSanitizer' ;;
    *) echo "unknown sanitizer $sanitizer (address or thread)" >&2; exit 2 ;;
  esac
  log="$scratch/sanitize-test.log"
  started=$(date +%s)
  swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch"
  built=$(date +%s)
  status=0
  timeout --signal=INT --kill-after=60 "$test_limit" \
    umockdev-wrapper swift test --skip-build --disable-xctest --sanitize="$sanitizer" --scratch-path "$scratch" "${filter[@]}" \
    >"$log" 2>&1 || status=$?
  [ "$status" -eq 124 ] && echo "$sanitizer: the test run did not finish in $test_limit s (a hang?); see $log" >&2
  finished=$(date +%s)
  reports=$(grep -c "$pattern" "$log" || true)
  outcome=$(grep -E '^(✔|✘|􁁛|􀢄).*Test run with' "$log" | tail -1 || true)
  [ -n "$outcome" ] || outcome=$(grep -E 'Test run with [0-9]+ tests' "$log" | tail -1 || true)
  summary+=("$sanitizer: build $((built - started)) s, tests $((finished - built)) s, exit $status, $reports report(s); ${outcome:-no test summary (see $log)}")
  if [ "$status" -ne 0 ] || [ "$reports" -ne 0 ]; then failed=1; fi
done
printf '%s\n' "${summary[@]}"
exit "$failed"
