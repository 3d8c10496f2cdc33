#!/usr/bin/env bash
# The PCSC backend's tests (Tests/CardFlowPCSCTests) against the real PC/SC stack: a private pcscd with
# libccid drives `cardctl simulate`'s emulated USB reader, and `swift test` reaches that pcscd
# through PCSCLITE_CSOCK_NAME. Phases, each with its own simulated reader and pcscd:
#   1. --card iso7816: every CardFlowPCSCTests suite but the removal ones (the PCSC library and the
#      CardFlow backend on it), one test at a time: they share one card, and a CardFlow session
#      powers it off at its end, which resets another suite's connection; 1b. `cardctl --reader pcsc:CardFlow apdu` through the same stack;
#   2. --card iso7816,lift-after=3,return-after=1500: PCSCCardRemovalTests alone (the card
#      leaves after 3 APDUs and returns 1.5 s later; the lift counts every APDU the card sees,
#      so nothing else may run beside it);
#   3. --card iso7816,lift-after=1,return-after=1500: PCSCCardRemovalFlowTests alone (a CardFlow
#      flow recovers when the card leaves between its steps).
#
# Why a mount namespace: pcsc-lite 1.9.9's pcscd ignores PCSCLITE_CSOCK_NAME (only libpcsclite
# reads it) and always uses /run/pcscd/pcscd.comm and /run/pcscd/pcscd.pid, which any other
# pcscd on the machine shares. So pcscd runs under `unshare --mount` with a private directory
# bind-mounted on /run/pcscd: other pcscds keep theirs, and our clients find ours at
# WORK/run/pcscd.comm through PCSCLITE_CSOCK_NAME. That needs root (CAP_SYS_ADMIN).
#
# Usage:
#   Scripts/pcsc-backend-check.sh [--cardctl PATH] [--keep-logs]
#     --cardctl    the cardctl to use (default .build/debug/cardctl)
#     --keep-logs  keep pcscd's debug logs (with APDUs) and print where they are
#   Scripts/pcsc-backend-check.sh --serve WORK -- COMMAND...
#     inside `cardctl simulate`: start a private pcscd (socket WORK/run/pcscd.comm, log
#     WORK/pcscd.log, an empty reader.conf.d so only USB readers appear, further options from
#     PCSCD_OPTIONS, default "--debug --apdu", empty for none; libccid's Info.plist replaced by
#     PCSCD_CCID_INFO_PLIST when set), run COMMAND with
#     PCSCLITE_CSOCK_NAME set and without umockdev's preload, stop pcscd; exits with COMMAND's status.
#     Benchmarks/pcsc-backend/run.sh uses it.
#
# Needs a build with tests (swift build --build-tests: this runs swift test --skip-build), umockdev,
# pcscd, libccid and unshare (util-linux). Exit status: 0 passed, 1 tests failed, 2 setup problem.
set -euo pipefail

# pcscd stops on SIGINT after closing its readers; under umockdev it sometimes hangs there, hence
# SIGTERM after 3 s, then SIGKILL.
stop_pcscd() {
    [[ -n "${pcscd_pid:-}" ]] || return 0
    local sig
    for sig in INT TERM KILL; do
        kill -s "$sig" "$pcscd_pid" 2>/dev/null || true
        for _ in $(seq 1 30); do kill -0 "$pcscd_pid" 2>/dev/null || break 2; sleep 0.1; done
    done
    wait "$pcscd_pid" 2>/dev/null || true
    pcscd_pid=""
}

if [[ "${1:-}" == "--serve" ]]; then
    work="$2"
    [[ "${3:-}" == "--" ]] || { echo "pcsc-backend-check: --serve WORK -- COMMAND..." >&2; exit 2; }
    shift 3
    # An empty reader.conf.d: only hotplugged USB readers (libccid), no serial or network
    # drivers from /etc/reader.conf.d (vpcd would contend for its TCP port with other pcscds).
    mkdir -p "$work/run" "$work/reader.conf.d"
    [[ -d /run/pcscd ]] || mkdir -p /run/pcscd  # the mount point; pcscd itself never writes the real one
    # PCSCD_CCID_INFO_PLIST: a libccid Info.plist of the caller's own (ifdDriverOptions, say),
    # bind-mounted over the system's inside the namespace: the system's copy stays untouched.
    ccid_plist=/usr/lib/pcsc/drivers/ifd-ccid.bundle/Contents/Info.plist
    # shellcheck disable=SC2086 # PCSCD_OPTIONS is a list of options
    unshare --mount --propagation private -- \
        sh -c 'mount --bind "$0" /run/pcscd && { [ -z "$1" ] || mount --bind "$1" "$2"; } && shift 2 && exec pcscd --foreground "$@"' \
        "$work/run" "${PCSCD_CCID_INFO_PLIST:-}" "$ccid_plist" --config "$work/reader.conf.d" ${PCSCD_OPTIONS---debug --apdu} \
        >"$work/pcscd.log" 2>&1 &
    pcscd_pid=$!
    trap stop_pcscd EXIT
    trap 'exit 130' INT TERM
    for _ in $(seq 1 100); do
        [[ -S "$work/run/pcscd.comm" ]] && break
        kill -0 "$pcscd_pid" 2>/dev/null || break
        sleep 0.1
    done
    if [[ ! -S "$work/run/pcscd.comm" ]]; then
        echo "pcsc-backend-check: pcscd did not create $work/run/pcscd.comm; its log:" >&2
        tail -n 20 "$work/pcscd.log" >&2
        exit 2
    fi
    status=0
    # The clients do not need the emulated USB bus: keep umockdev's preload out of them.
    env -u LD_PRELOAD -u UMOCKDEV_DIR PCSCLITE_CSOCK_NAME="$work/run/pcscd.comm" "$@" || status=$?
    exit "$status"
fi

root=$(cd "$(dirname "$0")/.." && pwd)
cardctl="$root/.build/debug/cardctl"
keep_logs=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --cardctl) cardctl="$2"; shift 2 ;;
        --keep-logs) keep_logs=1; shift ;;
        -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "pcsc-backend-check: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
[[ -d /opt/swift/usr/bin ]] && export PATH="/opt/swift/usr/bin:$PATH"
for tool in pcscd unshare umockdev-run swift; do
    command -v "$tool" >/dev/null || { echo "pcsc-backend-check: $tool not found (Scripts/setup.sh installs what is missing)" >&2; exit 2; }
done
[[ -d /usr/lib/pcsc/drivers/ifd-ccid.bundle ]] || { echo "pcsc-backend-check: libccid is missing (apt-get install libccid)" >&2; exit 2; }
[[ -x "$cardctl" ]] || { echo "pcsc-backend-check: no cardctl at $cardctl; run swift build --build-tests first" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/pcsc-backend-check.XXXXXX")
status=0
cd "$root"
echo "== phase 1: CardFlowPCSCTests (but the removal suite) against pcscd + libccid + cardctl simulate --card iso7816"
"$cardctl" simulate --card iso7816 -- "$0" --serve "$work/main" -- \
    swift test --skip-build --disable-xctest --no-parallel --filter CardFlowPCSCTests --skip PCSCCardRemoval || status=1
echo "== phase 1b: cardctl --reader pcsc, the same reader through the CLI"
# pcscd lists the reader once libccid has opened it: ask again for up to 20 s.
"$cardctl" simulate --card iso7816 -- "$0" --serve "$work/cli" -- \
    bash -c 'for _ in $(seq 1 100); do "$0" --reader pcsc apdu 00A4040007A0000002471001 && exit 0; sleep 0.2; done; exit 1' \
    "$cardctl" >"$work/cli.out" 2>&1 || status=1
grep -q "9000" "$work/cli.out" || { echo "pcsc-backend-check: cardctl --reader pcsc did not answer 9000:" >&2; cat "$work/cli.out" >&2; status=1; }
echo "== phase 2: PCSCCardRemovalTests, the card leaves after 3 APDUs and returns after 1.5 s"
"$cardctl" simulate --card iso7816,lift-after=3,return-after=1500 -- "$0" --serve "$work/removal" -- \
    env CARDFLOW_PCSC_LIFT_AFTER=3 CARDFLOW_PCSC_RETURN_AFTER_MS=1500 \
    swift test --skip-build --disable-xctest --filter PCSCCardRemovalTests || status=1
echo "== phase 3: PCSCCardRemovalFlowTests, a CardFlow flow through pcscd while the card leaves after its first APDU"
"$cardctl" simulate --card iso7816,lift-after=1,return-after=1500 -- "$0" --serve "$work/flow" -- \
    env CARDFLOW_PCSC_LIFT_AFTER=1 CARDFLOW_PCSC_RETURN_AFTER_MS=1500 \
    swift test --skip-build --disable-xctest --filter PCSCCardRemovalFlowTests || status=1

if [[ $status != 0 || $keep_logs == 1 ]]; then
    echo "pcsc-backend-check: pcscd logs in $work (main, cli, removal, flow: pcscd.log each)"
else
    rm -rf "$work"
fi
if [[ $status == 0 ]]; then echo "pcsc-backend-check: OK"; else echo "pcsc-backend-check: FAIL" >&2; fi
exit "$status"
