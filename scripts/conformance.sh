#!/usr/bin/env bash
# Runs every document of ../shared/vast-corpus through `interlude inspect --conformance` (one process,
# offline: network wrappers fail fast with 301) and prints a table: file, version, ads, media files,
# error codes. Exits non-zero only on a crash or an unexpected outcome (undefined error 900 or a
# non-VAST failure). Called by `make conformance`. Environment: VAST_CORPUS overrides the corpus path.
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${VAST_CORPUS:-../shared/vast-corpus}
if [ ! -d "$CORPUS" ]; then
  echo "conformance: corpus not found at $CORPUS" >&2
  exit 1
fi
swift build -c release --product interlude >/dev/null
BIN=$(swift build -c release --product interlude --show-bin-path)/interlude
set +e
"$BIN" inspect --conformance "$CORPUS"
STATUS=$?
set -e
if [ $STATUS -gt 1 ]; then echo "conformance: interlude crashed (status $STATUS)" >&2; fi
exit $STATUS
