#!/usr/bin/env bash
# Builds the DocC documentation of every target that has a catalog (Sources/T/T.docc) with
# warnings as errors: a broken ``symbol link`` or <doc:article> link, in a catalog or in a doc
# comment of the sources, or an undocumented parameter in a documented parameter list, fails the
# check.
#
# Combined documentation: each target is built after the targets it depends on and resolves
# links into them (written with a leading slash, ``/CardFlow/Reader``), and one archive holds
# every target: .build/docs/CardFlow.doccarchive (`docc preview`, or
# `--transform-for-static-hosting` for a web server).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

arguments=()
targets=()
for catalog in Sources/*/*.docc; do
  target="$(basename "$(dirname "$catalog")")"
  [[ "$(basename "$catalog")" == "$target.docc" ]] || { echo "docs-check: $catalog: name it $target.docc" >&2; exit 2; }
  targets+=("$target")
  arguments+=(--target "$target")
done

output=.build/docs
rm -rf "$output"
mkdir -p "$output"
echo "docs-check: ${targets[*]}"
# One plugin run for all targets: the package is built once and each target's symbol graph is
# extracted once. --disable-indexing: no LMDB index (only Xcode reads it).
swift package --allow-writing-to-directory "$output" generate-documentation "${arguments[@]}" \
  --enable-experimental-combined-documentation --output-path "$output/CardFlow.doccarchive" \
  --disable-indexing --warnings-as-errors
echo "docs-check: ${#targets[@]} targets documented without warnings ($output/CardFlow.doccarchive)"
