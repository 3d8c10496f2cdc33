#!/usr/bin/env bash
# A full-page screenshot (1200 px wide) of a bench HTML report, through the same headless
# Chromium check the tests use (Scripts/report-browser-check.py): the page must load without
# console errors and draw its charts, or no picture is kept.
#
#   Scripts/report-screenshot.sh REPORT.html OUT.png
#
# The README's picture: cardctl bench … --report /tmp/bench.html, then
#   Scripts/report-screenshot.sh /tmp/bench.html docs/images/bench-report.png
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: Scripts/report-screenshot.sh REPORT.html OUT.png" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
python3 "$here/report-browser-check.py" "$1" --screenshot "$2" >/dev/null
echo "wrote $2"
