#!/usr/bin/env bash
# Builds the DocC documentation of every target that has a catalog (Sources/T/T.docc) with
# warnings as errors: a broken ``symbol link`` or <doc:article> link, in a catalog or in a doc
# comment of the sources, or an undocumented parameter in a documented parameter list, fails the
# check.
#
# Combined documentation: each target is converted after the targets it depends on directly and
# resolves links into them (written with a leading slash, ``/CardFlow/Reader``), and one archive
# holds every target: .build/docs/CardFlow.doccarchive (`docc preview`, or
# `docc process-archive transform-for-static-hosting` for a web server).
#
# How: Scripts/lib/docs-build.py extracts each target's symbol graph from the debug build and runs
# docc convert and docc merge as swift-docc-plugin's combined mode does, without the plugin's one
# SwiftPM build per target (26 of them, ~15 s of build planning each: most of this step's 487 s in
# CI at 2dac596; the same check now takes about a minute once the package is built).
#
#   Scripts/docs-check.sh             swift build (debug), then the documentation
#   Scripts/docs-check.sh --no-build  the documentation of the debug build there is (Scripts/test.sh,
#                                     after its swift build --build-tests)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

build=true
case "${1:-}" in
  "") ;;
  --no-build) build=false ;;
  *) echo "docs-check: unknown argument $1 (options: --no-build)" >&2; exit 2 ;;
esac

targets=()
for catalog in Sources/*/*.docc; do
  target="$(basename "$(dirname "$catalog")")"
  [[ "$(basename "$catalog")" == "$target.docc" ]] || { echo "docs-check: $catalog: name it $target.docc" >&2; exit 2; }
  targets+=("$target")
done

if $build; then env SWIFT_DETERMINISTIC_HASHING=1 swift build; fi
output=.build/docs
rm -rf "$output"
echo "docs-check: ${targets[*]}"
python3 Scripts/lib/docs-build.py --bin-path "$(swift build --show-bin-path)" \
  --output "$output/CardFlow.doccarchive" --docc-flag=--warnings-as-errors "${targets[@]}"
echo "docs-check: ${#targets[@]} targets documented without warnings ($output/CardFlow.doccarchive)"
