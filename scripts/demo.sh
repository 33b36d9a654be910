#!/usr/bin/env bash
# make demo: stitches the bundled Media/ content through the VMAP ad rules in Media/demo-vmap.xml
# (pre-roll, two mid-rolls, post-roll) with AdsLoader/AdsManager, and prints a summary.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.build/release/interlude
OUT=out
mkdir -p "$OUT"
"$BIN" stitch Media/content.mp4 --ads Media/demo-vmap.xml -o "$OUT/demo.mp4" -y \
  --report "$OUT/demo-report.json"
echo
echo "output: $OUT/demo.mp4   report: $OUT/demo-report.json"
echo "play it with: ffplay $OUT/demo.mp4"
