#!/usr/bin/env bash
# Field check: plays what Interlude wrote in independent clients, as viewers' players would.
# `make test` runs it after the swift tests pass.
#
#   scripts/field-check.sh [TEST_TMP]   the run: every output the tests kept, then the demo
#   scripts/field-check.sh ffmpeg FILE   one MP4 or playlist through `ffmpeg -v error -xerror`
#   scripts/field-check.sh gst FILE      one MP4 or playlist through GStreamer's playbin
#   scripts/field-check.sh live-ffmpeg URL SECONDS   a live playlist (http) played for SECONDS
#   scripts/field-check.sh live-gst URL SECONDS      the same in GStreamer (stopped with an EOS)
#
# Which files: the tests' outputs, not their inputs. A file is an output when a test wrote it under
# the temporary directory and found it clean with MediaVerifier.ffmpegErrors (the lenient check
# the stitch tests make on what they wrote), or kept it with FieldCheck.keep (TestSupport). Then
# FieldCheck copies it (an HLS package: its folder) under TEST_TMP/field-check/kept/ and appends
# a line `CLIENTS<TAB>PATH` to TEST_TMP/field-check/manifest.tsv, CLIENTS being `ffmpeg` or
# `ffmpeg,gst`; `make test` turns this on with FIELD_CHECK_DIR. Deliberately broken fixtures never
# get there (the lenient check fails on them, and nothing keeps them), inputs from Media/ or the
# generated-media cache are not under the temporary directory, and the copies outlive a test
# that removes its folder. Raw frame streams (nut, y4m) are not kept. The demo (Media/content.mp4
# with Media/demo-vmap.xml, as `make demo`) is stitched here by the CLI to MP4 and to HLS, and
# both go through both clients.
#
# A check fails on anything ffmpeg prints at -v error or a non-zero exit; for GStreamer on a
# missing EOS, on any ERROR line, and on any WARN line of GST_DEBUG=*:2 outside ALLOW below.
# Prints one summary line; exits 1 when any check failed. Two checks run at a time.
set -uo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")/.."

# Warnings GStreamer 1.22 prints for these files whether Interlude or the ffmpeg CLI wrote them. Discontinuity
# and corrupt-packet warnings are never allowed.
ALLOW=(
  # playbin's file source, before its pad is linked: every file
  'basesrc .*gst_base_src_start_complete.* pad not activated yet'
  # playbin (decodebin2) tries hlsdemux2 first, which wants playbin3, then uses hlsdemux
  'adaptivedemux2 .*Element requires a streams-aware context'
  'decodebin .*Couldn.t set hlsdemux2-[0-9]+ to READY'
  # MP4 boxes qtdemux does not read: sample groups (FFmpeg's mov muxer), the chapter track and list
  'qtdemux .*unknown QuickTime node type (sgpd|sbgp|text|chpl)'
  # qtdemux looks for fragment defaults in every MP4, fragmented or not
  'qtdemux .*failed to find fragment defaults for stream'
  # x264's user-data SEI ahead of the SPS in the first access unit of a TS (FFmpeg's
  # h264_mp4toannexb puts SPS/PPS right before the slice): the ffmpeg CLI's own HLS gets it too
  'h264parse .*broken/invalid nal Type: 6 SEI'
  # video without a colour matrix in its VUI (the tests' libx265 content, and the ads encoded to
  # match it): GStreamer assumes the default; playing the source MP4 itself prints the same
  'video-info .*validate_colorimetry: Need to specify a color matrix'
  'video-info .*gst_video_info_from_caps: invalid colorimetry, using default'
  # souphttpsrc (an http playlist): its context structure holds a session object GStreamer cannot print
  "structure .*No value transform to serialize field 'session' of type 'GstSoupSession'"
)

check_ffmpeg() {
  local out status
  out=$(timeout 300 ffmpeg -nostdin -hide_banner -v error -xerror -i "$1" -f null - 2>&1); status=$?
  if [ -n "$out" ] || [ "$status" -ne 0 ]; then
    printf 'FAIL ffmpeg -xerror %s (exit %d)\n%s\n' "$1" "$status" "$(head -5 <<<"$out")"; return 1
  fi
  printf 'ok   ffmpeg -xerror %s\n' "$1"
}

check_gst() {
  local out status uri bad allow
  uri="file://$(realpath "$1")"
  out=$(GST_DEBUG='*:2' GST_DEBUG_NO_COLOR=1 timeout 300 \
        gst-launch-1.0 playbin uri="$uri" video-sink=fakesink audio-sink=fakesink 2>&1); status=$?
  allow=$(IFS='|'; echo "${ALLOW[*]}")
  bad=$(grep -E '(^| )(ERROR|WARN|WARNING)( |:)' <<<"$out" | grep -vE "$allow")
  if [ "$status" -ne 0 ] || [ -n "$bad" ] || ! grep -q 'Got EOS' <<<"$out"; then
    printf 'FAIL gstreamer playbin %s (exit %d)\n%s\n' "$1" "$status" "$(head -8 <<<"${bad:-no EOS}")"; return 1
  fi
  printf 'ok   gstreamer playbin %s\n' "$1"
}

# A live stream never ends: ffmpeg reads SECONDS of it (`-t`, refreshing the playlist as a player
# does); GStreamer plays it in real time for SECONDS and is stopped (a live HLS pipeline does not
# pass an EOS through): clean when it printed no ERROR or warning outside ALLOW and its
# fpsdisplaysink rendered at least half of SECONDS' frames (at 25 fps or more), late drops (a
# loaded machine) under 5 % of them.
check_live_ffmpeg() {
  local out status
  out=$(timeout $(( $2 + 120 )) ffmpeg -nostdin -hide_banner -v error -xerror -i "$1" -t "$2" -f null - 2>&1); status=$?
  if [ -n "$out" ] || [ "$status" -ne 0 ]; then
    printf 'FAIL ffmpeg -xerror live %s (exit %d)\n%s\n' "$1" "$status" "$(head -5 <<<"$out")"; return 1
  fi
  printf 'ok   ffmpeg -xerror live %s for %s s\n' "$1" "$2"
}

check_live_gst() {
  local out status bad allow
  local last rendered dropped
  out=$(GST_DEBUG='*:2' GST_DEBUG_NO_COLOR=1 timeout -s INT -k 5 "$2" gst-launch-1.0 -v playbin uri="$1" \
        video-sink="fpsdisplaysink video-sink=fakesink text-overlay=false sync=true" audio-sink="fakesink sync=true" 2>&1); status=$?
  allow=$(IFS='|'; echo "${ALLOW[*]}")
  bad=$(grep -E '(^| )(ERROR|WARN|WARNING)( |:)' <<<"$out" | grep -vE "$allow")
  last=$(grep -oE 'rendered: [0-9]+, dropped: [0-9]+' <<<"$out" | tail -1)
  rendered=$(grep -oE 'rendered: [0-9]+' <<<"$last" | grep -oE '[0-9]+'); dropped=$(grep -oE 'dropped: [0-9]+' <<<"$last" | grep -oE '[0-9]+')
  if [ -n "$bad" ] || [ -z "$last" ] || [ "${rendered:-0}" -lt $(( $2 * 25 / 2 )) ] || [ $(( ${dropped:-1} * 20 )) -gt "${rendered:-0}" ]; then
    printf 'FAIL gstreamer playbin live %s (exit %d, %s)\n%s\n' "$1" "$status" "${last:-nothing rendered}" "$(head -8 <<<"$bad")"; return 1
  fi
  printf 'ok   gstreamer playbin live %s for %s s: %s\n' "$1" "$2" "$last"
}

case "${1:-}" in
  ffmpeg) check_ffmpeg "$2"; exit ;;
  gst) check_gst "$2"; exit ;;
  live-ffmpeg) check_live_ffmpeg "$2" "$3"; exit ;;
  live-gst) check_live_gst "$2" "$3"; exit ;;
esac

tmp=$(realpath "${1:-.build/test-tmp}")
dir="$tmp/field-check"
mkdir -p "$dir"
bin=${INTERLUDE:-.build/debug/interlude}
start=$SECONDS

# The demo, as `make demo` stitches it, to MP4 and to HLS (two stitches at once).
rm -rf "$dir/demo" && mkdir -p "$dir/demo"
demo_failed=0
for format in mp4 hls; do
  out="$dir/demo/demo.mp4"; [ "$format" = hls ] && out="$dir/demo/demo-hls"
  "$bin" stitch Media/content.mp4 --ads Media/demo-vmap.xml -o "$out" --format "$format" -q \
    --cache-dir "$dir/demo/cache-$format" > "$dir/demo/$format.log" 2>&1 &
done
for job in $(jobs -p); do wait "$job" || demo_failed=1; done
if [ "$demo_failed" -ne 0 ]; then
  echo "field check: the demo stitch failed:"; cat "$dir/demo/"*.log; exit 1
fi

# One line per check: CLIENT<TAB>PATH.
{
  for f in "$dir/demo/demo.mp4" "$dir/demo/demo-hls/index.m3u8"; do printf 'ffmpeg\t%s\ngst\t%s\n' "$f" "$f"; done
  if [ -f "$dir/manifest.tsv" ]; then
    sort -u "$dir/manifest.tsv" | while IFS=$'\t' read -r clients path; do
      printf 'ffmpeg\t%s\n' "$path"
      [[ "$clients" == *gst* ]] && printf 'gst\t%s\n' "$path"
    done
  fi
} > "$dir/checks.tsv"

: > "$dir/results.log"
tr '\t' '\n' < "$dir/checks.tsv" | xargs -d '\n' -n 2 -P 2 "$self" >> "$dir/results.log" 2>&1
total=$(wc -l < "$dir/checks.tsv")
failed=$(grep -c '^FAIL' "$dir/results.log")
outputs=$(cut -f2 "$dir/checks.tsv" | sort -u | wc -l)
if [ "$failed" -ne 0 ]; then
  grep -A8 '^FAIL' "$dir/results.log" | grep -v '^ok ' | head -60
  echo "field check: $failed of $total checks failed ($outputs outputs; log: $dir/results.log)"
  exit 1
fi
echo "field check: $total checks of $outputs outputs clean (ffmpeg -xerror, GStreamer playbin) in $((SECONDS - start)) s"
