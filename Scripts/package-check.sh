#!/usr/bin/env bash
# Checks CardFlow's Debian packages as an operator meets them: builds them (Scripts/package.sh,
# twice: the version and a "+test1" one to upgrade to), runs lintian on them, then installs them
# with apt in a clean Debian 12 root without Swift and uses, upgrades and purges them there
# (Scripts/package-check-root.sh). Needs root (debootstrap, chroot, unshare) and the network to
# deb.debian.org.
# The clean root is made once per clone with debootstrap (--variant=minbase, plus man-db and
# systemd for `man` and `systemd-analyze verify`) in .build-debroot/bookworm, and copied for every
# run, so a run starts from a root nothing was installed into.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
  echo "package-check.sh: needs root (debootstrap, chroot, unshare)" >&2
  exit 1
fi
cache=.build-debroot
base="$cache/bookworm"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
mkdir -p "$cache"

if [ ! -x "$base/usr/bin/apt-get" ]; then
  echo "package-check.sh: [${SECONDS}s] debootstrap bookworm into $base" >&2
  rm -rf "$base.tmp"
  debootstrap --variant=minbase --include=man-db,systemd bookworm "$base.tmp" "$mirror" >"$cache/debootstrap.log" 2>&1 \
    || { tail -20 "$cache/debootstrap.log" >&2; exit 1; }
  mv "$base.tmp" "$base"
fi

echo "package-check.sh: [${SECONDS}s] Scripts/package.sh" >&2
rm -rf "$cache/debs"
bash Scripts/package.sh --out "$cache/debs/current" >/dev/null
# The upgrade's package: the same binaries under a later version (only the .deb's metadata says it).
bash Scripts/package.sh --no-build --version-suffix +test1 --uncompressed --out "$cache/debs/next" >/dev/null
ls -l "$cache"/debs/*/*.deb >&2

# lintian: no errors, and no warnings but the ones Scripts/debian/cardd.lintian-overrides
# explains. Left at info level: hardening-no-bindnow and hardening-no-fortify-functions (the Swift
# toolchain links without -z now and compiles no C with _FORTIFY_SOURCE), spelling-error-in-binary
# (strings of the statically linked libraries, BoringSSL's among them), and
# package-supports-alternative-init-but-no-init.d-script (cardd ships a systemd unit only).
echo "package-check.sh: [${SECONDS}s] lintian" >&2
lintian --fail-on error,warning --display-info "$cache"/debs/current/*.deb

echo "package-check.sh: [${SECONDS}s] a clean bookworm root" >&2
root="$cache/run"
rm -rf "$root"
cp -a "$base" "$root"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp -r "$cache/debs" "$root/debs"
sed -n 's/^ *public static let current = "\([^"]*\)".*/\1/p' Sources/CardFlow/Package/CardFlowVersion.swift >"$root/debs/version"
install -m 0755 Scripts/package-check-root.sh "$root/check.sh"
# A private mount and PID namespace: /proc and anything the check leaves running go with it.
unshare --mount --pid --fork --mount-proc="$root/proc" chroot "$root" /check.sh
rm -rf "$root"
echo "package-check.sh: [${SECONDS}s] the packages install, work, upgrade and purge in a clean Debian 12" >&2
