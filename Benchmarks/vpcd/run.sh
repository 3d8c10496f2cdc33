#!/usr/bin/env bash
# The vpcd network path's cost per APDU, and the machine's floor beside it, in one run:
#   floor     tcp-pingpong.c: the same exchange between two processes in C (kernel only)
#   raw       vpcdtool bench: VPCDListener → loopback TCP → VPCDCardExporter → simulated card
#   sessions  vpcdtool bench --sessions: CardFlow sessions over vpcd and over the in-process
#             simulator with the same card and APDU; the difference is the network path's overhead
# Each runs spread over all CPUs (as the scheduler likes) and pinned to one CPU (taskset -c 0),
# which separates our code's cost from the cost of waking a thread on another CPU: on a small VM
# that wake-up (an inter-processor interrupt through the hypervisor) dominates.
#
# Usage: Benchmarks/vpcd/run.sh [--count N] [--rounds R]   (defaults 5000 and 3)
# Needs: gcc, taskset (util-linux), swift. Builds vpcdtool with -c release.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
count=5000 rounds=3
while [[ $# -gt 0 ]]; do
    case "$1" in
        --count) count="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "vpcd bench: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
[[ -d /opt/swift/usr/bin ]] && export PATH="/opt/swift/usr/bin:$PATH"
cd "$root"
bench="$root/.build/vpcd-bench"
mkdir -p "$bench"
gcc -O2 -Wall -o "$bench/tcp-pingpong" Benchmarks/vpcd/tcp-pingpong.c
env SWIFT_DETERMINISTIC_HASHING=1 swift build -c release --product vpcdtool >/dev/null 2>&1 \
    || { echo "vpcd bench: swift build -c release --product vpcdtool failed" >&2; exit 2; }
vpcdtool="$(swift build -c release --show-bin-path)/vpcdtool"

port=$(( 40000 + RANDOM % 10000 ))
for placement in spread pinned; do
    pin=()
    [[ $placement == pinned ]] && pin=(taskset -c 0)
    for round in $(seq 1 "$rounds"); do
        port=$(( port + 1 ))
        floor=$("${pin[@]}" "$bench/tcp-pingpong" "$port" "$count" | awk '{print $4}')
        raw=$("${pin[@]}" "$vpcdtool" bench --count "$count" | awk '/^RATE/ {printf "%.1f", $3 / $2 * 1e6}')
        overhead=$("${pin[@]}" "$vpcdtool" bench --sessions --count "$count" | awk '/^OVERHEAD/ {print $2}')
        echo "$placement round $round: floor $floor µs, raw $raw µs, session overhead $overhead µs per APDU"
    done
done
