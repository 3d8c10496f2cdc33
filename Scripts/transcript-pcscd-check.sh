#!/usr/bin/env bash
# pcscd + libccid against recorded readers: each LOG's reader (a pcscd + libccid debug log from a
# public bug report) is plugged into the emulated USB bus with `cardctl simulate --replay`, a
# pcscd of this machine with Debian's libccid drives it, and Scripts/pcsc-apdu.pl (SCardTransmit)
# sends the command APDUs the log's application sent. Every response must be the one recorded.
# A partner nobody here wrote (pcscd, libccid) on one side, the real reader's bytes on the other:
# it checks the replay device (CardFlowSimulatorUSB's ReplayedCCIDDevice) the way the corpus
# checks CardFlow's driver.
#
# Usage:
#   Scripts/transcript-pcscd-check.sh [--keep DIR] [LOG...]   (default: Tests/Fixtures/transcripts/*.log)
#   Scripts/transcript-pcscd-check.sh --subset                  CI's set, below
#
# Not every recording can agree: a log whose application was not pcscd (libnfc's own driver,
# whose power-up answer 3B 00 pcscd takes for an unresponsive card), a copy without the card's
# ATR or starting inside a T=1 session, a reader whose start-up pcscd does not finish against the
# recording within the wait. The README's "Real readers, replayed" has the whole table with the
# reasons; CI runs the logs that must agree (--subset): every recorded response identical, or,
# for a log without APDUs, pcscd lists the reader.
#
# Prints one line per LOG: "same N/N", "differs …" (with the APDU, the recorded and pcscd's
# response), or "no APDU" (the log has none with a recorded response; pcscd must still list the
# reader). Exit status 0 when no LOG differs, 1 otherwise, 2 on a setup problem. Needs umockdev,
# pcscd, libccid, pcsc-tools and libpcsc-perl; no other pcscd may run (its socket is global).
set -euo pipefail

# Inner part, run under `cardctl simulate --replay` (LD_PRELOAD and UMOCKDEV_DIR set).
if [[ "${1:-}" == "--inner" ]]; then
    dir="$2" root="$3"
    LIBCCID_ifdLogLevel=0x000F pcscd --foreground --debug --apdu >"$dir/pcscd.log" 2>&1 &
    pcscd_pid=$!
    trap 'kill "$pcscd_pid" 2>/dev/null || true; wait "$pcscd_pid" 2>/dev/null || true' EXIT
    reader=""
    # At most 20 s: libccid's start-up against a recording that does not answer it takes a while.
    deadline=$((SECONDS + 20))
    while ((SECONDS < deadline)); do
        # vpcd (vsmartcard), when installed, adds "Virtual PCD" readers: not ours.
        reader=$(timeout 3 pcsc_scan -r 2>/dev/null | sed -n 's/^[0-9]*: //p' | grep -v '^Virtual PCD ' | head -n1 || true)
        [[ -n "$reader" ]] && break
        kill -0 "$pcscd_pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "$reader" >"$dir/reader"
    [[ -z "$reader" || ! -s "$dir/script.txt" ]] && exit 0
    timeout 20 perl "$root/Scripts/pcsc-apdu.pl" "$reader" <"$dir/script.txt" >"$dir/pcscd.out" 2>"$dir/client.err" || true
    exit 0
fi

root="$(cd "$(dirname "$0")/.." && pwd)"
export PATH="/opt/swift/usr/bin:$PATH"
keep=""
if [[ "${1:-}" == "--keep" ]]; then keep="$2"; shift 2; fi
logs=("$@")
if [[ "${1:-}" == "--subset" ]]; then
    logs=()
    for name in ccid-79-omnikey-3121-openpgp libnfc-476-acr122u-fe-with-data libnfc-476-acr122u-list-loop \
        libnfc-694-acr122u-mifare-init pcsc-146-acr122u-card-removed pcsc-65-yubikey5-powerup \
        pcsc-117-omnikey-1021-t0-powerup yubico-piv-tool-63-yubikey-neo-powerup \
        yubico-piv-tool-63-yubikey-neo-get-data; do
        logs+=("$root/Tests/Fixtures/transcripts/$name.log")
    done
fi
[[ ${#logs[@]} -eq 0 ]] && logs=("$root"/Tests/Fixtures/transcripts/*.log)
cardctl="$root/.build/debug/cardctl"
[[ -x "$cardctl" ]] || swift build --package-path "$root" --product cardctl >&2
for tool in pcscd pcsc_scan umockdev-wrapper perl; do
    command -v "$tool" >/dev/null || { echo "transcript-pcscd-check: $tool is not installed" >&2; exit 2; }
done
if pgrep -x pcscd >/dev/null; then
    echo "transcript-pcscd-check: another pcscd runs; stop it first (its socket is global)" >&2
    exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for log in "${logs[@]}"; do
    name=$(basename "$log" .log)
    dir="$work/$name"
    mkdir -p "$dir"
    "$cardctl" transcript-check --list-apdus "$log" >"$dir/expected.txt"
    # The log's descriptor dump, as `transcript-check` finds it.
    if ! grep -q '^# descriptor:' "$log"; then
        printf '%-52s skipped (no descriptor dump named)\n' "$name"
        continue
    fi
    cut -d' ' -f1 "$dir/expected.txt" >"$dir/script.txt"
    umockdev-wrapper "$cardctl" simulate --replay "$log" --fixtures "$root/Tests/Fixtures/ccid-readers" \
        -- bash "$0" --inner "$dir" "$root" >"$dir/simulate.out" 2>"$dir/simulate.err" || true
    summary=$(grep -m1 'replay of' "$dir/simulate.err" | sed 's/.*: \([0-9]* command(s) matched.*\)/\1/' || true)
    if [[ ! -s "$dir/reader" ]]; then
        printf '%-52s differs: pcscd listed no reader (%s)\n' "$name" "$summary"
        status=1
        continue
    fi
    total=0 same=0 report=""
    mapfile -t answers < <(grep -E '^(OK|ERR|NOTRUN)' "$dir/pcscd.out" 2>/dev/null || true)
    index=0
    while read -r apdu expected; do
        [[ "$apdu" == "--" ]] && continue
        answer="${answers[$index]:-none}"
        index=$((index + 1))
        [[ "$expected" == "-" ]] && continue
        total=$((total + 1))
        if [[ "$answer" == "OK $expected" ]]; then
            same=$((same + 1))
        else
            report+=$'\n'"    APDU $apdu: recorded $expected, pcscd: $answer"
        fi
    done <"$dir/expected.txt"
    if [[ $total -eq 0 ]]; then
        printf '%-52s no APDU; pcscd lists "%s" (%s)\n' "$name" "$(cat "$dir/reader")" "$summary"
    elif [[ $same -eq $total ]]; then
        printf '%-52s same %d/%d (%s)\n' "$name" "$same" "$total" "$summary"
    else
        printf '%-52s differs %d/%d (%s)%s\n' "$name" "$same" "$total" "$summary" "$report"
        status=1
    fi
done
[[ -n "$keep" ]] && { mkdir -p "$keep"; cp -r "$work"/. "$keep"/; }
exit $status
