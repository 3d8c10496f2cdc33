#!/usr/bin/env bash
# Differential check of CardFlow's CCID driver against pcsc-lite's (libccid): for each reader
# profile (a descriptor dump in the fixtures) and each simulated card, the same APDU script runs
# once through pcscd + libccid (Scripts/pcsc-apdu.pl, SCardTransmit) and once through CardFlow's
# own driver (`cardctl --reader usb apdu --raw`), each under its own
# `cardctl simulate --reader-profile P --card CARD` (a fresh simulated reader and card), and the
# answers (data and SW1 SW2) must be byte-identical.
#
# Usage:
#   Scripts/ccid-differential.sh [--subset] [--frames] [--keep-logs] [--cards LIST] [--results DIR] [--cardctl PATH]
#                                [--unlisted overlay|skip] [--timeout S] [--fixtures DIR] [PROFILE...]
#     PROFILE     dumps of the fixtures folder, by file name (default: every dump there)
#     --subset    the CI subset: the first profiles by file name of every exchange level x
#                 protocol set x message-length class (<=271, <=1034, larger), at least 40;
#                 implies --frames
#     --frames    also compare the CCID messages (see "Frames" below)
#     --keep-logs keep pcscd's log of every run (profiles/NAME/CARD/pcscd.log; by default only
#                 those of runs that were not identical)
#     --cards     simulated cards, separated by ';', each as `cardctl simulate --card` takes it
#                 (default: 'apdu-test;apdu-test,contact=t0', a T=1 and a T=0 card; see
#                 "Protocols" below; 'apdu-test,contact=t1,edc=crc' is a T=1 card with CRC)
#     --results   folder for results.tsv, summary.txt and per-profile logs
#                 (default: .build/ccid-differential, git-ignored)
#     --cardctl   the cardctl to use (default: .build/debug/cardctl, built when missing)
#     --unlisted  readers whose VID:PID Debian's libccid does not list: run pcscd in a private
#                 mount namespace with an Info.plist that adds the VID:PID (overlay, the default
#                 when `unshare -m` works), or skip them (skip)
#     --timeout   seconds allowed to each stack's run of one profile (default 60)
#     --fixtures  folder of the dumps (default: Tests/Fixtures/ccid-readers, or
#                 $CCID_FIXTURES)
#
# The APDU script (every APDU in its shortest encoding, because cardctl parses APDUs into
# CardFlow's CommandAPDU and writes them back shortest-form): SELECT, the four ISO 7816-4 cases
# (case 2 with Le 1, 16, 255 and 256), 61xx answers and their GET RESPONSEs sent explicitly,
# 6Cxx answers and the re-issue, 6A82; then, where the reader carries extended APDUs (extended
# APDU level, or TPDU level with T=1, which chains blocks), extended cases 2, 3 and 4 with 257 to
# 4096 bytes and an extended GET RESPONSE. Segments are separated by a fresh card session.
#
# Normalisation (what is compared): the response bytes of every APDU, exactly. When both stacks
# refuse the same APDU (SCardTransmit fails, cardctl reports an error), that counts as the same
# answer: the error texts belong to each stack and are not compared. After the first APDU of a
# segment on which the stacks part, the segment's later APDUs are not compared. One known
# difference is reported as such and does not fail the run: where an answer is longer than one
# DataBlock of the reader (short APDU level, or a reader libccid and CardFlow force to it), the
# simulated reader chains it with bChainParameter; libccid 1.5.2 reads one DataBlock and returns
# its bytes without SW, CardFlow follows the chain and returns the whole answer. Neither stack
# follows 61xx or 6Cxx here (T=1 and APDU-level readers pass them on, and cardctl runs --raw):
# the script sends GET RESPONSE and the re-issue itself, so both see what an application sees.
#
# Protocols: a profile runs with a card when its dwProtocols has that card's protocol. The
# default cards are the contactless-style T=1 APDU test card and the same card as a T=0-only
# contact card (`apdu-test,contact=t0`). At T=0, pcsc-lite returns 61xx and 6Cxx to the
# application, while CardFlow's T=0 layer at TPDU level does what ISO/IEC 7816-4's T=0
# transport does (GET RESPONSE, re-issue with P3 = xx): for TPDU readers the PC/SC client
# applies the same rules (pcsc-apdu.pl --t0-transport), so what is compared is what an
# application sees. At APDU level the reader runs T=0 and both stacks pass its answers on.
#
# Frames (--frames; CI's --subset turns it on): besides the answers, the CCID messages. pcscd's
# log of the run (LIBCCID_ifdLogLevel=7: every message libccid sent and got) is replayed through
# CardFlow's driver (`cardctl transcript-check` with the profile's dump), which must send the
# messages libccid sent, in order, and return what pcscd returned (the replay's tolerance rules:
# bSeq, bBWI and bPowerSelect are the host's; a T=0 case 1 command may carry P3 = 00; T=0
# follow-ups libccid's application sent are the driver's own). The frames column says identical,
# known (a reasoned difference, below) or differs (the first frame or outcome that differs);
# a run whose frames differ fails. At character level the replay serves the card's I/O line in
# the host's own steps (libccid reads a T=1 block's prologue, then the rest, CardFlow the prologue
# with the EDC; after a T=0 command's data libccid waits for one procedure byte, CardFlow for SW1
# SW2): the bytes to the card must be the same, in order. Known, with the reason:
#   - T=1 at character level on a reader with short messages: libccid cuts a long command into
#     blocks that fit one XfrBlock (IFSC 32 on the Winbond), CardFlow into blocks of the card's
#     IFSC sent over several XfrBlocks (both valid: ISO/IEC 7816-3 lets the host send blocks up
#     to IFSC);
#   - an APDU-level reader without automatic PPS: libccid sends the PPS request as an XfrBlock,
#     which such a reader takes for an APDU (the simulated one answers it 6E 00 and libccid reads
#     that as the PPS confirmation); CardFlow leaves PPS to the reader at APDU level;
#   - a reader with several interfaces: pcscd polls the others' slots in the same log, which the
#     one-interface replay answers with stand-ins (only slot statuses differ);
#   - the answers' known difference (a DataBlock chained with bChainParameter at short APDU
#     level): CardFlow asks for the rest, libccid does not;
#   - a command both refused: pcscd after the reader's error, CardFlow with an error of its own
#     (for example a TPDU longer than the reader's dwMaxCCIDMessageLength, which CardFlow does
#     not send).
#
# Classification per profile and card: identical; differing (both answered, bytes differ);
# card-model-mismatch (T=1 runs of the APDU test card: CardFlow's answer is not the one the
# card's documented command set gives, Scripts/apdu-test-oracle.py — pcscd's too when both agree:
# identical garbage fails the run);
# libccid-only failure (pcscd/libccid failed where CardFlow answered: its log line is kept);
# CardFlow-only failure (a CardFlow bug); both-failed; skipped (protocol not offered by the
# reader; VID:PID unknown to libccid with --unlisted skip; dump the simulator cannot load).
# Character-level readers run like TPDU readers: both hosts drive T=0 procedure bytes and T=1
# blocks over the simulated card's I/O line, so the T=0 transport rules and the extended segment
# (T=1) apply to them too.
#
# Profiles run one at a time: pcscd's socket (/run/pcscd) is global. Needs umockdev, pcscd,
# libccid, pcsc-tools (pcsc_scan) and libpcsc-perl; no other pcscd may run.
#
# Exit status: 0 no differing profile and no CardFlow-only failure, 1 otherwise, 2 setup problem.
set -euo pipefail

# ---------------------------------------------------------------------------------------------
# Inner parts, run under `cardctl simulate` (LD_PRELOAD and UMOCKDEV_DIR point at the bus).

# pcscd + libccid: starts pcscd (in a private mount namespace with an Info.plist overlay when
# one is given), waits for the readers, runs the APDU script, stops pcscd.
if [[ "${1:-}" == "--inner-pcscd" ]]; then
    dir="$2" interfaces="$3" overlay="$4" client="$5"
    log="$dir/pcscd.log"
    if [[ -n "$overlay" ]]; then
        plist=/usr/lib/pcsc/drivers/ifd-ccid.bundle/Contents/Info.plist
        # unshare and bash exec: $! is pcscd itself.
        unshare -m --propagation private bash -c \
            'mount --bind "$1" "$2" && exec env LIBCCID_ifdLogLevel=7 pcscd --foreground --debug --apdu' _ "$overlay" "$plist" >"$log" 2>&1 &
    else
        LIBCCID_ifdLogLevel=7 pcscd --foreground --debug --apdu >"$log" 2>&1 &
    fi
    pcscd_pid=$!
    # SIGTERM: pcscd leaves at once and removes its socket; the simulated reader goes with it.
    trap 'kill "$pcscd_pid" 2>/dev/null || true; wait "$pcscd_pid" 2>/dev/null || true' EXIT
    readers=""
    # Poll until every interface of the profile is listed (at most 5 s, then use what is there).
    for _ in $(seq 1 50); do
        # vpcd (vsmartcard), when installed, adds "Virtual PCD" readers from reader.conf: not ours.
        readers=$(timeout 5 pcsc_scan -r 2>/dev/null | sed -n 's/^[0-9]*: //p' | grep -v '^Virtual PCD ' || true)
        [[ -n "$readers" && $(printf '%s\n' "$readers" | wc -l) -ge "$interfaces" ]] && break
        kill -0 "$pcscd_pid" 2>/dev/null || break
        sleep 0.1
    done
    if [[ -z "$readers" ]]; then
        echo "SETUP pcscd listed no reader"
        exit 0
    fi
    # The card sits on the first interface, which pcscd numbers 00.
    reader=$(printf '%s\n' "$readers" | grep -m1 ' 00 00$' || printf '%s\n' "$readers" | head -n1)
    client_options=()
    [[ -s "$dir/client-options" ]] && read -r -a client_options <"$dir/client-options"
    if ! timeout 60 "$client" "${client_options[@]}" "$reader" <"$dir/script.txt" 2>"$dir/pcscd-client.err"; then
        echo "SETUP $(head -n1 "$dir/pcscd-client.err")"
    fi
    exit 0
fi

# CardFlow: one `cardctl --reader usb apdu --raw` run (one card session) per segment.
if [[ "${1:-}" == "--inner-cardflow" ]]; then
    dir="$2" cardctl="$3"
    segment=()
    run_segment() {
        [[ ${#segment[@]} -eq 0 ]] && return 0
        local out err status=0
        out=$("$cardctl" --reader usb apdu --raw "${segment[@]}" 2>"$dir/cardflow.err") || status=$?
        local answered=0
        while IFS= read -r line; do
            [[ -z "$line" ]] && continue
            echo "OK ${line// /}"
            answered=$((answered + 1))
        done <<<"$out"
        if [[ $status -ne 0 ]]; then
            err=$(grep -m1 . "$dir/cardflow.err" || echo "exit status $status")
            echo "$err" >>"$dir/cardflow-errors.txt"
            echo "ERR $err"
            answered=$((answered + 1))
        fi
        for ((i = answered; i < ${#segment[@]}; i++)); do echo "NOTRUN"; done
        segment=()
    }
    while IFS= read -r line; do
        line="${line// /}"
        [[ -z "$line" ]] && continue
        if [[ "$line" == "--" ]]; then run_segment; continue; fi
        segment+=("$line")
    done <"$dir/script.txt"
    run_segment
    exit 0
fi

# ---------------------------------------------------------------------------------------------
# Outer part.

root=$(cd "$(dirname "$0")/.." && pwd)
self="$root/Scripts/$(basename "$0")"
cardctl="$root/.build/debug/cardctl"
results="$root/.build/ccid-differential"
fixtures="${CCID_FIXTURES:-$root/Tests/Fixtures/ccid-readers}"
cards="apdu-test;apdu-test,contact=t0"
subset=0
frames=0
keep_logs=0
unlisted=""
limit=60
profiles=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --subset) subset=1; frames=1; shift ;;
        --frames) frames=1; shift ;;
        --keep-logs) keep_logs=1; shift ;;
        --cards) cards="$2"; shift 2 ;;
        --results) results="$2"; shift 2 ;;
        --cardctl) cardctl="$2"; shift 2 ;;
        --unlisted) unlisted="$2"; shift 2 ;;
        --timeout) limit="$2"; shift 2 ;;
        --fixtures) fixtures="$2"; shift 2 ;;
        -h|--help) sed -n '2,60p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "ccid-differential: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) profiles+=("$1"); shift ;;
    esac
done

for tool in pcscd pcsc_scan umockdev-wrapper perl; do
    command -v "$tool" >/dev/null || { echo "ccid-differential: $tool not found (Scripts/setup.sh installs it)" >&2; exit 2; }
done
perl -MChipcard::PCSC -e 1 2>/dev/null || { echo "ccid-differential: Chipcard::PCSC missing (apt-get install libpcsc-perl)" >&2; exit 2; }
if [[ -f /run/pcscd/pcscd.pid ]] && kill -0 "$(cat /run/pcscd/pcscd.pid)" 2>/dev/null; then
    echo "ccid-differential: another pcscd is running (pid $(cat /run/pcscd/pcscd.pid)); it holds /run/pcscd. Stop it first." >&2
    exit 2
fi
[[ -d "$fixtures" ]] || { echo "ccid-differential: no fixtures folder $fixtures" >&2; exit 2; }
if [[ ! -x "$cardctl" ]]; then
    echo "ccid-differential: building cardctl" >&2
    (cd "$root" && swift build --product cardctl >&2) || exit 2
fi
plist=/usr/lib/pcsc/drivers/ifd-ccid.bundle/Contents/Info.plist
[[ -f "$plist" ]] || { echo "ccid-differential: libccid's $plist not found (apt-get install libccid)" >&2; exit 2; }
if [[ -z "$unlisted" ]]; then
    if [[ $(id -u) -eq 0 ]] && unshare -m --propagation private true 2>/dev/null; then unlisted=overlay; else unlisted=skip; fi
fi
[[ "$unlisted" == overlay || "$unlisted" == skip ]] || { echo "ccid-differential: --unlisted takes overlay or skip" >&2; exit 2; }

# VID:PID pairs libccid drives (lowercase vvvv:pppp), from the parallel arrays of Info.plist.
listed=$(awk '
    /<key>ifdVendorID<\/key>/ { key = "v"; next }
    /<key>ifdProductID<\/key>/ { key = "p"; next }
    /<key>/ || /<\/array>/ { key = ""; next }
    key != "" && /<string>/ {
        s = $0; gsub(/.*<string>(0x|0X)?|<\/string>.*/, "", s); s = tolower(s)
        while (length(s) < 4) s = "0" s
        if (key == "v") v[nv++] = s; else p[np++] = s
    }
    END { for (i = 0; i < nv; i++) print v[i] ":" p[i] }' "$plist" | sort -u)

# describe FILE...: one line per dump, "name vid pid level protocols length interfaces" (level:
# character, tpdu, short, extended; protocols: T0, T1, T0+T1, none; length:
# dwMaxCCIDMessageLength), from the first interface block (the one the card sits on). Files
# that are not dumps give no line. One awk pass: hundreds of files take a moment.
describe() {
    local name vid pid features protocols length interfaces level set
    awk '
        function emit() {
            if (name != "" && v != "" && p != "" && f != "" && pr != "" && l != "") print name, v, p, f, pr, l, n
        }
        FNR == 1 { emit(); name = FILENAME; sub(/.*\//, "", name); v = p = f = pr = l = ""; n = 0 }
        { sub(/\r$/, "") }
        $1 == "idVendor:" && v == "" { v = $2 }
        $1 == "idProduct:" && p == "" { p = $2 }
        $1 == "dwFeatures:" && f == "" { f = $2 }
        $1 == "dwProtocols:" && pr == "" { pr = $3 }
        $1 == "dwMaxCCIDMessageLength:" && l == "" { l = $2 }
        /CCID Class Descriptor/ { n++ }
        END { emit() }' "$@" |
    while read -r name vid pid features protocols length interfaces; do
        case $((features & 0x70000)) in
            0) level=character ;; $((0x10000))) level=tpdu ;; $((0x20000))) level=short ;; *) level=extended ;;
        esac
        case $((protocols & 3)) in 1) set=T0 ;; 2) set=T1 ;; 3) set=T0+T1 ;; *) set=none ;; esac
        printf '%s %04x %04x %s %s %s %s\n' "$name" "$((vid))" "$((pid))" "$level" "$set" "$length" "$interfaces"
    done
}

length_class() { if (($1 <= 271)); then echo "<=271"; elif (($1 <= 1034)); then echo "<=1034"; else echo ">1034"; fi; }

# Every dump (supported_readers.txt is a list, not a dump: describe gives nothing for it).
all_profiles() { find "$fixtures" -maxdepth 1 -name '*.txt' -printf '%f\n' | LC_ALL=C sort; }

if [[ ${#profiles[@]} -eq 0 ]]; then
    mapfile -t profiles < <(all_profiles)
    if [[ $subset == 1 ]]; then
        # Every class (level x protocol set x length class), the first by file name among the
        # readers libccid lists (no overlay needed in CI); as many per class as it takes to reach
        # 40, at most 3.
        declare -A class_members=()
        declare -A listed_set=()
        for pair in $listed; do listed_set[$pair]=1; done
        while read -r name vid pid level set length _; do
            [[ -n "${listed_set[$vid:$pid]:-}" ]] || continue
            key="$level $set $(length_class "$length")"
            class_members[$key]+="$name "
        done < <(cd "$fixtures" && describe "${profiles[@]}")
        # Protocols the cards speak: a class whose readers offer none of them is chosen all the
        # same, for when they do, but does not count towards the 40.
        wanted="T1"
        [[ "$cards" == *contact=t0* ]] && wanted="T0|T1"
        chosen=()
        for per_class in 1 2 3 4; do
            chosen=() runnable=0
            for key in $(printf '%s\n' "${!class_members[@]}" | tr ' ' '_' | LC_ALL=C sort); do
                read -ra members <<<"${class_members[${key//_/ }]}"
                picked=("${members[@]:0:per_class}")
                chosen+=("${picked[@]}")
                read -r level set _ <<<"${key//_/ }"
                grep -qE "$wanted" <<<"$set" && runnable=$((runnable + ${#picked[@]}))
            done
            [[ $runnable -ge 40 ]] && break
        done
        profiles=("${chosen[@]}")
    fi
fi

# ---------------------------------------------------------------------------------------------
# The APDU script.

# hexbytes COUNT START: COUNT bytes (i * 7 + START) mod 256, as hex.
hexbytes() { local i out=""; for ((i = 0; i < $1; i++)); do printf -v out '%s%02X' "$out" $(((i * 7 + $2) & 255)); done; echo "$out"; }
d8=$(hexbytes 8 1) d16=$(hexbytes 16 2) d255=$(hexbytes 255 3) d256=$(hexbytes 256 4) d1024=$(hexbytes 1024 5)
aid=F0434641504455
short_script="00A4040007$aid
80100000
8020000001
8020050010
80200000FF
8020000000
8030000010$d16
8032000004
80300000FF$d255
8032000004
8040000008${d8}00
80400000FF${d255}00
80500020
00C0000020
8050012C
00C0000000
00C000002C
805000000401020304
00C0000004
8060100020
8060100010
80600000FF
8060000000
00A4040007A0000002471001
80100000"
extended_script="80200000000101
80200000000400
80200000001000
80300000000100$d256
8032000004
80300000000400$d1024
8032000004
80400000000400${d1024}0400
80400000000100${d256}0000
80500400
00C00000000400
80100000"

# ---------------------------------------------------------------------------------------------
# One profile with one card.

mkdir -p "$results"
tsv="$results/results.tsv"
printf 'profile\tcard\tprotocol\tlevel\tprotocols\tmax_message\tlibccid_lists\tclass\tapdus\tsame\tboth_refused\tdiffering\tlibccid_failed\tcardflow_failed\tnot_compared\tseconds\tdetail\tframes\n' >"$tsv"

record() { printf '%s\t' "$@" | sed 's/\t$//' >>"$tsv"; printf '\n' >>"$tsv"; }

# libccid's own account of a failure: the first error-looking line of its log.
libccid_line() {
    local log="$1"
    [[ -f "$log" ]] || { echo "no pcscd log"; return; }
    # libccid's own failure reports first ("… failed", "Wrong …"); informational lines that
    # merely mention a timeout come before them in the log.
    grep -m1 -E '(ccid_usb|commands|ifdhandler|ccid|protocol_t1|proto-t1|atr|pps|utils)\.c:[0-9]+:.*( failed|Wrong |not supported|bogus)' "$log" \
        | cut -c1-300 && return
    grep -m1 -E '(ccid_usb|commands|ifdhandler|ccid|protocol_t1|proto-t1|atr|pps|utils)\.c:[0-9]+:.*([Ff]ail|[Ee]rror|bogus|[Cc]an.t|not supported|[Nn]ot [a-z]+ed|[Tt]oo |[Tt]imeout|unsupported|refused|busy)' "$log" \
        | cut -c1-300 || tail -n1 "$log" | cut -c1-300
}

# answer_summary "OK HEX": the length of the answer, its SW (its last two bytes) and its start.
answer_summary() {
    local hex="${1#OK }"
    [[ "$1" == OK* ]] || { echo "${1:0:80}"; return; }
    echo "$((${#hex} / 2)) bytes, ends ${hex: -4}, starts ${hex:0:16}"
}

run_profile() {
    local name="$1" card="$2" file="$fixtures/$1" started=$SECONDS
    local vid="" pid level set length interfaces
    read -r _ vid pid level set length interfaces < <(describe "$file") || true
    local protocol=T1
    [[ "$card" == *contact=t0* ]] && protocol=T0
    local dir="$results/profiles/${name%.txt}/${card//[^A-Za-z0-9=_-]/_}"
    rm -rf "$dir" && mkdir -p "$dir"
    if [[ -z "${vid:-}" ]]; then
        record "$name" "$card" "T=${protocol#T}" - - - - skipped 0 0 0 0 0 0 0 0 "not a reader dump the script can read"
        return
    fi
    local lists=yes overlay=""
    grep -qx "$vid:$pid" <<<"$listed" || lists=no
    local row=("$name" "$card" "T=${protocol#T}" "$level" "$set" "$length" "$lists")
    if [[ $set != *"$protocol"* ]]; then
        record "${row[@]}" skipped 0 0 0 0 0 0 0 0 "the reader's dwProtocols ($set) has no T=${protocol#T}"
        return
    fi
    if [[ $lists == no ]]; then
        if [[ $unlisted == skip ]]; then
            record "${row[@]}" skipped 0 0 0 0 0 0 0 0 "VID:PID $vid:$pid is not in libccid's Info.plist"
            return
        fi
        overlay="$dir/Info.plist"
        sed -e "/<key>ifdVendorID<\/key>/{n;s|<array>|<array><string>0x$vid</string>|}" \
            -e "/<key>ifdProductID<\/key>/{n;s|<array>|<array><string>0x$pid</string>|}" \
            -e "/<key>ifdFriendlyName<\/key>/{n;s|<array>|<array><string>Overlay ${name%.txt}</string>|}" "$plist" >"$overlay"
    fi

    # The card model's own answers (Scripts/apdu-test-oracle.py, from the APDU test card's
    # documented command set), where an application sees them unchanged: T=1 at every level
    # (61xx and 6Cxx pass through). Two stacks that agree on anything else agree on garbage.
    local oracle=0
    [[ "$card" == apdu-test* && $protocol == T1 ]] && oracle=1
    { echo "$short_script"
      if [[ $level == extended || ( ( $level == tpdu || $level == character ) && $protocol == T1 ) ]]; then echo "--"; echo "$extended_script"; fi
    } >"$dir/script.txt"
    local apdus
    apdus=$(grep -cv -e '^--$' -e '^$' "$dir/script.txt")
    local -a expected=()
    if ((oracle)); then mapfile -t expected < <(python3 "$root/Scripts/apdu-test-oracle.py" <"$dir/script.txt"); fi
    # Only at TPDU and character level does the host run T=0's transport (at APDU level the reader does).
    if [[ $level == tpdu || $level == character ]]; then echo "--t0-transport" >"$dir/client-options"; else : >"$dir/client-options"; fi

    local status=0
    timeout "$limit" "$cardctl" simulate --reader-profile "$file" --card "$card" -- \
        "$self" --inner-pcscd "$dir" "$interfaces" "$overlay" "$root/Scripts/pcsc-apdu.pl" >"$dir/pcscd.out" 2>"$dir/pcscd-simulate.err" || status=$?
    [[ $status -eq 0 ]] || echo "SETUP pcscd side: cardctl simulate exit $status: $(grep -m1 . "$dir/pcscd-simulate.err" || true)" >>"$dir/pcscd.out"
    status=0
    timeout "$limit" "$cardctl" simulate --reader-profile "$file" --card "$card" -- \
        "$self" --inner-cardflow "$dir" "$cardctl" >"$dir/cardflow.out" 2>"$dir/cardflow-simulate.err" || status=$?
    [[ $status -eq 0 ]] || echo "SETUP CardFlow side: cardctl simulate exit $status: $(grep -m1 . "$dir/cardflow-simulate.err" || true)" >>"$dir/cardflow.out"

    # The simulator could not load the dump: neither stack ran.
    if grep -q '^SETUP pcscd side: cardctl simulate' "$dir/pcscd.out" && grep -q '^SETUP CardFlow side: cardctl simulate' "$dir/cardflow.out" \
        && ! grep -q '^OK' "$dir/cardflow.out"; then
        record "${row[@]}" skipped "$apdus" 0 0 0 0 0 0 $((SECONDS - started)) "simulator: $(grep -m1 . "$dir/cardflow-simulate.err" | cut -c1-200)"
        return
    fi

    local proto_seen
    proto_seen=$(sed -n 's/^PROTOCOL //p' "$dir/pcscd.out")
    # The card model's answers are T=1's: where the card stays at its default protocol T=0 the
    # run is T=0's (pcsc-lite chose T=0, or an O2Micro reader, through which neither stack sends a
    # PPS: CardFlow's quirk table and libccid's "PPS not supported on O2Micro readers").
    if [[ $proto_seen == "T=0" || $vid == 0b97 ]]; then oracle=0; fi
    # Align both outputs with the script: one answer line per APDU, segment by segment.
    local -a left=() right=() segment_of=()
    mapfile -t left < <(grep -E '^(OK|ERR|NOTRUN)' "$dir/pcscd.out" || true)
    mapfile -t right < <(grep -E '^(OK|ERR|NOTRUN)' "$dir/cardflow.out" || true)
    local seg=0
    while IFS= read -r line; do
        [[ -z "$line" ]] && continue
        if [[ "$line" == "--" ]]; then seg=$((seg + 1)); continue; fi
        segment_of+=("$seg")
    done <"$dir/script.txt"
    local left_setup right_setup
    left_setup=$(grep -m1 '^SETUP' "$dir/pcscd.out" | cut -c7- || true)
    right_setup=$(grep -m1 '^SETUP' "$dir/cardflow.out" | cut -c7- || true)

    local model_mismatch=0 model_detail=""
    local known=0 same=0 refused=0 differing=0 libccid_failed=0 cardflow_failed=0 not_compared=0 parted_segment=-1 detail=""
    local i a b
    local -a script_lines=()
    mapfile -t script_lines < <(grep -v -e '^--$' -e '^$' "$dir/script.txt")
    for ((i = 0; i < apdus; i++)); do
        if [[ ${segment_of[$i]} == "$parted_segment" ]]; then not_compared=$((not_compared + 1)); continue; fi
        a="${left[$i]:-ERR ${left_setup:-no answer}}" b="${right[$i]:-ERR ${right_setup:-no answer}}"
        if ((oracle)) && [[ "$b" == OK* && "$b" != "${expected[$i]}" ]]; then
            # CardFlow returned what the card did not say (and pcscd too when a == b).
            model_mismatch=$((model_mismatch + 1))
            [[ -n "$model_detail" ]] || model_detail="APDU ${script_lines[$i]:0:24}: the card model answers $(answer_summary "${expected[$i]}"), CardFlow $(answer_summary "$b")$([[ "$a" != "$b" ]] || echo ", pcscd the same")"
        fi
        if [[ "$a" == "$b" ]]; then same=$((same + 1)); continue; fi
        if [[ "$a" == ERR* && "$b" == ERR* ]]; then refused=$((refused + 1)); continue; fi
        parted_segment=${segment_of[$i]}
        local apdu="${script_lines[$i]}"
        ((${#apdu} <= 24)) || apdu="${apdu:0:24}…($(((${#apdu}) / 2)) bytes)"
        local first_block=$(((length - 10) * 2))
        if [[ "$a" == OK* && "$b" == OK* && $((${#a} - 3)) -eq $first_block && "$b" == "$a"?* ]]; then
            # Known: an answer longer than one DataBlock at short APDU level (or a reader forced
            # to it), which the simulated reader chains with bChainParameter. libccid reads one
            # DataBlock and returns its bytes without SW; CardFlow follows the chain.
            known=$((known + 1))
            [[ -n "$detail" ]] || detail="known: APDU $apdu: libccid returned the first DataBlock ($(answer_summary "$a")); CardFlow followed bChainParameter ($(answer_summary "$b"))"
        elif [[ "$a" == OK* && "$b" == OK* ]]; then
            differing=$((differing + 1))
            [[ -n "$detail" ]] || detail="APDU $apdu: pcscd $(answer_summary "$a") vs CardFlow $(answer_summary "$b")"
        elif [[ "$b" == OK* ]]; then
            libccid_failed=$((libccid_failed + 1))
            [[ -n "$detail" ]] || detail="APDU $apdu: pcscd ${a:0:120}; libccid: $(libccid_line "$dir/pcscd.log")"
        elif [[ "$a" == OK* ]]; then
            cardflow_failed=$((cardflow_failed + 1))
            [[ -n "$detail" ]] || detail="APDU $apdu: CardFlow ${b:0:200}; pcscd $(answer_summary "$a")"
        else
            # One stack refused, the other did not run it: both failed, differently.
            libccid_failed=$((libccid_failed + 1)) cardflow_failed=$((cardflow_failed + 1))
            [[ -n "$detail" ]] || detail="APDU $apdu: pcscd ${a:0:80}; CardFlow ${b:0:80}; libccid: $(libccid_line "$dir/pcscd.log")"
        fi
    done
    local class=identical
    if ((model_mismatch > 0)); then class=card-model-mismatch detail="$model_detail"
    elif ((differing > 0)); then class=differing
    elif ((known > 0 && libccid_failed == 0 && cardflow_failed == 0)); then class=known-difference
    elif ((libccid_failed > 0 && cardflow_failed > 0)); then class=both-failed
    elif ((cardflow_failed > 0)); then class=cardflow-only-failure
    elif ((libccid_failed > 0)); then class=libccid-only-failure
    fi
    [[ -n "$proto_seen" && "$proto_seen" != "T=${protocol#T}" ]] && detail="pcsc-lite chose $proto_seen; $detail"
    [[ $lists == no ]] && detail="libccid Info.plist overlay; $detail"
    local frames_verdict="-"
    if ((frames)) && [[ $class == identical || $class == known-difference ]]; then
        frames_verdict=$(frames_of "$dir/pcscd.log" "$name" "$level" "$interfaces" "$class")
    fi
    record "${row[@]}" "$class" "$apdus" "$same" "$refused" "$differing" "$libccid_failed" "$cardflow_failed" "$not_compared" \
        $((SECONDS - started)) "${detail:-}" "$frames_verdict"
    # Keep the logs of interesting runs only.
    if ((!keep_logs)) && [[ $class == identical && $frames_verdict != differs* ]]; then rm -f "$dir/pcscd.log" "$dir/Info.plist"; fi
    printf '%-60s %-22s %s\n' "$name" "$class" "${detail:0:150}" >&2
    [[ $frames_verdict == "-" || $frames_verdict == identical ]] || printf '%-60s frames: %s\n' "" "${frames_verdict:0:150}" >&2
}

# t1_block_sizes_differ MISMATCH: the host's and the recorded XfrBlock both start a T=1 I-block
# (NAD 00), of different lengths.
t1_block_sizes_differ() {
    local host recorded
    host=$(sed -n 's/.*host sent -> 6F\( [0-9A-F][0-9A-F]\)\{9\} 00 \([0246]0\) \([0-9A-F][0-9A-F]\).*/\2 \3/p' <<<"$1")
    recorded=$(sed -n 's/.*expected -> 6F\( [0-9A-F][0-9A-F]\)\{9\} 00 \([0246]0\) \([0-9A-F][0-9A-F]\).*/\2 \3/p' <<<"$1")
    [[ -n $host && -n $recorded && ${host#* } != "${recorded#* }" ]]
}

# frames_of LOG PROFILE LEVEL INTERFACES CLASS: pcscd's log of a run replayed through CardFlow's driver (see
# "Frames" above): identical, known: REASON, or differs: WHAT.
frames_of() {
    local log="$1" profile="$2" level="$3" interfaces="$4" class="$5" out status=0
    [[ -f "$log" ]] || { echo "differs: no pcscd log"; return; }
    out=$("$cardctl" transcript-check --fixtures "$fixtures" --reader-profile "$fixtures/$profile" "$log" 2>/dev/null) \
        || status=$?
    if [[ $status -eq 0 ]]; then echo identical; return; fi
    local mismatch differing
    mismatch=$(grep -m1 'mismatch at' <<<"$out" | sed 's/^ *//' || true)
    differing=$(grep -- '<-- differs' <<<"$out" | sed 's/^ *//' || true)
    if [[ $level == character ]] && t1_block_sizes_differ "$mismatch"; then
        echo "known: T=1 at character level, libccid cuts commands into blocks that fit one message, CardFlow into the card's IFSC over several"
    elif [[ $level == short || $level == extended ]] && [[ $mismatch =~ expected\ -\>\ 6F\ ..\ 00\ 00\ 00\ 00\ ..\ ..\ ..\ ..\ FF ]]; then
        echo "known: libccid sent a PPS request as an XfrBlock to an APDU-level reader"
    elif ((interfaces > 1)) && [[ -z $mismatch && -n $differing ]] && ! grep -qv '^slot status' <<<"$differing"; then
        echo "known: another interface's slot statuses in the same log"
    elif [[ $class == known-difference && $mismatch =~ host\ sent\ -\>\ 6F\ 00\ 00\ 00\ 00\ 00\ ..\ ..\ 10\ 00\; ]]; then
        echo "known: CardFlow follows bChainParameter where libccid returned the first DataBlock (the answers' known difference)"
    elif [[ -z $mismatch && -n $differing ]] && ! grep -qv ' → failure (.*CardFlow: error: ' <<<"$differing"; then
        echo "known: both refused the command (pcscd after the reader's error, CardFlow with an error of its own)"
    else
        echo "differs: ${mismatch:-$(head -n1 <<<"${differing:-exit status $status}")}"
    fi
}

IFS=';' read -ra card_list <<<"$cards"
begin=$SECONDS
for name in "${profiles[@]}"; do
    name=$(basename "$name")
    [[ -f "$fixtures/$name" ]] || { echo "ccid-differential: no profile $fixtures/$name" >&2; exit 2; }
    for card in "${card_list[@]}"; do run_profile "$name" "$card"; done
done

# ---------------------------------------------------------------------------------------------
# Summary.

summary="$results/summary.txt"
{
    echo "ccid-differential: ${#profiles[@]} profiles x ${#card_list[@]} card(s) ($cards) in $((SECONDS - begin)) s"
    awk -F'\t' 'NR > 1 { runs++; class[$8]++; if ($8 == "skipped") reason[$17]++ }
        END {
            printf "runs (profile x card): %d\n", runs
            n = split("identical known-difference differing card-model-mismatch libccid-only-failure cardflow-only-failure both-failed skipped", order, " ")
            for (i = 1; i <= n; i++) printf "  %-24s %d\n", order[i], class[order[i]] + 0
            for (r in reason) { key = r; sub(/ \(.*/, "", key); sub(/ [0-9a-f]{4}:[0-9a-f]{4} .*/, " (VID:PID not listed)", key); skipped[key] += reason[r] }
            for (k in skipped) printf "    skipped: %-70s %d\n", k, skipped[k]
        }' "$tsv"
    awk -F'\t' 'NR > 1 && $8 != "identical" && $8 != "skipped" { printf "  %s [%s] %s: %s\n", $1, $2, $8, $17 }' "$tsv"
    if ((frames)); then
        awk -F'\t' 'NR > 1 && $18 != "-" && $18 != "" { n++; v = $18; sub(/:.*/, "", v); verdict[v]++; if (v == "known") { k = $18; sub(/^known: /, "", k); known[k]++ } }
            END {
                printf "CCID messages replayed through CardFlow'"'"'s driver (runs answered alike): %d\n", n
                printf "  identical %d, known %d, differs %d\n", verdict["identical"], verdict["known"], verdict["differs"]
                for (k in known) printf "    known: %-70s %d\n", k, known[k]
            }' "$tsv"
        awk -F'\t' 'NR > 1 && $18 ~ /^differs/ { printf "  %s [%s] frames %s\n", $1, $2, $18 }' "$tsv"
    fi
    echo "per-profile results: $tsv"
} | tee "$summary"

if awk -F'\t' 'NR > 1 && ($8 == "differing" || $8 == "card-model-mismatch" || $8 == "cardflow-only-failure" || $8 == "both-failed" || $18 ~ /^differs/) { bad = 1 } END { exit !bad }' "$tsv"; then
    exit 1
fi
exit 0
