#!/usr/bin/env bash
# End-to-end check of the USB emulator with the real PC/SC stack: under `cardctl simulate`,
# pcscd (with libccid) runs in the foreground against the simulated USB reader, and a PC/SC
# client (scriptor, from pcsc-tools) powers the card, reads its ATR and sends
# SELECT A0000002471001 through SCardTransmit, expecting 90 00.
#
# Usage:
#   Scripts/pcscd-check.sh [--cardctl PATH] [--card KIND[,options]] [--log PATH]
#     --cardctl  the cardctl to use (default: .build/debug/cardctl, built when missing)
#     --card     the simulated card, as for `cardctl simulate --card` (default: iso7816)
#     --log      keep pcscd's debug log (with APDUs) at PATH
#
# Needs: umockdev, pcscd, libccid, pcsc-tools (pcsc_scan, scriptor), and write access to
# /run/pcscd. pcscd's socket is fixed at /run/pcscd/pcscd.comm, so no other pcscd may run
# (stop it first: systemctl stop pcscd.socket pcscd). The simulated reader is 1209:2702,
# which libccid lists as "F-Secure Foundry USB Armory Mk II".
#
# Exit status: 0 the check passed, 1 it failed, 2 setup problem.
set -euo pipefail

if [[ "${1:-}" == "--inner" ]]; then
    # Inside `cardctl simulate`: LD_PRELOAD and UMOCKDEV_DIR point at the emulated bus.
    log="$2"
    pcscd --foreground --debug --apdu >"$log" 2>&1 &
    pcscd_pid=$!
    trap 'kill "$pcscd_pid" 2>/dev/null || true; wait "$pcscd_pid" 2>/dev/null || true' EXIT

    reader=""
    for _ in $(seq 1 50); do
        reader=$(timeout 5 pcsc_scan -r 2>/dev/null | sed -n 's/^[0-9]*: //p' | grep -m1 'CardFlow' || true)
        [[ -n "$reader" ]] && break
        kill -0 "$pcscd_pid" 2>/dev/null || break
        sleep 0.2
    done
    if [[ -z "$reader" ]]; then
        echo "pcscd-check: FAIL: pcscd did not list the simulated reader; pcscd log:" >&2
        tail -n 40 "$log" >&2
        exit 1
    fi
    echo "reader: $reader"

    output=$(printf 'reset\n00 A4 04 00 07 A0 00 00 02 47 10 01 00\n' | timeout 20 scriptor -r "$reader" 2>&1) || {
        echo "pcscd-check: FAIL: scriptor failed:" >&2
        echo "$output" >&2
        tail -n 40 "$log" >&2
        exit 1
    }
    atr=$(echo "$output" | sed -n 's/^< OK: //p')
    # scriptor breaks long answers after 16 bytes: join the lines before looking for the SW.
    answer=$(echo "$output" | tr -s ' \n' ' ' | sed -n 's/.*> 00 A4 04 00 07 A0 00 00 02 47 10 01 00 *< \(.*\) : \(.*\)/\1 : \2/p')
    echo "ATR: ${atr:-none}"
    echo "SELECT A0000002471001: ${answer:-no answer}"
    if [[ "$atr" != 3B* ]] || ! echo "$answer" | grep -q '90 00 *: Normal processing'; then
        echo "pcscd-check: FAIL: expected an ATR and 90 00; scriptor said:" >&2
        echo "$output" >&2
        tail -n 40 "$log" >&2
        exit 1
    fi
    echo "pcscd-check: OK"
    exit 0
fi

root=$(cd "$(dirname "$0")/.." && pwd)
cardctl="$root/.build/debug/cardctl"
card="iso7816"
log=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --cardctl) cardctl="$2"; shift 2 ;;
        --card) card="$2"; shift 2 ;;
        --log) log="$2"; shift 2 ;;
        -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "pcscd-check: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done

for tool in pcscd pcsc_scan scriptor; do
    command -v "$tool" >/dev/null || { echo "pcscd-check: $tool not found (apt-get install pcscd libccid pcsc-tools)" >&2; exit 2; }
done
if [[ -S /run/pcscd/pcscd.comm ]] && [[ -f /run/pcscd/pcscd.pid ]] && kill -0 "$(cat /run/pcscd/pcscd.pid)" 2>/dev/null; then
    echo "pcscd-check: another pcscd is running (pid $(cat /run/pcscd/pcscd.pid)); it cannot see the emulated bus and holds /run/pcscd. Stop it first." >&2
    exit 2
fi
if [[ ! -x "$cardctl" ]]; then
    echo "pcscd-check: building cardctl" >&2
    (cd "$root" && swift build --product cardctl >&2) || exit 2
fi

keep_log=1
if [[ -z "$log" ]]; then
    log=$(mktemp "${TMPDIR:-/tmp}/pcscd-check.XXXXXX.log")
    keep_log=0
fi
status=0
"$cardctl" simulate --card "$card" -- "$0" --inner "$log" || status=$?
if [[ $keep_log == 0 ]]; then rm -f "$log"; else echo "pcscd log: $log"; fi
exit "$status"
