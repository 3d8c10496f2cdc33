#!/usr/bin/env bash
# Sets up a fresh Debian machine, builds cardctl and runs it against the built-in simulator.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
bash Scripts/setup.sh
env SWIFT_DETERMINISTIC_HASHING=1 swift build --product cardctl
env SWIFT_DETERMINISTIC_HASHING=1 swift build --product cardd
cardctl=".build/debug/cardctl"
cardd=".build/debug/cardd"
set -x
"$cardctl" --reader sim:iso7816 list --json
"$cardctl" --reader sim:iso7816 apdu --trace 00A4040007A0000002471001 00B0810020
# Name a card from its ATR (PC/SC part 3 tables; pcsc-tools' list when installed).
"$cardctl" --reader sim:type2 identify
printf '00A4040007A0000002471001\n00B0820000\nnot-hex\n00B0830010\n' | "$cardctl" --reader 'sim:iso7816,latency=5' shell
"$cardctl" --reader 'sim:iso7816,profile=Tests/Fixtures/ccid-readers/ACR122U_PICC.txt' list
# A card lifted mid-run and put back: waited for, selection replayed, run completed.
"$cardctl" --reader 'sim:iso7816,lift-after=2,return-after=300' --wait 2000 apdu 00A4040007A0000002471001 00B0810004 00B0810004
# NFC tags: NDEF on a Type 4 tag (state kept in a file), and the ISO 15693 exchange.
state=$(mktemp -d)
"$cardctl" --reader "sim:ndef4,state=$state/tag.json" ndef write --uri https://example.org
"$cardctl" --reader "sim:ndef4,state=$state/tag.json" ndef read --json
"$cardctl" --reader "sim:iso15693,state=$state/15693.json" iso15693 exchange --via 'tr 0-9 5-9A-E'
rm -rf "$state"
# The same driver over real libusb, against a simulated USB reader (umockdev).
"$cardctl" simulate --card iso7816 -- "$cardctl" --reader usb apdu --trace 00A4040007A0000002471001
# The daemon: virtual cards of every kind arrive on two simulated readers and the configured
# rules run on them; the job log is read back through the control socket while it runs.
daemon=$(mktemp -d)
"$cardd" --simulate --arrivals 10 --dwell 400 --gap 200 --socket "$daemon/cardd.sock" --job-log "$daemon/jobs.sqlite" &
cardd_pid=$!
wait "$cardd_pid"
"$cardd" --simulate --readers 1 --kinds iso7816 --dwell 60000 --quiet --socket "$daemon/cardd.sock" --job-log "$daemon/jobs.sqlite" 2>/dev/null &
cardd_pid=$!
for _ in $(seq 100); do [ -S "$daemon/cardd.sock" ] && break; sleep 0.1; done
"$cardctl" --socket "$daemon/cardd.sock" list
"$cardctl" --socket "$daemon/cardd.sock" --reader sim:0 apdu 00A4040007A0000002471001
"$cardctl" --socket "$daemon/cardd.sock" --reader sim:0 flow '{"kind":"report"}'
"$cardctl" --socket "$daemon/cardd.sock" jobs --limit 15
kill -TERM "$cardd_pid"; wait "$cardd_pid"
rm -rf "$daemon"
