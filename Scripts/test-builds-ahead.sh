#!/usr/bin/env bash
# The builds only Scripts/test.sh's last steps need, one after another:
#   packages            Scripts/package-check.sh --prepare (clean Debian root, both .debs)
#   allocations-build   cardflow-bench for the allocation gate (release, the packages' flags)
#   dependent-build     Scripts/dependent-build.sh --check
# test.sh starts this script at idle priority right after the debug build begins, so these take
# only the CPU time the build and the tests leave unused, and waits for each job where its result
# is needed.
#
#   Scripts/test-builds-ahead.sh DIR SCRATCH
# Each job writes DIR/NAME.log and, when it ends, DIR/NAME.status ("EXIT SECONDS"). The release
# builds go to SCRATCH (not .build: SwiftPM locks its folder, and the tests use .build meanwhile).
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
dir="$1"
scratch="$2"
# With autogroup scheduling (kernel.sched_autogroup_enabled=1, Debian's default) every session is
# a scheduling group weighed equally against the others whatever its tasks' policy, so test.sh's
# SCHED_IDLE alone left these builds half the CPU (the debug build beside them took 1,971 s
# instead of 850). This session's group gets nice 19: a few percent of a CPU that others want.
if [ -w /proc/self/autogroup ]; then echo 19 >/proc/self/autogroup; fi

job() {
  local name="$1" started=$SECONDS status=0
  shift
  "$@" >"$dir/$name.log" 2>&1 || status=$?
  # Written whole and then renamed, so a reader never sees half a line.
  echo "$status $((SECONDS - started))" >"$dir/$name.status.tmp"
  mv "$dir/$name.status.tmp" "$dir/$name.status"
}

job packages bash Scripts/package-check.sh --prepare --scratch-path "$scratch"
job allocations-build swift build -c release --static-swift-stdlib --scratch-path "$scratch" --product cardflow-bench
job dependent-build bash Scripts/dependent-build.sh --check
