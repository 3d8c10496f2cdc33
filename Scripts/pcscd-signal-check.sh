#!/usr/bin/env bash
# Reader signals through the real PC/SC stack (issue 37): pcscd with Debian's libccid drives
# `cardctl simulate`'s emulated ACS ACR1252 Dual Reader (072F:223B, umockdev), whose firmware
# answers the ACR1252U's LED and buzzer escape commands and records what it showed
# (`cardctl simulate --panel-log`). Phases, each with its own simulated reader (and pcscd):
#   0. `cardctl --reader usb signal --failure`: CardFlow's own libusb CCID driver, PC_to_RDR_Escape
#      (no pcscd): the panel must be red with one 500 ms beep;
#   1. Scripts/partners/pcsc-escape (plain C on libpcsclite, no CardFlow) sends LED control
#      E0 00 00 29 01 02 with SCardControl(SCARD_CTL_CODE(1)) on a direct connection, no card:
#      libccid passes it on as PC_to_RDR_Escape; the answer must be E1 00 00 00 01 02 and the
#      reader's panel green;
#   2. `cardctl --reader pcsc signal --success` (CardFlow's PC/SC backend, SCardControl through
#      pcscd and libccid): the panel must be green with one 100 ms beep;
#   3. the same client as 1 with libccid's own Info.plist (ifdDriverOptions 0x0000): libccid must
#      refuse the escape and the panel stay dark (the check can fail, and the option matters).
#   4. the ACS ACR122U (072F:2200, PN532 firmware, libccid's "ACR122U PICC Interface"):
#      pcsc-escape sends the pseudo-APDU FF 00 40 0D 04 01 01 01 01 (ACR122U API v2.04 §6.2: red
#      on, green off, one 100 ms beep) as SCardControl; the answer must be 90 01 (LED state: red);
#   5. `cardctl --reader pcsc signal --success` on the ACR122U: green and one 100 ms beep.
#
# libccid forwards SCardControl(SCARD_CTL_CODE(1)) only when its Info.plist's ifdDriverOptions
# has 0x0001 (DRIVER_OPTION_CCID_EXCHANGE_AUTHORIZED). Phases 1, 2, 4 and 5 give pcscd a copy with that
# bit set, bind-mounted over the system's inside pcscd's mount namespace
# (Scripts/pcsc-backend-check.sh --serve, PCSCD_CCID_INFO_PLIST); the system's file is untouched.
#
# Usage: Scripts/pcscd-signal-check.sh [--cardctl PATH] [--keep-logs]
# Needs root (mount namespaces), umockdev, pcscd, libccid, gcc and libpcsclite-dev.
# Exit status: 0 passed, 1 a check failed, 2 setup problem.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cardctl="$root/.build/debug/cardctl"
keep_logs=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --cardctl) cardctl="$2"; shift 2 ;;
        --keep-logs) keep_logs=1; shift ;;
        -h|--help) sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "pcscd-signal-check: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
for tool in pcscd unshare umockdev-run gcc pkg-config; do
    command -v "$tool" >/dev/null || { echo "pcscd-signal-check: $tool not found (Scripts/setup.sh installs what is missing)" >&2; exit 2; }
done
plist=/usr/lib/pcsc/drivers/ifd-ccid.bundle/Contents/Info.plist
[[ -f "$plist" ]] || { echo "pcscd-signal-check: libccid is missing (apt-get install libccid)" >&2; exit 2; }
[[ -x "$cardctl" ]] || { echo "pcscd-signal-check: no cardctl at $cardctl; run swift build first" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/pcscd-signal-check.XXXXXX")
status=0
fail() { echo "pcscd-signal-check: FAIL: $*" >&2; status=1; }
profile="$root/Tests/Fixtures/ccid-readers/ACS_ACR1252_Dual_Reader.txt"
serve="$root/Scripts/pcsc-backend-check.sh"

gcc -Wall -o "$work/pcsc-escape" "$root/Scripts/partners/pcsc-escape.c" $(pkg-config --cflags --libs libpcsclite) \
    || { echo "pcscd-signal-check: cannot build Scripts/partners/pcsc-escape.c" >&2; exit 2; }
# The ifdDriverOptions value is the <string> after its <key>.
sed '/<key>ifdDriverOptions<\/key>/{n;s|<string>[^<]*</string>|<string>0x0001</string>|}' "$plist" >"$work/Info.plist"
grep -A1 '<key>ifdDriverOptions</key>' "$work/Info.plist" | grep -q '0x0001' \
    || { echo "pcscd-signal-check: could not set ifdDriverOptions in a copy of $plist" >&2; exit 2; }

echo "== phase 0: cardctl --reader usb signal --failure (CardFlow's libusb CCID driver, no pcscd)"
output=$(timeout 120 "$cardctl" simulate --reader-profile "$profile" --card none --panel-log "$work/usb.panel" -- \
    "$cardctl" --reader usb signal --failure 2>&1) || fail "cardctl --reader usb signal: $output"
echo "$output"
grep -q "red on, green off, 0 blink sequences, beeps \[500 ms\]" "$work/usb.panel" 2>/dev/null \
    || fail "the emulated reader did not show red and one 500 ms beep: $(cat "$work/usb.panel" 2>/dev/null)"

# escape_phase NAME PROFILE READER-NAME COMMAND ANSWER PANEL: the C client on libpcsclite sends
# COMMAND with SCardControl through pcscd + libccid (escapes allowed) to the emulated reader; its
# answer must be ANSWER and the reader's panel show PANEL.
escape_phase() {
    local name=$1 reader_profile=$2 reader=$3 command=$4 answer=$5 panel=$6 output
    output=$(PCSCD_CCID_INFO_PLIST="$work/Info.plist" timeout 120 "$cardctl" simulate \
        --reader-profile "$reader_profile" --card none --panel-log "$work/$name.panel" -- \
        "$serve" --serve "$work/$name" -- "$work/pcsc-escape" "$reader" "$command" 2>&1) \
        || fail "$name: pcsc-escape: $output"
    echo "$output"
    grep -q "answer: $answer" <<<"$output" || fail "$name: expected the answer $answer: $output"
    grep -qF "$panel" "$work/$name.panel" 2>/dev/null \
        || fail "$name: the emulated reader's panel is not '$panel': $(cat "$work/$name.panel" 2>/dev/null)"
}

# cardflow_phase NAME PROFILE PANEL: `cardctl --reader pcsc signal --success` (CardFlow's PC/SC
# backend) through pcscd + libccid; the reader's panel must show PANEL.
cardflow_phase() {
    local name=$1 reader_profile=$2 panel=$3 output
    output=$(PCSCD_CCID_INFO_PLIST="$work/Info.plist" timeout 120 "$cardctl" simulate \
        --reader-profile "$reader_profile" --card none --panel-log "$work/$name.panel" -- \
        "$serve" --serve "$work/$name" -- \
        bash -c 'for _ in $(seq 1 100); do "$0" --reader pcsc signal --success && exit 0; sleep 0.2; done; exit 1' \
        "$cardctl" 2>&1) || fail "$name: cardctl --reader pcsc signal: $output"
    echo "$output"
    grep -qF "$panel" "$work/$name.panel" 2>/dev/null \
        || fail "$name: the emulated reader's panel is not '$panel': $(cat "$work/$name.panel" 2>/dev/null)"
}

echo "== phase 1: pcsc-escape (C, libpcsclite) → pcscd + libccid → emulated ACR1252U: LED control"
escape_phase escape "$profile" ACR1252 "E0 00 00 29 01 02" "E1 00 00 00 01 02" \
    "red off, green on, 0 blink sequences, beeps []"

echo "== phase 2: cardctl --reader pcsc signal --success (CardFlow's PC/SC backend) → pcscd + libccid"
cardflow_phase cardflow "$profile" "red off, green on, 0 blink sequences, beeps [100 ms]"

echo "== phase 3: pcsc-escape with libccid's own Info.plist: the escape is refused"
refused=0
output=$(timeout 120 "$cardctl" simulate --reader-profile "$profile" \
    --card none --panel-log "$work/refused.panel" -- "$serve" --serve "$work/refused" -- \
    "$work/pcsc-escape" ACR1252 "E0 00 00 29 01 02" 2>&1) || refused=$?
echo "$output"
if grep -A1 '<key>ifdDriverOptions</key>' "$plist" | grep -q '0x0000'; then
    [[ $refused == 1 ]] || fail "libccid without DRIVER_OPTION_CCID_EXCHANGE_AUTHORIZED passed the escape on (status $refused): $output"
    grep -q "red off, green off" "$work/refused.panel" 2>/dev/null \
        || fail "the panel changed although libccid refused: $(cat "$work/refused.panel" 2>/dev/null)"
else
    echo "pcscd-signal-check: the system's libccid already allows escapes: phase 3 has nothing to refuse"
fi

acr122u="$root/Tests/Fixtures/ccid-readers/ACR122U_PICC.txt"
echo "== phase 4: pcsc-escape → pcscd + libccid → emulated ACR122U: FF 00 40 (LED and buzzer)"
escape_phase acr122u-escape "$acr122u" ACR122U "FF 00 40 0D 04 01 01 01 01" "90 01" \
    "red on, green off, 0 blink sequences, beeps [100 ms]"

echo "== phase 5: cardctl --reader pcsc signal --success on the ACR122U → pcscd + libccid"
cardflow_phase acr122u-cardflow "$acr122u" "red off, green on, 0 blink sequences, beeps [100 ms]"

if [[ $status != 0 || $keep_logs == 1 ]]; then
    echo "pcscd-signal-check: logs in $work (escape, cardflow, refused, acr122u-*: pcscd.log each; *.panel)"
else
    rm -rf "$work"
fi
if [[ $status == 0 ]]; then echo "pcscd-signal-check: OK"; else echo "pcscd-signal-check: FAIL" >&2; fi
exit "$status"
