#!/usr/bin/env bash
# Interop check of the VPCD target with vsmartcard's own programs, in both roles:
#   A. reader side: vicc (vsmartcard-vpicc, `vicc -t iso7816`) connects to our VPCDListener
#      (`vpcdtool listen`), which powers its card and sends SELECT, GET CHALLENGE …;
#   B. card side: pcscd with vsmartcard's vpcd driver (vsmartcard-vpcd) listens, our
#      VPCDCardExporter (`vpcdtool export`) connects with a simulated card, and a PC/SC client
#      (scriptor, Scripts/pcsc-apdu.pl) exchanges APDUs through SCardTransmit; two slots at once,
#      and a card removal (exporter stopped) that pcscd must notice; then `cardctl export` serves
#      a simulated DESFire card through a CardFlow reader, and vicc connects to
#      `cardctl --reader vpcd:PORT`, and cardctl --reader pcsc reaches the exported card through
#      pcscd + vpcd (CardFlow's PC/SC backend on that stack).
# With --bench N it also measures APDUs per second (N APDUs each) through
#   our listener ↔ our exporter (in one process), our listener ↔ vicc,
#   pcscd+vpcd ↔ our exporter, and pcscd+vpcd ↔ vicc.
#
# Everything runs in private mount and network namespaces (unshare): pcscd gets its own
# /run/pcscd (a tmpfs) and vpcd's listening ports (35963, 35964 on all interfaces) exist only
# on the namespace's own loopback, so a system pcscd or other jobs are not disturbed.
#
# Usage:
#   Scripts/vpcd-check.sh [--vpcdtool PATH] [--cardctl PATH] [--bench N] [--log DIR]
#     --vpcdtool  the vpcdtool to use (default: .build/debug/vpcdtool, built when missing)
#     --cardctl   the cardctl to use (default: .build/debug/cardctl, built when missing)
#     --bench N   also measure, N APDUs per path (vicc paths take ~N × 1–50 ms)
#     --log DIR   keep the logs (pcscd with APDUs, vicc, exporters) in DIR
#
# Needs: root or unprivileged user namespaces (unshare), iproute2 (ip), pcscd, pcsc-tools,
# libpcsc-perl, vsmartcard-vpcd, vsmartcard-vpicc, and pycryptodome for vicc where
# Scripts/setup.sh puts it (CARDFLOW_PYDEPS, default ~/.cache/cardflow/pydeps).
#
# Exit status: 0 the check passed, 1 it failed, 2 setup problem.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/private-namespaces.sh
source "$root/Scripts/lib/private-namespaces.sh"
pydeps="${CARDFLOW_PYDEPS:-${XDG_CACHE_HOME:-$HOME/.cache}/cardflow/pydeps}"
vicc_module=/usr/lib/python3/site-packages/virtualsmartcard

if [[ "${1:-}" == "--inner" ]]; then
    # Inside the namespaces: $2 vpcdtool, $3 bench count (0: none), $4 cardctl, $5 log dir.
    vpcdtool="$2"; bench="$3"; cardctl="$4"; logs="$5"
    pids=()
    cleanup() {
        for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
        for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    }
    trap cleanup EXIT
    fail() {
        echo "vpcd-check: FAIL: $*" >&2
        for log in "$logs"/*.log; do
            [[ -s "$log" ]] && { echo "--- $(basename "$log") (last 25 lines)" >&2; tail -n 25 "$log" >&2; }
        done
        exit 1
    }
    # Compares a command's output with the expected lines.
    expect_output() {
        local what="$1" expected="$2" actual="$3"
        if [[ "$actual" != "$expected" ]]; then
            fail "$what: expected
$expected
got
$actual"
        fi
        echo "ok: $what"
    }
    run_vicc() {  # port, log name
        PYTHONPATH="$vicc_module:$pydeps" vicc -t iso7816 -H 127.0.0.1 -P "$1" >>"$logs/$2.log" 2>&1 &
        pids+=($!)
    }
    now() { date +%s.%N; }
    rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%d APDUs in %.3f s: %.1f APDU/s (%.2f ms each)", n, b - a, n / (b - a), (b - a) * 1000 / n }'; }

    for log in listener vicc-a vicc-bench vicc-pcscd exporter-iso7816 exporter-apdu-test cardctl-export cardctl-vpcd pcscd; do : >"$logs/$log.log"; done
    private_loopback_and_pcscd_socket || fail "cannot mount a private /run/pcscd"

    # --- A. vicc (card) → our VPCDListener (reader)
    script='00A4000C023F00
00A4040C07A0000002471001
00B0000010
80100000
reset
00A4000C023F00'
    run_vicc 36001 vicc-a &
    output=$(printf '%s\n' "$script" | "$vpcdtool" listen --port 36001 --wait 20 --log-level info 2>>"$logs/listener.log") \
        || fail "vpcdtool listen with vicc failed: $output"
    # vicc's Iso7816OS: its ATR, SELECT MF 90 00, no such DF 6A 82, no current EF 69 86,
    # unknown instruction 6D 00.
    expect_output "vicc → VPCDListener: ATR and APDUs" 'ATR 3B951381018073FF01000B
OK 9000
OK 6A82
OK 6986
OK 6D00
ATR 3B951381018073FF01000B
OK 9000' "$output"
    output=$(printf '0084000008\n' | { run_vicc 36002 vicc-a; "$vpcdtool" listen --port 36002 --wait 20 2>>"$logs/listener.log"; }) \
        || fail "GET CHALLENGE through vicc failed: $output"
    [[ "$output" =~ OK\ [0-9A-F]{16}9000 ]] || fail "GET CHALLENGE: expected 8 random bytes and 90 00, got $output"
    echo "ok: vicc → VPCDListener: GET CHALLENGE ${output##*OK }"

    # --- B. our VPCDCardExporter (card) → pcscd + vpcd (reader) → PC/SC client
    write_vpcd_reader_conf "$logs"
    # Started before pcscd listens: the exporters must find it by retrying.
    "$vpcdtool" export --port 35963 --card iso7816 --log-level info 2>>"$logs/exporter-iso7816.log" &
    export_iso=$!; pids+=($export_iso)
    "$vpcdtool" export --port 35964 --card apdu-test --log-level info 2>>"$logs/exporter-apdu-test.log" &
    export_test=$!; pids+=($export_test)
    pcscd --foreground --debug --apdu -c "$logs/reader.conf.d" >"$logs/pcscd.log" 2>&1 &
    pcscd_pid=$!; pids+=($pcscd_pid)

    readers=""
    for _ in $(seq 1 50); do
        readers=$(timeout 5 pcsc_scan -r 2>/dev/null | sed -n 's/^[0-9]*: //p' || true)
        [[ "$readers" == *"Virtual PCD 00 01"* ]] && break
        kill -0 "$pcscd_pid" 2>/dev/null || fail "pcscd exited"
        sleep 0.2
    done
    [[ "$readers" == *"Virtual PCD 00 00"* && "$readers" == *"Virtual PCD 00 01"* ]] || fail "pcscd did not list the vpcd slots: $readers"
    echo "ok: pcscd lists: $(echo "$readers" | paste -sd, -)"

    # scriptor: power on (ATR of ISO7816Card: DESFire EV1 ATS → 3B 81 80 01 80 80), SELECT.
    output=""
    for _ in $(seq 1 25); do
        output=$(printf 'reset\n00 A4 04 00 07 A0 00 00 02 47 10 01 00\n' | timeout 20 scriptor -r "Virtual PCD 00 00" 2>&1) && break
        sleep 0.2  # the exporter may still be connecting
    done
    atr=$(echo "$output" | sed -n 's/^< OK: *//p' | sed 's/ *$//')
    [[ "$atr" == "3B 81 80 01 80 80" ]] || fail "scriptor: expected ATR 3B 81 80 01 80 80; scriptor said: $output"
    echo "$output" | tr -s ' \n' ' ' | grep -q '90 00 : Normal processing' || fail "scriptor: SELECT did not answer 90 00: $output"
    echo "ok: PC/SC → pcscd → vpcd → VPCDCardExporter (iso7816): ATR $atr, SELECT 90 00"

    # Exact bytes through SCardTransmit: SELECT (no FCI), READ BINARY SFI 1 (00 01 … 1F), an
    # unknown file, a write to the read-only EF.
    output=$(printf '00A4040C07A0000002471001\n00B0810020\n00A4020C020999\n00A4020C020103\n00D6000001AA\n' \
        | timeout 20 perl "$root/Scripts/pcsc-apdu.pl" "Virtual PCD 00 00" 2>&1) || fail "pcsc-apdu.pl failed: $output"
    expect_output "PC/SC → VPCDCardExporter (iso7816): SELECT, READ BINARY, errors" 'PROTOCOL T=1
OK 9000
OK 000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F9000
OK 6A82
OK 9000
OK 6982' "$output"

    # Second slot, APDU test card: the four cases and a 256-byte answer.
    pattern=$(awk 'BEGIN { for (i = 0; i < 256; i++) printf "%02X", (i % 251); }')
    output=$(printf '80100000\n8020000000\n8030000003010203\n8032000004\n80400000030A0B0C00\n' \
        | timeout 20 perl "$root/Scripts/pcsc-apdu.pl" "Virtual PCD 00 01" 2>&1) || fail "pcsc-apdu.pl (slot 2) failed: $output"
    expect_output "PC/SC → VPCDCardExporter (apdu-test, 2nd slot): cases 1–4, 256-byte answer" "PROTOCOL T=1
OK 9000
OK ${pattern}9000
OK 9000
OK 00030A069000
OK 0C0B0A9000" "$output"

    # Card removal: the exporter stops; vpcd finds the connection closed, pcscd reports no card.
    kill "$export_test"; wait "$export_test" 2>/dev/null || true
    # (Right after the stop SCardConnect may say "Card is unpowered" until vpcd's presence poll.)
    removed=""
    for _ in $(seq 1 50); do
        output=$(printf '80100000\n' | timeout 10 perl "$root/Scripts/pcsc-apdu.pl" "Virtual PCD 00 01" 2>&1) \
            || { [[ "$output" == *"No smartcard inserted"* ]] && { removed="$output"; break; }; }
        sleep 0.2
    done
    [[ -n "$removed" ]] || fail "pcscd does not report slot 2 empty after the exporter stopped: $output"
    echo "ok: exporter stopped → PC/SC: $(echo "$removed" | head -n1)"

    # cardctl export: a CardFlow reader's card (here the simulator's DESFire EV1, through the CCID
    # driver and a CardFlow session) served on slot 2; a PC/SC client sends DESFire GetVersion
    # (native, ISO-wrapped): the first part of the version and 91 AF (more to come).
    "$cardctl" --reader sim:desfire export --to 127.0.0.1:35964 >>"$logs/cardctl-export.log" 2>&1 &
    export_cardctl=$!; pids+=($export_cardctl)
    output=""
    for _ in $(seq 1 50); do
        output=$(printf '9060000000\n90AF000000\n' | timeout 10 perl "$root/Scripts/pcsc-apdu.pl" "Virtual PCD 00 01" 2>&1) && break
        sleep 0.2
    done
    echo "$output" | grep -Eq '^OK [0-9A-F]{14}91AF$' || fail "PC/SC → cardctl export (sim:desfire): GetVersion did not answer 7 bytes + 91 AF: $output"
    echo "$output" | sed -n 3p | grep -Eq '^OK [0-9A-F]{14}91AF$' || fail "PC/SC → cardctl export: the second GetVersion part is wrong: $output"
    echo "ok: PC/SC → pcscd → vpcd → cardctl export --reader sim:desfire: GetVersion $(echo "$output" | sed -n 2p)"
    # CardFlow's PC/SC backend on the same stack: cardctl --reader pcsc → pcscd → vpcd → cardctl export.
    output=$("$cardctl" --reader "pcsc:Virtual PCD 00 01" apdu 9060000000 90AF000000 2>>"$logs/cardctl-export.log") \
        || fail "cardctl --reader pcsc:Virtual PCD 00 01 failed: $output"
    [[ $(echo "$output" | grep -Ec '^[0-9A-F]{14} 91AF$') == 2 ]] \
        || fail "cardctl --reader pcsc → pcscd → vpcd → cardctl export: GetVersion parts wrong: $output"
    echo "ok: cardctl --reader pcsc → pcscd → vpcd → cardctl export: GetVersion $(echo "$output" | head -n1)"
    kill "$export_cardctl"; wait "$export_cardctl" 2>/dev/null || true

    # cardctl --reader vpcd:PORT: vicc connects to cardctl as its reader. vicc tries to connect once
    # and exits when nobody listens, so it starts only after cardctl's port is open.
    "$cardctl" --reader vpcd:127.0.0.1:36004 --wait 20000 apdu 00A4000C023F00 >"$logs/cardctl-vpcd.out" 2>>"$logs/cardctl-vpcd.log" &
    vpcd_cardctl=$!; pids+=($vpcd_cardctl)
    for _ in $(seq 1 200); do ss -ltn 2>/dev/null | grep -q '127.0.0.1:36004 ' && break; sleep 0.1; done
    run_vicc 36004 cardctl-vpcd
    wait "$vpcd_cardctl" || fail "cardctl --reader vpcd with vicc failed: $(cat "$logs/cardctl-vpcd.out")"
    output=$(cat "$logs/cardctl-vpcd.out")
    [[ "$output" == *9000* ]] || fail "cardctl --reader vpcd: SELECT MF did not answer 90 00: $output"
    echo "ok: vicc → cardctl --reader vpcd:127.0.0.1:36004: SELECT MF $output"

    if [[ "$bench" -gt 0 ]]; then
        echo "--- bench: $bench APDUs each (NO-OP 80 10 00 00 or SELECT MF for vicc; answers 2 bytes)"
        echo "our VPCDListener ↔ our VPCDCardExporter (one process, loopback TCP): $("$vpcdtool" bench --count "$bench" | sed 's/^RATE //')"
        apdus=$(for _ in $(seq 1 "$bench"); do echo 80100000; done)
        start=$(now)
        printf '%s\n' "$apdus" | timeout 600 perl "$root/Scripts/pcsc-apdu.pl" "Virtual PCD 00 00" >/dev/null 2>&1 || fail "bench through pcscd failed"
        end=$(now)
        echo "PC/SC → pcscd+vpcd → our VPCDCardExporter: $(rate "$bench" "$start" "$end") (includes SCardConnect)"
        output=$(printf '00A4000C023F00\n' | { run_vicc 36003 vicc-bench; "$vpcdtool" listen --port 36003 --wait 20 --repeat "$bench" 2>>"$logs/listener.log"; }) \
            || fail "bench vicc → listener failed: $output"
        echo "our VPCDListener ↔ vicc: $(echo "$output" | sed -n 's/^RATE \([0-9]*\) \([0-9.]*\) \([0-9.]*\)/\1 APDUs in \2 s: \3 APDU\/s/p')"
        # Slot 1 with vicc instead of our exporter.
        kill "$export_iso"; wait "$export_iso" 2>/dev/null || true
        run_vicc 35963 vicc-pcscd
        apdus=$(for _ in $(seq 1 "$bench"); do echo 00A4000C023F00; done)
        for _ in $(seq 1 50); do
            printf '00A4000C023F00\n' | timeout 10 perl "$root/Scripts/pcsc-apdu.pl" "Virtual PCD 00 00" >/dev/null 2>&1 && break
            sleep 0.2
        done
        start=$(now)
        printf '%s\n' "$apdus" | timeout 600 perl "$root/Scripts/pcsc-apdu.pl" "Virtual PCD 00 00" >/dev/null 2>&1 || fail "bench pcscd → vicc failed"
        end=$(now)
        echo "PC/SC → pcscd+vpcd → vicc: $(rate "$bench" "$start" "$end") (includes SCardConnect)"
    fi
    echo "vpcd-check: OK"
    exit 0
fi

vpcdtool="$root/.build/debug/vpcdtool"
cardctl="$root/.build/debug/cardctl"
bench=0
logs=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --vpcdtool) vpcdtool="$2"; shift 2 ;;
        --cardctl) cardctl="$2"; shift 2 ;;
        --bench) bench="$2"; shift 2 ;;
        --log) logs="$2"; shift 2 ;;
        -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "vpcd-check: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done

for tool in pcscd pcsc_scan scriptor vicc unshare ip perl; do
    command -v "$tool" >/dev/null || { echo "vpcd-check: $tool not found (Scripts/setup.sh installs what is needed)" >&2; exit 2; }
done
perl -MChipcard::PCSC -e 1 2>/dev/null || { echo "vpcd-check: Chipcard::PCSC missing (apt-get install libpcsc-perl)" >&2; exit 2; }
[[ -f /usr/lib/pcsc/drivers/serial/libifdvpcd.so ]] || { echo "vpcd-check: vpcd driver missing (apt-get install vsmartcard-vpcd)" >&2; exit 2; }
[[ -d "$vicc_module/virtualsmartcard" ]] || { echo "vpcd-check: $vicc_module missing (apt-get install vsmartcard-vpicc)" >&2; exit 2; }
PYTHONPATH="$pydeps" /usr/bin/python3 -c 'import Crypto' 2>/dev/null \
    || { echo "vpcd-check: pycryptodome not in $pydeps (Scripts/setup.sh installs it)" >&2; exit 2; }
if [[ ! -x "$vpcdtool" ]]; then
    echo "vpcd-check: building vpcdtool" >&2
    (cd "$root" && swift build --product vpcdtool >&2) || exit 2
fi
if [[ ! -x "$cardctl" ]]; then
    echo "vpcd-check: building cardctl" >&2
    (cd "$root" && swift build --product cardctl >&2) || exit 2
fi

run_in_private_namespaces vpcd-check "$logs" "$0" --inner "$vpcdtool" "$bench" "$cardctl"
