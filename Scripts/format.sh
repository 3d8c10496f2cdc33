#!/usr/bin/env bash
# Formats every Swift file of the repository with the toolchain's `swift format` and the
# .swift-format configuration at the root.
#
#   Scripts/format.sh           rewrite the files in place
#   Scripts/format.sh --check   lint only (`swift format lint --strict`): exits non-zero on any
#                               finding, changes nothing (CI runs this, from Scripts/test.sh)
#
# Covers the root Package.swift, Sources, Tests, Examples, and the Benchmarks and Fuzz packages.
# `--recursive` reads only *.swift files (the C sources beside them are not touched) and skips
# hidden directories (.build, .swiftpm, Benchmarks/.benchmarkBaselines).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

paths=(Package.swift Sources Tests Examples Benchmarks Fuzz)

case "${1:-}" in
  "")
    swift format format --in-place --parallel --recursive "${paths[@]}"
    ;;
  --check)
    if ! swift format lint --strict --parallel --recursive "${paths[@]}"; then
      echo "format.sh: swift format lint found the problems above; run Scripts/format.sh (and fix by hand what it cannot)" >&2
      exit 1
    fi
    ;;
  *)
    echo "usage: Scripts/format.sh [--check]" >&2
    exit 2
    ;;
esac
