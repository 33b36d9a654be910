#!/usr/bin/env bash
# make demo: stitches the bundled Media/ content with the sample ads and prints a summary.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.build/release/interlude
OUT=out
mkdir -p "$OUT"
"$BIN" stitch Media/content.mp4 -o "$OUT/demo.mp4" -y \
  --ad-break start=Media/ad-matching.mp4 \
  --ad-break 20.5=Media/ad-mismatched.mp4,Media/ad-silent.mp4 \
  --ad-break 31.31=Media/ad-portrait.mp4 \
  --ad-break end=Media/ad-rotated.mp4 \
  --report "$OUT/demo-report.json"
echo
echo "output: $OUT/demo.mp4   report: $OUT/demo-report.json"
echo "play it with: ffplay $OUT/demo.mp4"
