#!/usr/bin/env bash
# What a package that depends on CardFlow only pays: a throwaway dependent (one executable that
# imports CardFlow, CardFlowNDEF and CardFlowDESFire, beside modules of its own named NDEF, CCID,
# DESFire and Relay, which must not collide with CardFlow's) is resolved and built from clean
# against CardFlow at REV (default: HEAD), and the script prints the packages it resolved and
# the times.
#
#   bash Scripts/dependent-build.sh [--check] [REV]
#
# With --check (CI), it fails when the light dependent resolves a package beyond CardFlow,
# swift-log, swift-metrics, swift-crypto and swift-asn1: a heavy dependency that slipped out of
# its trait.
#
# CardFlow at REV is cloned into a temporary folder and tagged 0.1.0, so the dependent names it
# by version as a user would. When CardFlow at REV declares package traits, the dependent asks
# for none (`traits: []`): the light, card-library-only dependency.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
check=false
if [[ "${1:-}" == "--check" ]]; then check=true; shift; fi
rev="${1:-HEAD}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

git clone --quiet --no-checkout . "$work/CardFlow"
git -C "$work/CardFlow" checkout --quiet "$(git rev-parse "$rev")"
git -C "$work/CardFlow" -c user.name=dependent-build -c user.email=dependent-build@localhost tag 0.1.0

traits=""
if grep -q '^ *traits: *\[' "$work/CardFlow/Package.swift"; then traits=", traits: []"; fi
mkdir -p "$work/Dependent/Sources/Dependent"
cat > "$work/Dependent/Package.swift" <<EOF
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Dependent",
    dependencies: [.package(url: "$work/CardFlow", from: "0.1.0"$traits)],
    targets: [
        // Modules of its own under the generic names CardFlow's modules had before their
        // CardFlow prefix: SwiftPM refuses two modules of one name in a dependency graph.
        .target(name: "NDEF"), .target(name: "CCID"), .target(name: "DESFire"), .target(name: "Relay"),
        .executableTarget(
            name: "Dependent",
            dependencies: [
                "NDEF", "CCID", "DESFire", "Relay",
                .product(name: "CardFlow", package: "CardFlow"),
                .product(name: "CardFlowNDEF", package: "CardFlow"),
                .product(name: "CardFlowDESFire", package: "CardFlow"),
            ]),
    ]
)
EOF
for module in NDEF CCID DESFire Relay; do
  mkdir -p "$work/Dependent/Sources/$module"
  echo "public let ${module}Name = \"the dependent's own $module\"" >"$work/Dependent/Sources/$module/$module.swift"
done
cat > "$work/Dependent/Sources/Dependent/main.swift" <<'EOF'
import CCID
import CardFlow
import CardFlowDESFire
import CardFlowNDEF
import DESFire
import NDEF
import Relay

let select = try CommandAPDU(hex: "00A4040007A0000002471001")
print(select.encoded().hexString)
print(NDEFName, CCIDName, DESFireName, RelayName)
print(try NDEFMessage([URIRecord("https://example.com").record]).encoded().hexString, DESFireKeyType.aes)
EOF

cd "$work/Dependent"
start=$(date +%s.%N)
swift package resolve >"$work/resolve.log" 2>&1 || { cat "$work/resolve.log"; exit 1; }
resolved=$(date +%s.%N)
# A throwaway build: no index store for an editor (less compile time).
swift build --disable-index-store >"$work/build.log" 2>&1 || { tail -40 "$work/build.log"; exit 1; }
built=$(date +%s.%N)
./.build/debug/Dependent >/dev/null

packages=$(grep -c '"identity"' Package.resolved || true)
echo "CardFlow at $(git -C "$work/CardFlow" rev-parse --short HEAD)${traits:+ (traits: [])}"
echo "resolved packages (CardFlow included): $packages"
grep '"identity"' Package.resolved | sed -E 's/.*: "(.*)".*/  \1/'
awk -v start="$start" -v resolved="$resolved" -v built="$built" 'BEGIN {
  printf "resolve: %.1f s\nclean build: %.1f s\ntotal: %.1f s\n", resolved - start, built - resolved, built - start
}'

if $check; then
  allowed=" cardflow swift-asn1 swift-crypto swift-log swift-metrics "
  extra=$(grep '"identity"' Package.resolved | sed -E 's/.*: "(.*)".*/\1/' | while read -r name; do
    [[ "$allowed" == *" $name "* ]] || echo "$name"
  done)
  if [[ -n "$extra" ]]; then
    echo "dependent-build: a CardFlow-only dependent with traits: [] resolved more than the card library needs:" $extra >&2
    exit 1
  fi
fi
