#!/usr/bin/env bash
# Installs what CardFlow needs on a fresh Debian machine (Swift itself comes from swift.org or
# the machine image: /opt/swift). Safe to run again.
set -euo pipefail
packages=(pkg-config libusb-1.0-0-dev libftdi1-dev libssl-dev libsqlite3-dev umockdev libumockdev-dev pcscd libccid pcsc-tools libpcsc-perl
          libpcsclite-dev vsmartcard-vpicc vsmartcard-vpcd iproute2 util-linux python3-pip
          postgresql chromium
          # Independent partners (Scripts/partners-check.sh): libfreefare's tools, pyscard, and
          # what Scripts/libnfc-pcsc.sh needs to build libnfc with its pcsc driver.
          libfreefare-bin libnfc-bin python3-pyscard xxd dpkg-dev autoconf automake libtool libusb-dev
          # libfreefare's value-block API, called by Scripts/partners/libfreefare-classic-value.c.
          libfreefare-dev libnfc-dev
          # The Debian packages (Scripts/package.sh, Scripts/package-check.sh): dpkg-shlibdeps
          # (dpkg-dev, above), strip, readelf and chrpath, lintian, and a clean Debian root to install
          # them into; man-db and systemd for `man` and `systemd-analyze verify`.
          binutils chrpath lintian debootstrap man-db systemd
          # The allocation gate's LD_PRELOAD malloc counter (Benchmarks/allocations/check.sh).
          gcc)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y --no-install-recommends "${missing[@]}"
fi
# ndeflib: the independent NDEF implementation the NDEF tests cross-check against. Debian's own
# python3 refuses user pip installs (PEP 668); allow it there, it is one pure-Python package.
if ! python3 -c 'import ndef' 2>/dev/null; then
  python3 -m pip install --quiet ndeflib 2>/dev/null || python3 -m pip install --quiet --break-system-packages ndeflib
fi
# websocket-client: Scripts/report-browser-check.py talks to headless Chromium over the DevTools
# protocol with it (the bench report's browser check). Same PEP 668 fallback as ndeflib.
if ! python3 -c 'import websocket' 2>/dev/null; then
  python3 -m pip install --quiet websocket-client 2>/dev/null || python3 -m pip install --quiet --break-system-packages websocket-client
fi
# pycryptodome for vsmartcard's vicc (the vpcd interop checks): vicc imports it as "Crypto", a
# name Debian does not package, so it goes into a folder of its own that the checks put on
# PYTHONPATH (Scripts/vpcd-check.sh, Tests/CardFlowVPCDTests).
pydeps="${CARDFLOW_PYDEPS:-${XDG_CACHE_HOME:-$HOME/.cache}/cardflow/pydeps}"
if ! PYTHONPATH="$pydeps" /usr/bin/python3 -c 'import Crypto' 2>/dev/null; then
  python3 -m pip install --quiet --target "$pydeps" pycryptodome 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages --target "$pydeps" pycryptodome
fi
# PyPI desfire 0.2 (pure Python over pyscard): an independent DESFire client for
# Scripts/partners-check.sh, beside pycryptodome (no dependencies of its own beyond pyscard).
if ! PYTHONPATH="$pydeps" /usr/bin/python3 -c 'import desfire.protocol' 2>/dev/null; then
  python3 -m pip install --quiet --no-deps --target "$pydeps" desfire==0.2 2>/dev/null \
    || python3 -m pip install --quiet --no-deps --break-system-packages --target "$pydeps" desfire==0.2
fi
# nfcpy 1.0.4 (with libusb1, pyserial, pydes, ndeflib): drives the simulated ACR122U's PN532
# over libusb in Scripts/partners-check.sh (Scripts/partners/nfcpy-acr122u.py).
if ! PYTHONPATH="$pydeps" /usr/bin/python3 -c 'import nfc' 2>/dev/null; then
  python3 -m pip install --quiet --target "$pydeps" nfcpy==1.0.4 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages --target "$pydeps" nfcpy==1.0.4
fi
# pyftdi 0.57.2 (pure Python over pyusb and libusb-1.0): the partner of the emulated FTDI chip
# behind the simulated USB uFR Nano in Scripts/partners-check.sh (Scripts/partners/pyftdi-ufr.py).
if ! PYTHONPATH="$pydeps" /usr/bin/python3 -c 'import pyftdi.ftdi' 2>/dev/null; then
  python3 -m pip install --quiet --target "$pydeps" pyftdi==0.57.2 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages --target "$pydeps" pyftdi==0.57.2
fi
# libnfc with its pcsc driver, built once from Debian's source package (Debian builds it without).
bash "$(dirname "$0")/libnfc-pcsc.sh" >/dev/null
if ! command -v swift >/dev/null 2>&1; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    echo "swift is in /opt/swift/usr/bin: add it to PATH (export PATH=/opt/swift/usr/bin:\$PATH)" >&2
  else
    echo "Swift 6.1 or later is needed: https://www.swift.org/install/linux/" >&2
  fi
  exit 1
fi
