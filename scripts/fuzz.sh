#!/usr/bin/env bash
# libFuzzer targets (called by `make fuzz`):
#  1. the VAST/VMAP parser: Sources/Timing as a module, then Sources/Ads + Fuzz/AdsFuzzEntry.swift
#     with `swiftc -sanitize=fuzzer -parse-as-library`, seeded from ../shared/vast-corpus, run for
#     FUZZ_RUNS executions (default 1000000) or FUZZ_SECONDS (default 600), whichever comes first;
#  2. the ad-media open path: Sources/Timing, Media and Playback + Fuzz/MediaFuzzEntry.swift, fed
#     mutated MP4s (seeds made here with the ffmpeg CLI), run for MEDIA_FUZZ_SECONDS (default 60).
# Environment: FUZZ_ARGS (extra libFuzzer flags), FUZZ_TARGETS (default "ads media"),
# SWIFTC (default: swiftc on PATH, else /opt/swift/usr/bin/swiftc).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SWIFTC=${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}
SECONDS_TO_RUN=${FUZZ_SECONDS:-600}
RUNS_TO_DO=${FUZZ_RUNS:-1000000}
MEDIA_SECONDS=${MEDIA_FUZZ_SECONDS:-60}
TARGETS=${FUZZ_TARGETS:-ads media}
OUT=$ROOT/.build/fuzz
CORPUS_SRC=${VAST_CORPUS:-$ROOT/../shared/vast-corpus}
mkdir -p "$OUT/mod" "$OUT/corpus" "$OUT/artifacts"

FINAL=0

ads_target() {
echo "fuzz: building with $SWIFTC"
"$SWIFTC" -package-name interlude -parse-as-library -sanitize=fuzzer -O -g -module-name Timing -emit-module -emit-module-path "$OUT/mod/Timing.swiftmodule" \
  -emit-library -static -o "$OUT/mod/libTiming.a" Sources/Timing/*.swift
mapfile -t ADS_SOURCES < <(find Sources/Ads -name '*.swift' | sort)
"$SWIFTC" -package-name interlude -parse-as-library -sanitize=fuzzer -O -g -module-name AdsFuzz -I "$OUT/mod" -I Sources/CCurl \
  -L "$OUT/mod" -lTiming \
  "${ADS_SOURCES[@]}" Fuzz/AdsFuzzEntry.swift -o "$OUT/ads-fuzz"

# Seeds: every corpus document plus a few hostile ones.
if [ -d "$CORPUS_SRC" ]; then
  find "$CORPUS_SRC" -name '*.xml' -print0 | while IFS= read -r -d '' f; do
    cp "$f" "$OUT/corpus/$(printf '%s' "$f" | md5sum | cut -c1-16).xml"
  done
else
  echo "fuzz: corpus not found at $CORPUS_SRC; seeding with built-in documents only"
fi
printf '<!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><VAST version="4.2">&x;</VAST>' > "$OUT/corpus/seed-xxe.xml"
printf '<vmap:VMAP version="1.0"><vmap:AdBreak timeOffset="50%%" breakType="linear"><vmap:AdSource><vmap:VASTAdData><VAST version="3.0"><Ad sequence="1"><InLine><Creatives><Creative><Linear skipoffset="10%%"><Duration>00:00:10.5</Duration></Linear></Creative></Creatives></InLine></Ad></VAST></vmap:VASTAdData></vmap:AdSource></vmap:AdBreak></vmap:VMAP>' > "$OUT/corpus/seed-vmap.xml"

echo "fuzz: running the parser for ${RUNS_TO_DO} executions (at most ${SECONDS_TO_RUN}s)"
LOG=$OUT/fuzz.log
STATUS=0
"$OUT/ads-fuzz" "$OUT/corpus" -runs="$RUNS_TO_DO" -max_total_time="$SECONDS_TO_RUN" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$OUT/artifacts/" -print_final_stats=1 ${FUZZ_ARGS:-} > "$LOG" 2>&1 || STATUS=$?
grep -E '^(#[0-9]+ +(INITED|DONE)|==|stat::|.*(crash|deadly|timeout|leak|out-of-memory))' "$LOG" || true
RUNS=$(grep -E '^stat::number_of_executed_units' "$LOG" | awk '{print $2}' | tail -1)
echo "fuzz: parser: ${RUNS:-0} executions, exit status $STATUS (log: $LOG, findings: $OUT/artifacts/)"
return "$STATUS"
}

media_target() {
  local M=$OUT/media
  mkdir -p "$M/mod" "$M/corpus" "$M/artifacts"
  echo "fuzz: building the media target"
  local FF
  FF=$(pkg-config --cflags --libs libavformat libavcodec libavfilter libavutil libswscale libswresample)
  local CC_FLAGS=()
  for f in $FF; do case $f in -I*) CC_FLAGS+=(-Xcc "$f");; -l*) CC_FLAGS+=("$f");; esac; done
  "$SWIFTC" -package-name interlude -parse-as-library -sanitize=fuzzer -O -g -module-name Timing -emit-module -emit-module-path "$M/mod/Timing.swiftmodule" \
    -emit-library -static -o "$M/mod/libTiming.a" Sources/Timing/*.swift
  for f in $(pkg-config --cflags --libs freetype2); do case $f in -I*) CC_FLAGS+=(-Xcc "$f");; -l*) CC_FLAGS+=("$f");; esac; done
  # Playback's module dependencies (Package.swift): Media, Timing, Manifest, Draw, Threads
  local MEDIA_SOURCES MANIFEST_SOURCES DRAW_SOURCES THREADS_SOURCES PLAYBACK_SOURCES
  mapfile -t MEDIA_SOURCES < <(find Sources/Media -name '*.swift' | sort)
  mapfile -t MANIFEST_SOURCES < <(find Sources/Manifest -name '*.swift' | sort)
  mapfile -t DRAW_SOURCES < <(find Sources/Draw -name '*.swift' | sort)
  mapfile -t THREADS_SOURCES < <(find Sources/Threads -name '*.swift' | sort)
  mapfile -t PLAYBACK_SOURCES < <(find Sources/Playback -name '*.swift' | sort)
  local INCLUDES=(-I "$M/mod" -I Sources/CFFmpeg -I Sources/CFreeType)
  module() { # NAME SOURCES…
    local name=$1; shift
    "$SWIFTC" -package-name interlude -parse-as-library -sanitize=fuzzer -O -g -module-name "$name" "${INCLUDES[@]}" "${CC_FLAGS[@]}" \
      -emit-module -emit-module-path "$M/mod/$name.swiftmodule" -emit-library -static -o "$M/mod/lib$name.a" "$@"
  }
  module Media "${MEDIA_SOURCES[@]}"
  module Manifest "${MANIFEST_SOURCES[@]}"
  module Draw "${DRAW_SOURCES[@]}"
  module Threads "${THREADS_SOURCES[@]}"
  module Playback "${PLAYBACK_SOURCES[@]}"
  "$SWIFTC" -package-name interlude -parse-as-library -sanitize=fuzzer -O -g -module-name MediaFuzz "${INCLUDES[@]}" "${CC_FLAGS[@]}" \
    -L "$M/mod" -lPlayback -lThreads -lDraw -lManifest -lMedia -lTiming Fuzz/MediaFuzzEntry.swift -o "$M/media-fuzz"
  # Seeds: tiny MP4s of the kinds ads come as (H.264+AAC with the index first or last, MPEG-4 Part 2, fragmented).
  if [ -z "$(ls -A "$M/corpus")" ]; then
    local SRC="-f lavfi -i testsrc2=s=64x36:r=10:d=0.5 -f lavfi -i sine=f=1000:d=0.5:r=8000"
    ffmpeg -v error -y $SRC -c:v libx264 -preset ultrafast -g 3 -c:a aac -b:a 16k -movflags +faststart "$M/corpus/h264-faststart.mp4"
    ffmpeg -v error -y $SRC -c:v libx264 -preset ultrafast -bf 2 -c:a aac -b:a 16k "$M/corpus/h264-bframes.mp4"
    ffmpeg -v error -y $SRC -c:v mpeg4 -q:v 10 -an "$M/corpus/mpeg4.mp4"
    ffmpeg -v error -y $SRC -c:v libx264 -preset ultrafast -an -movflags +frag_keyframe+empty_moov "$M/corpus/fragmented.mp4"
  fi
  echo "fuzz: running the media target for ${MEDIA_SECONDS}s"
  local LOG=$M/fuzz.log
  local STATUS=0
  "$M/media-fuzz" "$M/corpus" -max_total_time="$MEDIA_SECONDS" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$M/artifacts/" -print_final_stats=1 ${FUZZ_ARGS:-} > "$LOG" 2>&1 || STATUS=$?
  grep -E '^(#[0-9]+ +(INITED|DONE)|==|stat::|.*(crash|deadly|timeout|leak|out-of-memory))' "$LOG" || true
  local RUNS
  RUNS=$(grep -E '^stat::number_of_executed_units' "$LOG" | awk '{print $2}' | tail -1)
  echo "fuzz: media: ${RUNS:-0} executions, exit status $STATUS (log: $LOG, findings: $M/artifacts/)"
  return "$STATUS"
}

for t in $TARGETS; do
  case $t in
    ads) ads_target || FINAL=$? ;;
    media) media_target || FINAL=$? ;;
    *) echo "fuzz: unknown target $t" >&2; FINAL=2 ;;
  esac
done
rm -f /dev/shm/interlude-media-fuzz-*.mp4
exit "$FINAL"
