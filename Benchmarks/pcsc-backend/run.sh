#!/usr/bin/env bash
# Per-APDU overhead of the PCSC backend: SCardTransmit loops of the same APDU on the same reader,
# in C (transmit-loop.c, gcc -O2 against libpcsclite) and through PCSCCardConnection.transmit
# (TransmitLoop/, swift build -c release), and through a CardFlow session on the PC/SC reader
# backend (TransmitLoop -s), in the same run against the same private pcscd +
# libccid + `cardctl simulate --card iso7816` emulated USB reader (Scripts/pcsc-backend-check.sh
# --serve starts that pcscd in a mount namespace of its own; pcscd logs errors only).
# Each round runs the loops back to back (rotating which goes first); the summary gives each
# side's median rate and the median of the rounds' Swift / C and session / C ratios (target: >= 0.95).
#
# Usage: Benchmarks/pcsc-backend/run.sh [--apdus N] [--rounds R] [--cardctl PATH]
#   --apdus    APDUs per measurement (default 2000, after 50 warm-up APDUs)
#   --rounds   rounds (default 7)
#   --cardctl  the simulator (default .build/debug/cardctl; it is the same for both sides)
# Needs: gcc, libpcsclite-dev, pcscd, libccid, umockdev, unshare; root for the mount namespace.
# Output: one "c ...", "swift ..." and "session ..." line per round, then
#   summary: C R1 APDU/s, Swift R2 APDU/s, session R3 APDU/s, Swift / C X, session / C Y (medians of R rounds)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"

if [[ "${1:-}" == "--inner" ]]; then
    n="$2" rounds="$3" bench="$4"
    # pcscd finds the reader and powers the card in its own time: wait for a working loop.
    for _ in $(seq 1 100); do
        "$bench/transmit-loop" -n 1 -w 0 CardFlow >/dev/null 2>&1 && break
        sleep 0.2
    done
    c_loop() { "$bench/transmit-loop" -n "$n" CardFlow; }
    swift_loop() { "$bench/pcsc-transmit-loop" -n "$n" CardFlow; }
    session_loop() { "$bench/pcsc-transmit-loop" -s -n "$n" CardFlow; }
    for round in $(seq 1 "$rounds"); do
        case $(( round % 3 )) in
            1) c_loop && swift_loop && session_loop ;;
            2) swift_loop && session_loop && c_loop ;;
            0) session_loop && c_loop && swift_loop ;;
        esac
    done
    exit 0
fi

apdus=2000 rounds=7 cardctl="$root/.build/debug/cardctl"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --apdus) apdus="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --cardctl) cardctl="$2"; shift 2 ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "pcsc-backend bench: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
[[ -d /opt/swift/usr/bin ]] && export PATH="/opt/swift/usr/bin:$PATH"
[[ -x "$cardctl" ]] || { echo "pcsc-backend bench: no cardctl at $cardctl (swift build --product cardctl)" >&2; exit 2; }
cd "$root"
bench="$root/.build/pcsc-backend-bench"
mkdir -p "$bench"
gcc -O2 -Wall -o "$bench/transmit-loop" Benchmarks/pcsc-backend/transmit-loop.c $(pkg-config --cflags --libs libpcsclite)
env SWIFT_DETERMINISTIC_HASHING=1 swift build -c release --product pcsc-transmit-loop >/dev/null 2>&1 \
    || { echo "pcsc-backend bench: swift build -c release --product pcsc-transmit-loop failed" >&2; exit 2; }
cp "$(swift build -c release --show-bin-path)/pcsc-transmit-loop" "$bench/"

work="$(mktemp -d "${TMPDIR:-/tmp}/pcsc-backend-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
echo "pcsc-backend bench: $(pcscd --version | head -1); libccid $(dpkg-query -W -f '${Version}' libccid); $rounds rounds of $apdus APDUs"
PCSCD_OPTIONS="" "$cardctl" simulate --card iso7816 -- "$root/Scripts/pcsc-backend-check.sh" --serve "$work/pcscd" -- \
    "$0" --inner "$apdus" "$rounds" "$bench" | tee "$work/lines"
[[ $(grep -c '^c ' "$work/lines") == "$rounds" && $(grep -c '^swift ' "$work/lines") == "$rounds" \
   && $(grep -c '^session ' "$work/lines") == "$rounds" ]] \
    || { echo "pcsc-backend bench: FAIL: a loop failed (see above)" >&2; exit 1; }
rate() { sed -n 's/.* \([0-9.]*\) APDU\/s.*/\1/p'; }
median() { sort -g | awk '{ v[NR] = $1 } END { printf "%.4f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
c=$(grep '^c ' "$work/lines" | rate | median)
s=$(grep '^swift ' "$work/lines" | rate | median)
session=$(grep '^session ' "$work/lines" | rate | median)
ratio=$(paste <(grep '^swift ' "$work/lines" | rate) <(grep '^c ' "$work/lines" | rate) | awk '{ print $1 / $2 }' | median)
session_ratio=$(paste <(grep '^session ' "$work/lines" | rate) <(grep '^c ' "$work/lines" | rate) | awk '{ print $1 / $2 }' | median)
printf 'summary: C %.1f APDU/s, Swift %.1f APDU/s, session %.1f APDU/s, Swift / C %.3f, session / C %.3f (medians of %d rounds, %d APDUs each)\n' \
    "$c" "$s" "$session" "$ratio" "$session_ratio" "$rounds" "$apdus"
