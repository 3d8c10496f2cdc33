#!/usr/bin/env bash
# The uFR network link's cost per APDU (issue 37), next to vpcd and to the in-process simulator:
# `cardctl bench latency` (closed loop, HdrHistogram) with the same ISO 14443-4 card and APDU over
#   sim     the in-process simulated reader (no link: the floor of CardFlow's own path)
#   ufr-tcp `ufr:tcp:127.0.0.1:PORT`: the COM protocol to a simulated uFR Nano Online
#           (`cardctl simulate-ufr`, another process), APDU_TRANSCEIVE per APDU
#   ufr-udp the same over UDP (one datagram each way per frame)
#   vpcd    `vpcd:127.0.0.1:PORT`: CardFlow's vpcd listener, with `cardctl export` serving the
#           simulated card as the vpcd card side (another process)
# Each path runs ROUNDS times in turn; the table gives the median APDU/s and the median p50 and
# p99 in µs, and the overhead per APDU of each link over `sim` (difference of the p50s).
#
# Usage: Benchmarks/ufr/run.sh [--count N] [--rounds R]     (defaults 3000 and 3)
# Environment: CARDCTL (default: a release build, `swift build -c release --product cardctl`).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
count=3000 rounds=3
while [[ $# -gt 0 ]]; do
    case "$1" in
        --count) count="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "ufr bench: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
[[ -d /opt/swift/usr/bin ]] && export PATH="/opt/swift/usr/bin:$PATH"
cd "$root"
if [[ -z "${CARDCTL:-}" ]]; then
    env SWIFT_DETERMINISTIC_HASHING=1 swift build -c release --product cardctl >/dev/null 2>&1 \
        || { echo "ufr bench: swift build -c release --product cardctl failed" >&2; exit 2; }
    CARDCTL="$(swift build -c release --show-bin-path)/cardctl"
fi
work=$(mktemp -d)
exporter=""
trap '[[ -n "$exporter" ]] && kill "$exporter" 2>/dev/null; rm -rf "$work"' EXIT
bench=(bench latency --count "$count" --warmup 100 --min-duration 0 --json --no-progress)

# One measurement: prints "APDU/s p50-µs p99-µs".
summary() {
    python3 -c '
import json, sys
s = json.load(sys.stdin)["runs"][0]["latency"]["statistics"]
print("%.1f %.1f %.1f" % (s["apdusPerSecond"], s["p50Ns"] / 1000, s["p99Ns"] / 1000))'
}

measure() {
    case "$1" in
        sim) "$CARDCTL" --reader sim:iso7816 "${bench[@]}" | summary ;;
        ufr-tcp | ufr-udp)
            local variable=CARDCTL_UFR_TCP
            [[ $1 == ufr-udp ]] && variable=CARDCTL_UFR_UDP
            "$CARDCTL" simulate-ufr --card iso7816 -- sh -c "\"\$0\" --reader \"\$$variable\" $(printf '%q ' "${bench[@]}")" \
                "$CARDCTL" | summary ;;
        vpcd)
            local port=$(( 41000 + RANDOM % 9000 ))
            "$CARDCTL" --reader sim:iso7816 export --to "127.0.0.1:$port" >"$work/export.log" 2>&1 &
            exporter=$!
            "$CARDCTL" --reader "vpcd:127.0.0.1:$port" --wait 10000 "${bench[@]}" | summary
            kill "$exporter" 2>/dev/null || true
            wait "$exporter" 2>/dev/null || true
            exporter="" ;;
    esac
}

paths=(sim ufr-tcp ufr-udp vpcd)
for round in $(seq 1 "$rounds"); do
    for path in "${paths[@]}"; do
        echo "$path $(measure "$path")" >>"$work/results"
        echo "ufr bench: round $round $path done" >&2
    done
done

python3 - "$work/results" "$count" "$rounds" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    path, rate, p50, p99 = line.split()
    rows.setdefault(path, []).append((float(rate), float(p50), float(p99)))
floor = statistics.median(r[1] for r in rows["sim"])
print(f"| Path ({sys.argv[2]} APDUs, median of {sys.argv[3]} rounds) | APDU/s | p50 µs | p99 µs | link overhead per APDU (p50 − sim) |")
print("|---|---|---|---|---|")
for path in ["sim", "ufr-tcp", "ufr-udp", "vpcd"]:
    rate = statistics.median(r[0] for r in rows[path])
    p50 = statistics.median(r[1] for r in rows[path])
    p99 = statistics.median(r[2] for r in rows[path])
    overhead = "—" if path == "sim" else f"{p50 - floor:.1f} µs"
    print(f"| {path} | {rate:,.0f} | {p50:.1f} | {p99:.1f} | {overhead} |")
PY
