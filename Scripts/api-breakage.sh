#!/usr/bin/env bash
# Public API stability: lists the changes to the library products' public API that would break a
# dependent, compared with a baseline (by default the newest release tag, `X.Y.Z` or `vX.Y.Z`).
# Exits non-zero when there is a breaking change that Scripts/api-breakage-allowlist.txt does not
# list. Until 1.0.0 a minor release may break API (CHANGELOG.md says so under "Changed"); the
# check is what makes such a break a decision rather than an accident.
#
# Usage: Scripts/api-breakage.sh [BASELINE]     BASELINE: a tag, commit or branch
# Slow: SwiftPM builds the baseline in a scratch copy as well (minutes on two cores).
# A module the baseline does not have is skipped ("does not exist in the baseline"): the
# CardFlow prefix renamed every module but CardFlow, CardFlowCCID, CardFlowPCSC and CardFlowVPCD
# (3667bde), so against an older baseline only those four are compared; the CHANGELOG's was → now
# table is the record of that break. Against eb1bc0a the four had one break, allowlisted: the
# memberwise ReaderCapabilities.init gained `defaultCardWait` (defaulted: source-compatible).
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -d /opt/swift/usr/bin ]] && export PATH="/opt/swift/usr/bin:$PATH"
baseline="${1:-$(git tag --list --sort=-version:refname '[0-9]*.[0-9]*.[0-9]*' 'v[0-9]*.[0-9]*.[0-9]*' | head -n 1)}"
if [[ -z "$baseline" ]]; then
    echo "api-breakage: no release tag yet; pass a baseline ref (e.g. Scripts/api-breakage.sh main~10)" >&2
    exit 2
fi
git rev-parse --verify --quiet "$baseline^{commit}" >/dev/null \
    || { echo "api-breakage: $baseline is not a commit here (git fetch --tags?)" >&2; exit 2; }
# Every library product (Package.swift's `products`).
mapfile -t products < <(swift package dump-package | python3 -c '
import json, sys
for product in json.load(sys.stdin)["products"]:
    if "library" in product["type"]:
        print(product["name"])')
allowlist=()
[[ -s Scripts/api-breakage-allowlist.txt ]] && allowlist=(--breakage-allowlist-path Scripts/api-breakage-allowlist.txt)
echo "api-breakage: comparing the public API of ${products[*]} with $baseline" >&2
swift package diagnose-api-breaking-changes "$baseline" --products "${products[@]}" "${allowlist[@]}"
