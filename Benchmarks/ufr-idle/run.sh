#!/usr/bin/env bash
# Idle CPU of a uFR reader with no card (issue 37: "idle CPU stays under 1 %"): `cardctl watch`
# on a simulated uFR Nano Online (`cardctl simulate-ufr --card none`) polls for a card for
# SECONDS; prints the CPU share of the watching cardctl (the backend's presence polling) and of
# the simulator, from /proc/PID/stat (user + system ticks), per transport: UDP, TCP, and USB
# (`ufr:usb` through libftdi1 to the simulated USB Nano behind the emulated FTDI chip, under
# umockdev: the simulator's share then includes the USB emulation).
#
#   Benchmarks/ufr-idle/run.sh [SECONDS]      default 30; CARDCTL=PATH picks the build
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-30}"
cardctl="${CARDCTL:-.build/debug/cardctl}"
[[ -x "$cardctl" ]] || { echo "ufr-idle: no $cardctl (swift build --product cardctl, or CARDCTL=PATH)" >&2; exit 2; }
for transport in udp tcp usb; do
  usb=(); [[ $transport == usb ]] && usb=(--usb)
  # Inside simulate-ufr: $0 cardctl, $1 seconds, $2 transport; $PPID is the simulator.
  "$cardctl" simulate-ufr "${usb[@]}" --card none -- /bin/bash -c '
    set -euo pipefail
    ticks() { awk "{ print \$14 + \$15 }" "/proc/$1/stat"; }
    case $2 in udp) selector=$CARDCTL_UFR_UDP ;; tcp) selector=$CARDCTL_UFR_TCP ;; usb) selector=$CARDCTL_UFR_USB ;; esac
    "$0" --reader "$selector" watch >/dev/null 2>&1 &
    watcher=$!
    sleep 3   # opening and identifying the reader are not idle time
    kill -0 "$watcher" || { echo "ufr-idle: cardctl watch ended early" >&2; exit 1; }
    w0=$(ticks "$watcher"); s0=$(ticks "$PPID")
    sleep "$1"
    w1=$(ticks "$watcher"); s1=$(ticks "$PPID")
    kill "$watcher"; wait "$watcher" || true
    hz=$(getconf CLK_TCK)
    awk -v w=$((w1 - w0)) -v s=$((s1 - s0)) -v hz="$hz" -v t="$1" -v tr="$2" \
      "BEGIN { printf \"%s: cardctl watch %.2f %% CPU, simulator %.2f %% CPU over %d s\\n\", tr, 100 * w / hz / t, 100 * s / hz / t, t }"
  ' "$cardctl" "$seconds" "$transport"
done
