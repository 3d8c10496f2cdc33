#!/usr/bin/env bash
# `cardctl bench compare` end to end on the emulated USB reader: inside `cardctl simulate --card
# apdu-test` (umockdev), side one is CardFlow's own CCID driver (`--reader usb`), side two pcscd
# with libccid, which the command starts and stops itself (--start-pcscd). Checks the JSON (both
# sides measured, the same APDU, ratios, reader identity 1209:2702) and that the HTML report was
# written; then the text output and the clear message when pcscd already holds the reader.
#
# Usage: Scripts/bench-compare-check.sh [--cardctl PATH]
# Needs: umockdev, pcscd, libccid, root (pcscd's socket folder /run/pcscd); no other pcscd running.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cardctl="$root/.build/debug/cardctl"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --cardctl) cardctl="$2"; shift 2 ;;
        -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench-compare-check: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
command -v pcscd >/dev/null || { echo "bench-compare-check: pcscd not found (apt-get install pcscd libccid)" >&2; exit 2; }
if pgrep -x pcscd >/dev/null; then
    echo "bench-compare-check: another pcscd is running (pid $(pgrep -x pcscd | head -1)); stop it first" >&2
    exit 2
fi
if [[ ! -x "$cardctl" ]]; then
    echo "bench-compare-check: building cardctl" >&2
    (cd "$root" && swift build --product cardctl >&2) || exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT

# 1. Both sides, JSON and report.
status=0
"$cardctl" simulate --card apdu-test -- "$cardctl" --reader usb bench compare --start-pcscd \
    --count 300 --warmup 20 --min-duration 0.2 --json --no-progress --report "$work/compare.html" \
    >"$work/compare.json" 2>"$work/compare.err" || status=$?
if [[ $status != 0 ]]; then
    echo "bench-compare-check: FAIL: compare exited $status" >&2
    cat "$work/compare.err" >&2
    exit 1
fi
python3 - "$work/compare.json" <<'PY' || { cat "$work/compare.err" >&2; exit 1; }
import json, sys
document = json.load(open(sys.argv[1]))
assert document["schema"] == "cardflow-bench/1", document["schema"]
run = document["runs"][0]
assert run["kind"] == "comparison", run["kind"]
sides = run["comparison"]["sides"]
assert [side["reader"]["backend"] for side in sides] == ["usb", "pcsc"], [s["reader"] for s in sides]
assert sides[0]["reader"]["usbID"] == "1209:2702", sides[0]["reader"]
for side in sides:
    assert "failure" not in side, side.get("failure")
    stats = side["latency"]["statistics"]
    assert stats["count"] >= 300, stats
    assert 0 < stats["minNs"] <= stats["p50Ns"] <= stats["p99Ns"] <= stats["maxNs"], stats
    assert side["latency"]["command"] == sides[0]["latency"]["command"]
    assert side["latency"]["statusWord"] == "6A82", side["latency"]["statusWord"]
ratio = run["comparison"]["p50Ratio"]
assert ratio > 0, ratio
print(f"bench-compare-check: CardFlow p50 {sides[0]['latency']['statistics']['p50Ns']/1e3:.0f} µs, "
      f"pcscd p50 {sides[1]['latency']['statistics']['p50Ns']/1e3:.0f} µs, pcscd/CardFlow {ratio:.2f}")
PY
grep -q "<svg" "$work/compare.html" || { echo "bench-compare-check: FAIL: the report has no chart" >&2; exit 1; }
if pgrep -x pcscd >/dev/null; then
    echo "bench-compare-check: FAIL: pcscd still running after compare" >&2
    exit 1
fi

# 2. A pcscd that already holds the reader: the first side fails with the advice, exit 3.
status=0
"$cardctl" simulate --card apdu-test -- bash -c '
    pcscd --foreground >/dev/null 2>&1 & daemon=$!
    for _ in $(seq 1 50); do pcsc_scan -r 2>/dev/null | grep -q . && break; sleep 0.2; done
    status=0
    "$0" --reader usb bench compare --count 50 --min-duration 0 --no-progress || status=$?
    kill $daemon; wait $daemon 2>/dev/null || true
    exit $status' "$cardctl" >"$work/held.out" 2>"$work/held.err" || status=$?
if [[ $status != 3 ]] || ! grep -q "pcscd holds the reader" "$work/held.err"; then
    echo "bench-compare-check: FAIL: with pcscd holding the reader expected exit 3 and advice; got $status:" >&2
    cat "$work/held.out" "$work/held.err" >&2
    exit 1
fi
echo "bench-compare-check: OK"
