#!/usr/bin/env bash
# Builds cardctl, cardd and vpcdtool in release with the Swift runtime and Foundation linked
# statically, and makes two Debian packages of them that install without Swift:
#   cardflow-tools  cardctl, vpcdtool, their manual pages and bash/zsh/fish completions
#   cardd           the daemon, its systemd unit, the udev rule for CCID readers, the example
#                   configuration as the conffile /etc/cardd/cardd.json, the cardd system user
# Usage: Scripts/package.sh [--version-suffix SUFFIX] [--out DIR] [--uncompressed]
#                           [--no-build]
#   The version is CardFlowVersion.current (Sources/CardFlow/Package/CardFlowVersion.swift),
#   plus SUFFIX when given (Scripts/package-check.sh builds a "+test1" package to test upgrades
#   with). The .debs go to DIR (default .build/debs); the script prints their paths.
#   --uncompressed skips xz (minutes for the two binaries on a loaded machine), for packages that
#   are only installed by a test. (An option, not an environment variable: swift build sees the
#   environment, and a changed one rebuilt cardctl.)
#   --no-build packages the binaries an earlier run built (a second package of the same build,
#   e.g. with another version suffix).
# Needs dpkg-dev (dpkg-shlibdeps), binutils (strip, readelf) and chrpath; Scripts/setup.sh installs them.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

suffix=""
out=".build/debs"
compression=xz
build=true
while [ $# -gt 0 ]; do
  case "$1" in
    --version-suffix) suffix="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --uncompressed) compression=none; shift ;;
    --no-build) build=false; shift ;;
    *) echo "package.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

# The one version constant; no second copy of it anywhere.
version_file=Sources/CardFlow/Package/CardFlowVersion.swift
upstream=$(sed -n 's/^ *public static let current = "\([^"]*\)".*/\1/p' "$version_file")
if ! [[ "$upstream" =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]]; then
  echo "package.sh: no version found in $version_file" >&2
  exit 1
fi
version="$upstream$suffix"
arch=$(dpkg --print-architecture)
maintainer="${CARDFLOW_MAINTAINER:-CardFlow authors <cardflow@example.org>}"

products=(cardctl cardd vpcdtool)
# shellcheck source=lib/release-build.sh
source Scripts/lib/release-build.sh
swift_build=("${release_build[@]}")
if $build; then
  for product in "${products[@]}"; do
    echo "package.sh: [${SECONDS}s] ${swift_build[*]} --product $product" >&2
    "${swift_build[@]}" --product "$product"
  done
fi
bin=$("${swift_build[@]}" --show-bin-path)
for product in "${products[@]}"; do
  [ -x "$bin/$product" ] || { echo "package.sh: no $bin/$product (build it: drop --no-build)" >&2; exit 1; }
done

# Nothing of the Swift toolchain may be left for the dynamic linker to find on the target.
for product in "${products[@]}"; do
  needed=$(readelf -d "$bin/$product" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  if grep -E 'swift|Foundation|dispatch|BlocksRuntime' <<<"$needed"; then
    echo "package.sh: $product still needs the Swift libraries above" >&2
    exit 1
  fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The manual pages come from the command definitions, by argument-parser's generate-manual tool
# (what its generate-manual plugin runs; the plugin itself first rebuilds every product of the
# package in release without --static-swift-stdlib, a second full release build, so the tool
# runs here on the very binaries that are packaged).
# Built with the products' flags: a build with other flags would recompile ArgumentParser and
# with it every module above it, next time the products are built.
if $build; then "${swift_build[@]}" --product generate-manual >&2; fi
generate_manual="$bin/generate-manual"
[ -x "$generate_manual" ] || { echo "package.sh: no $generate_manual (build it: drop --no-build)" >&2; exit 1; }
# Reproducible timestamps (changelog, manual dates, file times, dpkg-deb's): the last commit's.
# Exported only after the builds: swift build hands it on to the compilers, so a new commit
# would otherwise rebuild the products (seen: cardctl recompiled after a commit).
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}"
manual_date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)

# stage PACKAGE PRODUCT...: binaries (stripped), manual pages and completions of PRODUCTs.
stage() {
  local package="$1"; shift
  local root="$work/debian/$package"
  install -d "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/man/man1" "$root/usr/share/doc/$package" \
    "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d"
  local product
  for product in "$@"; do
    install -m 0755 "$bin/$product" "$root/usr/bin/$product"
    strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/$product"
    # SwiftPM links with RUNPATH $ORIGIN (for libraries beside the build's binaries); an
    # installed program must not look for libraries in /usr/bin.
    chrpath --delete "$root/usr/bin/$product" >/dev/null
    mkdir -p "$work/man-$product"
    "$generate_manual" "$bin/$product" --date "$manual_date" --output-directory "$work/man-$product" >/dev/null
    gzip -9n <"$work/man-$product/$product.1" >"$root/usr/share/man/man1/$product.1.gz"
    # bash-completion sources the file; argument-parser's "#!/bin/bash" line means nothing there.
    "$bin/$product" --generate-completion-script bash | sed '1{/^#!/d}' >"$root/usr/share/bash-completion/completions/$product"
    "$bin/$product" --generate-completion-script zsh >"$root/usr/share/zsh/vendor-completions/_$product"
    "$bin/$product" --generate-completion-script fish >"$root/usr/share/fish/vendor_completions.d/$product.fish"
  done
  copyright "$root/usr/share/doc/$package/copyright"
  changelog "$package" | gzip -9n >"$root/usr/share/doc/$package/changelog.gz"
}

# The Debian copyright file: CardFlow's terms, and the packages linked into the binaries.
copyright() {
  {
    echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    echo "Upstream-Name: CardFlow"
    echo
    echo "Files: *"
    echo "Copyright: 2026 The CardFlow authors"
    echo "License: Apache-2.0"
    echo "Comment: The programs link statically the Swift runtime and Foundation"
    echo " (Apache-2.0 with Runtime Library Exception) and these Swift packages, each"
    echo " under the license in its own source:"
    local checkout
    for checkout in .build/checkouts/*/; do
      echo "  $(basename "$checkout") $(git -C "$checkout" describe --tags --always 2>/dev/null || echo unknown)"
    done
    echo
    echo "License: Apache-2.0"
    echo " On Debian systems the full text of the Apache License 2.0 is in"
    echo " /usr/share/common-licenses/Apache-2.0."
  } >"$1"
}

# A native package's changelog (CHANGELOG.md has the real one; this points there).
changelog() {
  echo "$1 ($version) unstable; urgency=medium"
  echo
  echo "  * CardFlow $upstream, built by Scripts/package.sh. The changes are in"
  echo "    CHANGELOG.md of the CardFlow sources."
  echo
  echo " -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
}

# depends PACKAGE: the shared-library packages its staged binaries need, as dpkg-shlibdeps
# finds them (it wants a debian/control above the staged trees, hence the throwaway one).
depends() {
  printf 'Source: cardflow\n\nPackage: %s\nArchitecture: any\n' "$1" >"$work/debian/control"
  (cd "$work" && dpkg-shlibdeps -O "debian/$1"/usr/bin/*) | sed -n 's/^shlibs:Depends=//p'
}

# control PACKAGE SECTION DEPENDS SUMMARY DESCRIPTION [EXTRA-FIELDS]
control() {
  local root="$work/debian/$1"
  local size
  size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
  {
    echo "Package: $1"
    echo "Version: $version"
    echo "Architecture: $arch"
    echo "Maintainer: $maintainer"
    echo "Installed-Size: $size"
    echo "Depends: $3"
    [ -n "${6:-}" ] && echo "$6"
    echo "Section: $2"
    echo "Priority: optional"
    echo "Description: $4"
    echo "$5" | fold -s -w 78 | sed 's/ *$//; s/^/ /'
  } >"$root/DEBIAN/control"
  (cd "$root" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
}

build_deb() {
  local root="$work/debian/$1"
  find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
  mkdir -p "$out"
  dpkg-deb --build --root-owner-group -Z"$compression" "$root" "$out/${1}_${version}_${arch}.deb" >/dev/null
  echo "$out/${1}_${version}_${arch}.deb"
}

# cardflow-tools
stage cardflow-tools cardctl vpcdtool
control cardflow-tools utils "$(depends cardflow-tools)" \
  "command-line tools for NFC cards and smart cards (CardFlow)" \
  "cardctl talks to NFC cards and smart cards through USB CCID readers (CardFlow's own CCID driver on libusb), pcscd, vsmartcard's vpcd, Digital Logic uFR readers or the built-in simulator: APDUs, NDEF, ISO 15693, DESFire, NTAG 424, MIFARE Classic, NTAG21x, FeliCa, TON cards, benchmarks, and the cardd daemon's control socket. vpcdtool speaks vsmartcard's vpcd protocol in both roles."

# cardd
stage cardd cardd
install -d "$work/debian/cardd/etc/cardd" "$work/debian/cardd/lib/systemd/system" "$work/debian/cardd/lib/udev/rules.d"
install -m 0644 Examples/cardd/cardd.example.json "$work/debian/cardd/etc/cardd/cardd.json"
install -m 0644 Examples/cardd/60-cardflow-readers.rules "$work/debian/cardd/lib/udev/rules.d/60-cardflow-readers.rules"
# The unit as in Examples/cardd, with the packaged binary's path.
sed -e 's|^ExecStart=/usr/local/bin/cardd |ExecStart=/usr/bin/cardd |' \
  -e '1s|.*|# systemd unit for cardd, from the cardd package (enable: systemctl enable --now cardd)|' \
  Examples/cardd/cardd.service >"$work/debian/cardd/lib/systemd/system/cardd.service"
grep -q '^ExecStart=/usr/bin/cardd ' "$work/debian/cardd/lib/systemd/system/cardd.service" || {
  echo "package.sh: cardd.service has no ExecStart=/usr/local/bin/cardd line to point at /usr/bin" >&2
  exit 1
}
echo /etc/cardd/cardd.json >"$work/debian/cardd/DEBIAN/conffiles"
install -m 0755 Scripts/debian/cardd.postinst "$work/debian/cardd/DEBIAN/postinst"
install -m 0755 Scripts/debian/cardd.prerm "$work/debian/cardd/DEBIAN/prerm"
install -m 0755 Scripts/debian/cardd.postrm "$work/debian/cardd/DEBIAN/postrm"
install -D -m 0644 Scripts/debian/cardd.lintian-overrides "$work/debian/cardd/usr/share/lintian/overrides/cardd"
# adduser for the postinst; procps for /bin/kill, the unit's ExecReload.
control cardd admin "$(depends cardd), adduser, procps" \
  "daemon that runs card flows on arriving NFC cards and smart cards" \
  "cardd watches CCID readers (USB, pcscd, vpcd, uFR), runs the flow of the first matching rule on every card that arrives (NDEF writes, DESFire provisioning, TON activation, relays, ...), keeps a job log in SQLite that survives crashes, answers a JSON-lines control socket and exports Prometheus metrics. The systemd unit is installed but not enabled: edit /etc/cardd/cardd.json, then systemctl enable --now cardd." \
  "Recommends: cardflow-tools"

build_deb cardflow-tools
build_deb cardd
