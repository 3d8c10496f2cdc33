#!/usr/bin/env bash
# APDU round trips per second over libusb under umockdev: CardFlow's driver (through the whole
# cardctl stack) and a minimal C libusb client, on the same emulated reader in the same run.
# Usage: Benchmarks/usb/run.sh [APDUS]   (needs: swift build, umockdev, libusb-1.0-0-dev, gcc)
set -euo pipefail
cd "$(dirname "$0")/../.."
count="${1:-500}"
env SWIFT_DETERMINISTIC_HASHING=1 swift build --product cardctl >/dev/null
mkdir -p .build/bench
gcc -O2 -o .build/bench/minimal-client Benchmarks/usb/minimal-client.c $(pkg-config --cflags --libs libusb-1.0)
cardctl="$PWD/.build/debug/cardctl"
# Inside one simulated USB session: C client, then cardctl with 1 and 1+COUNT APDUs (the
# difference removes process start and session setup).
"$cardctl" simulate --card iso7816 -- bash -c '
  set -e
  .build/bench/minimal-client '"$count"'
  t0=$(date +%s.%N); "'"$cardctl"'" --reader usb apdu 00A4040007A0000002471001 >/dev/null; t1=$(date +%s.%N)
  "'"$cardctl"'" --reader usb apdu --repeat '"$((count + 1))"' 00A4040007A0000002471001 >/dev/null; t2=$(date +%s.%N)
  python3 -c "
one = $t1 - $t0; many = $t2 - $t1
rate = '"$count"' / (many - one)
print(f\"cardflow {'"$count"'} APDUs {many - one:.3f} s {rate:.1f} APDU/s (whole stack: flow, session, driver, libusb)\")
"'
