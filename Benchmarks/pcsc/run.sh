#!/usr/bin/env bash
# pcsc-lite and CardFlow side by side, in the same run: SCardTransmit round trips per second
# through pcscd, against CardFlow (`cardctl shell`) on the equivalent path.
#   (a) in memory: pcscd with a minimal in-memory IFD handler (memory-ifd.c: pure pcsc-lite
#       overhead) vs CardFlow on its in-process simulated reader (`--reader sim:iso7816`);
#   (b) emulated USB: inside `cardctl simulate --card iso7816` (umockdev), pcscd with libccid vs
#       CardFlow's own USB driver (`--reader usb`), on the same emulated reader 1209:2702; once
#       as the scheduler places the processes, once pinned (the emulated bus on CPU 0, each side
#       on CPU 1). Each (b) part runs one warm-up round that is not counted.
# The pcsc-lite client is transmit-loop.c; both sides send SELECT A0000002471001 and check that
# every answer ends in 90 00. CardFlow is timed as one `cardctl shell` session fed 1 and one fed
# 1+N APDUs on stdin; the difference removes process start and session setup. Each part runs
# ROUNDS rounds of both sides; the summary lines give each side's median rate, the median of
# the rounds' CardFlow / pcsc-lite ratios and their spread. In (b) every round is its own `cardctl simulate`
# session: CardFlow first, then pcscd.
#
# Usage: Benchmarks/pcsc/run.sh [--apdus N] [--usb-apdus N] [--rounds R] [--only a|b] [--cardctl PATH]
#   --apdus      APDUs per measurement in memory (default 20000)
#   --usb-apdus  APDUs per measurement over the emulated USB reader (default 1000)
#   --rounds     rounds per part (default 5)
#   --only       run only part a or b
#   --cardctl    the cardctl to time (default: .build/release/cardctl, built with
#                `swift build -c release --product cardctl`)
# Installs what it lacks from Debian packages (apt-get: pcscd libccid libpcsclite-dev pcsc-tools gcc
# pkg-config; (b) also needs umockdev, which it does not install). pcscd's socket is fixed at
# /run/pcscd/pcscd.comm, so a pcscd already running is stopped first (the script says so).
# PCSCD_DEBUG=1 runs pcscd with --debug (its logs are kept when a part fails).
# Output: one line per measurement, then
#   summary in-memory: pcsc-lite R1 APDU/s, CardFlow R2 APDU/s, CardFlow / pcsc-lite X (median of R rounds' ratios, ...)
#   summary usb: ...
# Exit status: 0 both parts measured, 1 a part failed (the message says which and why), 2 setup.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
script="$root/Benchmarks/pcsc/run.sh"
apdu="00A4040007A0000002471001"
answer="6F0D830270018407A00000024710019000"  # the simulator's ISO 7816 card (and memory-ifd.c)
bench="$root/.build/bench"

now_ns() { date +%s%N; }

# Prints "cardflow LABEL N APDUs S s RATE APDU/s ..." for N APDUs on READER: one `cardctl shell`
# session with 1 APDU and one with 1+N (input files prepared by the caller in WORK), timed from
# outside; then checks every answer (cardctl shell prints data and SW in hex, one line each).
# `cardctl shell`, not `apdu --repeat N`: --repeat builds an N-step flow whose construction grows
# as N² (it dominates at 20,000 APDUs), while shell reads and sends one line at a time.
cardflow_rate() {  # CARDCTL LABEL READER N WORK
    local cardctl="$1" label="$2" reader="$3" n="$4" work="$5" t0 t1 t2
    t0=$(now_ns)
    ${PIN:-} "$cardctl" --reader "$reader" shell <"$work/apdus-1.txt" >"$work/answers-1.txt" || return 1
    t1=$(now_ns)
    ${PIN:-} "$cardctl" --reader "$reader" shell <"$work/apdus-$((n + 1)).txt" >"$work/answers-n.txt" || return 1
    t2=$(now_ns)
    local good
    good=$(cat "$work/answers-1.txt" "$work/answers-n.txt" | grep -c -x "$answer" || true)
    if [[ "$good" != $((n + 2)) ]]; then
        echo "cardflow $label: $((n + 2)) APDUs sent, $good answers $answer; others:" >&2
        cat "$work/answers-1.txt" "$work/answers-n.txt" | grep -v -x "$answer" | sort | uniq -c | head -5 >&2
        return 1
    fi
    awk -v l="$label" -v n="$n" -v one=$((t1 - t0)) -v many=$((t2 - t1)) -v r="$reader" 'BEGIN {
        d = (many - one) / 1e9
        if (d <= 0) { print "cardflow " l ": 1+N APDUs took no longer than 1 APDU; use more APDUs" > "/dev/stderr"; exit 1 }
        printf "cardflow %s %d APDUs %.3f s %.1f APDU/s (cardctl --reader %s shell, %.3f s for 1 APDU subtracted)\n", l, n, d, n / d, r, one / 1e9 }'
}

# pcscd handling: one pcscd at a time, always stopped on exit.
pcscd_pid=""
start_pcscd() {  # LOG [pcscd options...]
    local log="$1"; shift
    rm -f /run/pcscd/pcscd.comm /run/pcscd/pcscd.pid  # stale files of a pcscd that was killed hard
    ${PIN:-} pcscd --foreground --info ${PCSCD_DEBUG:+--debug} "$@" >"$log" 2>&1 &
    pcscd_pid=$!
}
stop_pcscd() {
    [[ -n "$pcscd_pid" ]] || return 0
    # SIGINT first: pcscd then closes its readers (libccid releases the USB interface); on SIGTERM
    # it exits at once. Under umockdev pcscd sometimes hangs on SIGINT (before "Stopping reader"),
    # hence SIGTERM after 3 s, then SIGKILL. In (b) that can leave the emulated reader claimed,
    # which is why every (b) round runs pcscd last in its own `cardctl simulate` session.
    local sig
    for sig in INT TERM KILL; do
        kill -s "$sig" "$pcscd_pid" 2>/dev/null || true
        for _ in $(seq 1 30); do kill -0 "$pcscd_pid" 2>/dev/null || break 2; sleep 0.1; done
        [[ $sig == INT && -z "${PCSCD_DEBUG:-}" ]] || echo "pcsc: pcscd $pcscd_pid did not stop on SIG$sig within 3 s" >&2
    done
    wait "$pcscd_pid" 2>/dev/null || true
    pcscd_pid=""
    rm -f /run/pcscd/pcscd.comm /run/pcscd/pcscd.pid
}

# One pcsc-lite measurement: start pcscd, run transmit-loop (it waits up to 20 s for pcscd, the
# reader and the card), stop pcscd. On failure, shows the end of pcscd's log.
pcsc_rate() {  # LABEL READER_SUBSTRING N LOG [pcscd options...]
    local label="$1" want="$2" n="$3" log="$4" status=0
    shift 4
    start_pcscd "$log" "$@"
    # The client does not need the emulated USB bus: keep umockdev's preload out of its syscalls.
    ${PIN:-} env -u LD_PRELOAD "$bench/transmit-loop" -n "$n" -t 20 "$label" "$want" || status=$?
    stop_pcscd
    if [[ $status != 0 ]]; then
        echo "pcsc $label: failed (transmit-loop exit $status); end of pcscd's log:" >&2
        tail -n 20 "$log" >&2
    fi
    return $status
}

# The rates of the measurement lines on stdin ("... RATE APDU/s ..."), one per line, in order.
rates() {
    sed -n 's/.* \([0-9.]*\) APDU\/s.*/\1/p'
}

# Median of the numbers on stdin, one per line.
median_rate_of_numbers() {
    sort -g | awk '{ v[NR] = $1 } END {
        if (NR == 0) exit 1
        printf "%.4f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Median of the rates in the measurement lines on stdin.
median_rate() {
    rates | median_rate_of_numbers
}

# Runs ROUND_COMMAND ROUND for ROUND = 1...ROUNDS (it prints "pcsc ..." and "cardflow ..." lines),
# then the summary line. No pipe around the round command: it must run in this shell, so that
# the EXIT trap sees pcscd_pid.
run_part() {  # NAME N ROUNDS WORK ROUND_COMMAND...
    local name="$1" n="$2" rounds="$3" work="$4"
    shift 4
    local lines="$work/$name.lines" round
    : >"$lines"
    # Over the emulated USB reader the first round ran slower than the rest in every run (its
    # processes page in the code their APDU loop needs as it goes): one round first, not counted.
    if [[ $name == usb* ]] && ! "$@" 0 >"$work/out"; then
        cat "$work/out"
        echo "summary $name: failed: the warm-up round (see the messages above)"
        return 1
    fi
    for round in $(seq 1 "$rounds"); do
        if "$@" "$round" >"$work/out"; then
            tee -a "$lines" <"$work/out"
        else
            cat "$work/out"
            echo "summary $name: failed: round $round (see the messages above)"
            return 1
        fi
    done
    local p c ratio
    p=$(grep '^pcsc ' "$lines" | median_rate) && c=$(grep '^cardflow ' "$lines" | median_rate) \
        || { echo "summary $name: failed: no rates"; return 1; }
    # The ratio is the median of the rounds' own ratios: both sides of a round run seconds apart,
    # rounds minutes apart, and this VM's speed drifts between rounds more than within one.
    local ratios="$work/$name.ratios"
    paste <(grep '^cardflow ' "$lines" | rates) <(grep '^pcsc ' "$lines" | rates) | awk '{ print $1 / $2 }' >"$ratios"
    ratio=$(median_rate_of_numbers <"$ratios") || { echo "summary $name: failed: no ratios"; return 1; }
    # The spread too: a goal such as "1.5x in every round" is about the worst round, not the median.
    local lowest highest
    lowest=$(sort -g "$ratios" | head -n 1) highest=$(sort -g "$ratios" | tail -n 1)
    awk -v name="$name" -v p="$p" -v c="$c" -v x="$ratio" -v r="$rounds" -v n="$n" -v lo="$lowest" -v hi="$highest" 'BEGIN {
        printf "summary %s: pcsc-lite %.1f APDU/s, CardFlow %.1f APDU/s, CardFlow / pcsc-lite %.3f (median of %d rounds'"'"' ratios, %d APDUs each; rounds %.3f to %.3f)\n",
            name, p, c, x, r, n, lo, hi }'
}

# (a) one round: pcsc-lite, then CardFlow.
memory_round() {  # N CARDCTL WORK ROUND
    local n="$1" cardctl="$2" work="$3" round="$4"
    pcsc_rate memory-ifd "PCSC Memory IFD" "$n" "$work/pcscd-in-memory-$round.log" --config "$work/reader.conf" \
        && cardflow_rate "$cardctl" cardflow-sim sim:iso7816 "$n" "$work"
}

# (a) on one CPU: the same with pcscd, transmit-loop and cardctl all pinned to CPU 0. pcsc-lite's
# round trip is two wake-ups of another process; when the scheduler puts client and pcscd on
# different CPUs each costs a cross-CPU wake-up, which on a VM can cut the rate by 4, so the
# unpinned figure depends on placement. On one CPU both sides get the same single CPU.
memory_round_1cpu() {  # N CARDCTL WORK ROUND
    local n="$1" cardctl="$2" work="$3" round="$4"
    PIN="taskset -c 0" pcsc_rate memory-ifd-1cpu "PCSC Memory IFD" "$n" "$work/pcscd-in-memory-1cpu-$round.log" \
        --config "$work/reader.conf" \
        && PIN="taskset -c 0" cardflow_rate "$cardctl" cardflow-sim-1cpu sim:iso7816 "$n" "$work"
}

# (b) one round, in a fresh simulated reader: CardFlow, then pcsc-lite.
usb_round() {  # N CARDCTL WORK ROUND
    local n="$1" cardctl="$2" work="$3" round="$4"
    "$cardctl" simulate --card iso7816 -- "$script" --inner-usb "$n" "$cardctl" "$work" "$round"
}

# (b) pinned: the emulated bus (the `cardctl simulate` process: umockdev's ioctl handler and the
# simulated reader) on CPU 0, each side's own processes (cardctl, or pcscd and transmit-loop) on
# CPU 1. Unpinned, the scheduler moves the client's threads (libusb's event thread and the Swift
# pool, or pcscd's and the client's) between the two CPUs and onto the bus's CPU from round to
# round, and CardFlow's rate moves with it; pinned, each side meets the bus the same way.
usb_round_pinned() {  # N CARDCTL WORK ROUND
    local n="$1" cardctl="$2" work="$3" round="$4"
    taskset -c 0 "$cardctl" simulate --card iso7816 -- "$script" --inner-usb "$n" "$cardctl" "$work" "$round" pinned
}

if [[ "${1:-}" == "--inner-usb" ]]; then
    # Inside `cardctl simulate`: LD_PRELOAD and UMOCKDEV_DIR point at the emulated bus. pcscd
    # loads libccid for the reader by hotplug (its default configuration).
    n="$2" cardctl="$3" work="$4" round="$5" label=usb
    if [[ "${6:-}" == pinned ]]; then PIN="taskset -c 1" label=usb-pinned; fi
    trap stop_pcscd EXIT
    trap 'exit 130' INT TERM
    cardflow_rate "$cardctl" "cardflow-$label" usb "$n" "$work" \
        && pcsc_rate "libccid-$label" CardFlow "$n" "$work/pcscd-$label-$round.log"
    exit $?
fi

apdus=20000 usb_apdus=1000 rounds=5 only="" cardctl=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --apdus) apdus="${2:-}"; shift 2 ;;
        --usb-apdus) usb_apdus="${2:-}"; shift 2 ;;
        --rounds) rounds="${2:-}"; shift 2 ;;
        --only) only="${2:-}"; shift 2 ;;
        --cardctl) cardctl="${2:-}"; shift 2 ;;
        -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "pcsc: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
for v in "$apdus" "$usb_apdus" "$rounds"; do
    [[ "$v" =~ ^[1-9][0-9]*$ ]] || { echo "pcsc: counts must be positive integers, got '$v'" >&2; exit 2; }
done
[[ -z "$only" || "$only" == a || "$only" == b ]] || { echo "pcsc: --only takes a or b" >&2; exit 2; }

# 1. Debian packages, installed only when something is missing.
missing=()
for pkg in pcscd libccid libpcsclite-dev pcsc-tools gcc pkg-config; do
    dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [[ ${#missing[@]} -gt 0 ]]; then
    echo "pcsc: installing ${missing[*]} (apt-get)"
    if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; }; then
        echo "pcsc: FAIL: could not install ${missing[*]}; install them and run again" >&2
        exit 2
    fi
fi

# 2. No other pcscd: the socket path is fixed, and a pcscd outside umockdev cannot see the emulated bus.
if command -v systemctl >/dev/null && systemctl is-active --quiet pcscd.socket pcscd.service 2>/dev/null; then
    echo "pcsc: stopping the system's pcscd (systemctl stop pcscd.socket pcscd.service): it holds /run/pcscd/pcscd.comm"
    systemctl stop pcscd.socket pcscd.service || true
fi
if [[ -f /run/pcscd/pcscd.pid ]]; then
    other="$(cat /run/pcscd/pcscd.pid)"
    if [[ "$other" =~ ^[0-9]+$ ]] && kill -0 "$other" 2>/dev/null; then
        echo "pcsc: stopping the running pcscd (pid $other): it holds /run/pcscd/pcscd.comm"
        kill "$other"
        for _ in $(seq 1 50); do kill -0 "$other" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$other" 2>/dev/null; then echo "pcsc: FAIL: pcscd $other did not stop" >&2; exit 2; fi
    fi
fi
mkdir -p /run/pcscd

# 3. Build: the C parts, and cardctl in release.
cd "$root"
mkdir -p "$bench"
if [[ -z "$cardctl" ]]; then
    swift build -c release --product cardctl >/dev/null || { echo "pcsc: FAIL: swift build -c release --product cardctl" >&2; exit 2; }
    cardctl="$root/.build/release/cardctl"
fi
[[ -x "$cardctl" ]] || { echo "pcsc: FAIL: no cardctl at $cardctl" >&2; exit 2; }
cardctl="$(cd "$(dirname "$cardctl")" && pwd)/$(basename "$cardctl")"
gcc -O2 -Wall -o "$bench/transmit-loop" Benchmarks/pcsc/transmit-loop.c $(pkg-config --cflags --libs libpcsclite)
gcc -O2 -Wall -shared -fPIC -o "$bench/libmemory-ifd.so" Benchmarks/pcsc/memory-ifd.c $(pkg-config --cflags libpcsclite)

work="$(mktemp -d "${TMPDIR:-/tmp}/pcsc-bench.XXXXXX")"
keep_work=0
trap 'stop_pcscd; [[ $keep_work == 1 ]] || rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
# cardctl shell's input: 1 and 1+N APDUs, one per line.
for count in 1 $((apdus + 1)) $((usb_apdus + 1)); do
    yes "$apdu" | head -n "$count" >"$work/apdus-$count.txt" || true
done
echo "pcsc: cardctl $cardctl; $(pcscd --version | head -1); libccid $(dpkg-query -W -f '${Version}' libccid)"
failed=()

# 4. (a) In memory.
if [[ "$only" != b ]]; then
    # DEVICENAME must name an existing file (pcscd checks); the driver ignores it.
    printf 'FRIENDLYNAME "PCSC Memory IFD"\nDEVICENAME /dev/null\nLIBPATH %s\n' "$bench/libmemory-ifd.so" >"$work/reader.conf"
    echo "== (a) in memory: pcscd + memory IFD handler vs CardFlow --reader sim:iso7816, $rounds rounds of $apdus APDUs"
    run_part in-memory "$apdus" "$rounds" "$work" memory_round "$apdus" "$cardctl" "$work" || failed+=("(a) in memory")
    if [[ $(nproc) -gt 1 ]] && command -v taskset >/dev/null; then
        echo "== (a) in memory, everything pinned to CPU 0 (taskset -c 0), $rounds rounds of $apdus APDUs"
        run_part in-memory-1cpu "$apdus" "$rounds" "$work" memory_round_1cpu "$apdus" "$cardctl" "$work" \
            || failed+=("(a) in memory on one CPU")
    fi
fi

# 5. (b) Emulated USB reader, libccid vs CardFlow's driver.
if [[ "$only" != a ]]; then
    echo "== (b) emulated USB reader (cardctl simulate): pcscd + libccid vs CardFlow --reader usb, $rounds rounds of $usb_apdus APDUs"
    if ! command -v umockdev-run >/dev/null; then
        echo "summary usb: failed: umockdev is not installed (apt-get install umockdev)"
        failed+=("(b) emulated USB")
    elif [[ ! -d /usr/lib/pcsc/drivers/ifd-ccid.bundle ]]; then
        echo "summary usb: failed: libccid's bundle is missing from /usr/lib/pcsc/drivers"
        failed+=("(b) emulated USB")
    else
        run_part usb "$usb_apdus" "$rounds" "$work" usb_round "$usb_apdus" "$cardctl" "$work" || failed+=("(b) emulated USB")
        echo "== (b) pinned: the emulated bus on CPU 0, each side on CPU 1, $rounds rounds of $usb_apdus APDUs"
        run_part usb-pinned "$usb_apdus" "$rounds" "$work" usb_round_pinned "$usb_apdus" "$cardctl" "$work" \
            || failed+=("(b) emulated USB, pinned")
    fi
fi

if [[ ${#failed[@]} -gt 0 ]]; then
    keep_work=1
    echo "pcsc: FAIL: ${failed[*]} (pcscd logs kept in $work)" >&2
    exit 1
fi
