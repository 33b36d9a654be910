#!/usr/bin/env bash
# Benchmarks Interlude against the ffmpeg CLI (decode, stitch, splice latency, stages, memory).
# Run through `make bench` (which release-builds first) or directly:
#   scripts/bench.sh                      all generated cases (720p/1080p, 60 s and 10 min)
#   BENCH_QUICK=1 scripts/bench.sh        720p 60 s only, 3 runs
#   scripts/bench.sh FILE…                the given files as content (or BENCH_FILES="FILE …")
# Knobs: BENCH_RUNS BENCH_WARMUP BENCH_CASES BENCH_SUITES BENCH_THREADS BENCH_PRESET BENCH_CRF
#        BENCH_NOTE BENCH_RESULTS. Results: bench-results/latest.{json,md}. See docs/BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in ffmpeg ffprobe; do
  command -v "$tool" >/dev/null || { echo "bench: $tool not found (make setup installs it)" >&2; exit 1; }
done
bin=.build/release
if [ ! -x "$bin/interlude-bench" ] || [ ! -x "$bin/interlude" ]; then
  swift build -c release --product interlude
  swift build -c release --product interlude-bench
fi

files=("$@")
if [ ${#files[@]} -eq 0 ] && [ -n "${BENCH_FILES:-}" ]; then
  read -r -a files <<< "$BENCH_FILES"
fi
exec "$bin/interlude-bench" "${files[@]}"
