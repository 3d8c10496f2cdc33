#!/usr/bin/env bash
# Sets up a fresh Debian machine, builds cardctl and runs it against the built-in simulator.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
bash Scripts/setup.sh
swift build --product cardctl
cardctl=".build/debug/cardctl"
set -x
"$cardctl" --reader sim:iso7816 list --json
"$cardctl" --reader sim:iso7816 apdu --trace 00A4040007A0000002471001 00B0810020
printf '00A4040007A0000002471001\n00B0820000\nnot-hex\n00B0830010\n' | "$cardctl" --reader 'sim:iso7816,latency=5' shell
"$cardctl" --reader 'sim:iso7816,profile=Tests/Fixtures/ccid-readers/ACR122U_PICC.txt' list
