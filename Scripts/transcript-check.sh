#!/usr/bin/env bash
# Replays pcscd + libccid debug logs through CardFlow's CCID driver: each LOG as pasted into a bug
# report (LIBCCID_ifdLogLevel=0x000F pcscd --foreground --debug --apdu), so a report becomes a
# test. Prints each operation with pcscd's outcome and CardFlow's, and every frame the recording
# did not accept (see the CardFlowTranscripts documentation for the tolerance rules).
#
# Usage:
#   Scripts/transcript-check.sh [--reader-profile PATH] LOG...
#     --reader-profile  the reader's descriptor dump, when neither a '# descriptor:' line nor the
#                       log's VID:PID finds one in Tests/Fixtures/ccid-readers
#   Scripts/transcript-check.sh Tests/Fixtures/transcripts/*.log    the whole corpus
#
# Exit status: 0 every log replays identically, 3 one differs, 2 a log cannot be read.
set -euo pipefail
# LOG paths are the caller's: stay in the caller's directory.
root="$(cd "$(dirname "$0")/.." && pwd)"
export PATH="/opt/swift/usr/bin:$PATH"
cardctl="$root/.build/debug/cardctl"
if [[ ! -x "$cardctl" ]]; then
  swift build --package-path "$root" --product cardctl >&2
fi
exec "$cardctl" transcript-check --fixtures "$root/Tests/Fixtures/ccid-readers" "$@"
