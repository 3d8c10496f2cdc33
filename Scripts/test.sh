#!/usr/bin/env bash
# Sets up a fresh Debian machine and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
bash Scripts/setup.sh
swift build --build-tests
swift test --skip-build --disable-xctest
