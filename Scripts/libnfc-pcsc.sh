#!/usr/bin/env bash
# Builds libnfc with its `pcsc` and `acr122_pcsc` drivers from Debian's own source package and
# prints the folder holding the resulting libnfc.so.6. Debian's libnfc6 is built without them
# (debian/rules runs a plain configure; libpcsclite-dev is no build dependency), so Debian's
# libfreefare and libnfc tools cannot reach a PC/SC reader; with LD_LIBRARY_PATH on this folder
# (same soname) they can, which is how Scripts/partners-check.sh puts libfreefare in front of
# CardFlow's exported cards. Cached: a second run only prints the folder.
#
# Usage: Scripts/libnfc-pcsc.sh      (prints the library folder on stdout; logs on stderr)
#
# Needs: a deb-src line for the configured Debian mirror (added to
# /etc/apt/sources.list.d/cardflow-deb-src.sources when none exists; root or sudo), dpkg-dev,
# autoconf, automake, libtool, pkg-config, libusb-dev, libpcsclite-dev (Scripts/setup.sh).
# Exit status: 0 built or cached, 2 setup problem.
set -euo pipefail
cache="${CARDFLOW_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cardflow}/libnfc-pcsc"
library="$cache/src/libnfc/.libs"
if [[ -f "$library/libnfc.so.6" && -f "$cache/drivers" && -f "$cache/reader-len-patched" ]] && grep -q pcsc "$cache/drivers"; then
    echo "$library"
    exit 0
fi
fail() { echo "libnfc-pcsc: $*" >&2; exit 2; }
sudo_cmd=""
[[ "$(id -u)" -ne 0 ]] && sudo_cmd="sudo"
if ! grep -rqs '^\(Types:.*deb-src\|deb-src \)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    # The mirror and suite of the first Debian source apt already uses.
    suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$suite" \
        | $sudo_cmd tee /etc/apt/sources.list.d/cardflow-deb-src.sources >/dev/null || fail "cannot add a deb-src source"
    $sudo_cmd apt-get update -q >&2 || fail "apt-get update failed"
fi
rm -rf "$cache"
mkdir -p "$cache/download"
(cd "$cache/download" && apt-get source -q libnfc >&2) || fail "apt-get source libnfc failed"
source_dir=$(find "$cache/download" -maxdepth 1 -type d -name 'libnfc-*' | head -n 1)
[[ -n "$source_dir" ]] || fail "no libnfc source folder after apt-get source"
mv "$source_dir" "$cache/src"
cd "$cache/src"
# libnfc 1.8.0's pcsc_get_status passes SCardStatus an uninitialised reader-name length with no
# name buffer; when the stack happens to hold 0xFFFFFFFF there (SCARD_AUTOALLOCATE) pcsc-lite
# answers SCARD_E_INVALID_PARAMETER and libnfc reports "Get status failed" / "Can't connect to
# Mifare DESFire target" at random steps. Initialised to 0, as the PC/SC API asks for a NULL name.
sed -i 's/DWORD dw_atr_len = \*atr_len, reader_len, state, protocol;/DWORD dw_atr_len = *atr_len, reader_len = 0, state, protocol;/' \
    libnfc/drivers/pcsc.c
grep -q 'reader_len = 0, state, protocol;' libnfc/drivers/pcsc.c || fail "could not patch pcsc_get_status's reader_len"
{
    autoreconf -fi
    ./configure --disable-silent-rules --with-drivers=pcsc,acr122_pcsc
    make -j"$(nproc)" -C libnfc
} >"$cache/build.log" 2>&1 || { tail -n 30 "$cache/build.log" >&2; fail "building libnfc failed (log: $cache/build.log)"; }
[[ -f "$library/libnfc.so.6" ]] || fail "the build left no libnfc.so.6"
echo "pcsc acr122_pcsc" >"$cache/drivers"
touch "$cache/reader-len-patched"
echo "$library"
