#!/usr/bin/env bash
# Field check: plays what Interlude wrote in independent clients, as viewers' players would.
# `make test` runs it after the swift tests pass.
#
#   scripts/field-check.sh [TEST_TMP]   the run: every output the tests kept, then the demo
#   scripts/field-check.sh ffmpeg FILE   one MP4 or playlist through `ffmpeg -v error -xerror`
#   scripts/field-check.sh gst FILE|URL  one MP4 or playlist through GStreamer's playbin
#   scripts/field-check.sh live-ffmpeg URL SECONDS   a live playlist (http) played for SECONDS
#   scripts/field-check.sh live-gst URL SECONDS      the same in GStreamer (stopped with an EOS)
#
# The players viewers use, strictest first (a FILE is served to them over http on 127.0.0.1 by
# scripts/field-player.py serve; TIMEOUT, default 600 s, playbin3's 300 s, bounds a VOD play):
#   scripts/field-check.sh chromium URL|FILE [TIMEOUT]  headless Chromium: native HLS, or Video.js for a DASH MPD (field-player.py)
#   scripts/field-check.sh vlc URL|FILE [TIMEOUT]       VLC (cvlc, as user nobody when run as root), -vv log
#   scripts/field-check.sh mpv URL|FILE [TIMEOUT]       mpv, its log file at -v
#   scripts/field-check.sh gst3 URL|FILE [TIMEOUT]      GStreamer's playbin3 (hlsdemux2)
#   scripts/field-check.sh live-chromium|live-vlc|live-mpv|live-gst3 URL SECONDS   a live playlist for SECONDS
# Chromium, VLC and mpv play in real time (a 20 s VOD takes 20 s and their start); playbin3 to
# fake sinks without sync, as fast as it decodes.
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
# both go through both clients. The HLS packages GStreamer plays (the demo's, and those kept with
# `ffmpeg,gst`) also go through the players in PLAYERS below.
#
# A check fails on anything ffmpeg prints at -v error or a non-zero exit; for GStreamer on a
# missing EOS, on any ERROR line, and on any WARN line of GST_DEBUG=*:2 outside ALLOW below; the
# players' rules and allowlists are with their functions below (Chromium's in field-player.py).
# Prints one summary line; exits 1 when any check failed. Two decoding checks run at a time,
# beside the real-time player checks, up to eight at once.
set -uo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")/.."

# Warnings GStreamer 1.22 prints for these files whether Interlude or the ffmpeg CLI wrote them. Discontinuity
# and corrupt-packet warnings are never allowed.
ALLOW=(
  # playbin's file source, before its pad is linked: every file
  'basesrc .*gst_base_src_start_complete.* pad not activated yet'
  # playbin (decodebin2) tries hlsdemux2 (dashdemux2) first, which wants playbin3, then uses hlsdemux (dashdemux)
  'adaptivedemux2 .*Element requires a streams-aware context'
  'decodebin .*Couldn.t set (hls|dash)demux2-[0-9]+ to READY'
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
  # hlsdemux2 (handle_internal_time): an alternate rendition's first segment of a new discontinuity
  # sequence arrived before the variant's had set that sequence's time map, so it is not
  # cross-checked, and plays on (which stream downloads first is a race on a local server)
  'hlsdemux2 .*Got data from a new discont sequence on a rendition stream'
  # hlsdemux2 (gst_hlsdemux_handle_content_webvtt, read in its source): the same race for a WebVTT
  # subtitle segment, whose X-TIMESTAMP-MAP it maps only through its discontinuity sequence's time
  # map; when the segment arrives before that sequence's first video segment there is none, its
  # cues keep their own times, fall outside the segment, and it resyncs (GStreamer shows them at
  # the wrong time; the wire times are checked in ServeSubtitlesTests and are right)
  'hlsdemux2 .*convert_webvtt_to_stream_time: Couldn.t convert value, using original value'
  'hlsdemux2 .*gst_hlsdemux_handle_content_webvtt: (Out of bounds|Cue .* is outside of segment)'
  # souphttpsrc (an http playlist): its context structure holds a session object GStreamer cannot print
  "structure .*No value transform to serialize field 'session' of type 'GstSoupSession'"
)

check_ffmpeg() {
  local out status
  out=$(timeout -k 5 300 ffmpeg -nostdin -hide_banner -v error -xerror -i "$1" -f null - 2>&1); status=$?
  if [ -n "$out" ] || [ "$status" -ne 0 ]; then
    printf 'FAIL ffmpeg -xerror %s (exit %d)\n%s\n' "$1" "$status" "$(head -5 <<<"$out")"; return 1
  fi
  printf 'ok   ffmpeg -xerror %s\n' "$1"
}

check_gst() {
  local out status uri bad allow
  case "$1" in http://*|https://*) uri=$1 ;; *) uri="file://$(realpath "$1")" ;; esac
  out=$(GST_DEBUG='*:2' GST_DEBUG_NO_COLOR=1 timeout -k 5 300 \
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
  out=$(timeout -k 5 $(( $2 + 120 )) ffmpeg -nostdin -hide_banner -v error -xerror -i "$1" -t "$2" -f null - 2>&1); status=$?
  if [ -n "$out" ] || [ "$status" -ne 0 ]; then
    printf 'FAIL ffmpeg -xerror live %s (exit %d)\n%s\n' "$1" "$status" "$(head -5 <<<"$out")"; return 1
  fi
  printf 'ok   ffmpeg -xerror live %s for %s s\n' "$1" "$2"
}

check_live_gst() {   # URL SECONDS [playbin|playbin3]
  local out status bad allow element=${3:-playbin}
  local last rendered dropped
  out=$(GST_DEBUG='*:2' GST_DEBUG_NO_COLOR=1 timeout -s INT -k 5 "$2" gst-launch-1.0 -v "$element" uri="$1" \
        video-sink="fpsdisplaysink video-sink=fakesink text-overlay=false sync=true" audio-sink="fakesink sync=true" 2>&1); status=$?
  allow=$(IFS='|'; echo "${ALLOW[*]}")
  bad=$(grep -E '(^| )(ERROR|WARN|WARNING)( |:)' <<<"$out" | grep -vE "$allow")
  last=$(grep -oE 'rendered: [0-9]+, dropped: [0-9]+' <<<"$out" | tail -1)
  rendered=$(grep -oE 'rendered: [0-9]+' <<<"$last" | grep -oE '[0-9]+'); dropped=$(grep -oE 'dropped: [0-9]+' <<<"$last" | grep -oE '[0-9]+')
  if [ -n "$bad" ] || [ -z "$last" ] || [ "${rendered:-0}" -lt $(( $2 * 25 / 2 )) ] || [ $(( ${dropped:-1} * 20 )) -gt "${rendered:-0}" ]; then
    printf 'FAIL gstreamer %s live %s (exit %d, %s)\n%s\n' "$element" "$1" "$status" "${last:-nothing rendered}" "$(head -8 <<<"$bad")"; return 1
  fi
  printf 'ok   gstreamer %s live %s for %s s: %s\n' "$element" "$1" "$2" "$last"
}

# A FILE is served over http for the players below (hlsdemux2 reads no file://, Chromium's page is
# on http, VLC runs as another user, and viewers get HLS over http): sets $url, and $server to the
# server's pid (empty for a URL).
as_url() {
  server=""; url=$1
  case "$1" in http://*|https://*) return 0 ;; esac
  if [ ! -f "$1" ]; then echo "no such file: $1"; return 1; fi
  local out base
  out=$(mktemp)
  python3 scripts/field-player.py serve "$(dirname "$(realpath "$1")")" > "$out" &
  server=$!
  for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.1; done
  base=$(head -1 "$out"); rm -f "$out"
  if [ -z "$base" ]; then echo "could not serve $1"; return 1; fi
  url="$base$(basename "$1")"
}
stop_server() { if [ -n "$server" ]; then kill -KILL "$server" 2>/dev/null; wait "$server" 2>/dev/null; fi; }

# FIELD_CHECK_LOGS=DIR keeps each VLC and mpv log there (PLAYER-PID-N.log), and Chromium's stderr
# and its page events and media log (chromium-PID-N.log, .trace): what a verdict came from.
keep_log() {   # PLAYER LOG
  [ -n "${FIELD_CHECK_LOGS:-}" ] || return 0
  mkdir -p "$FIELD_CHECK_LOGS" && cp "$2" "$FIELD_CHECK_LOGS/$1-$$-$RANDOM.log"
}
logs_for_chromium() {   # the field-player.py options that keep its log and trace
  [ -n "${FIELD_CHECK_LOGS:-}" ] || return 0
  mkdir -p "$FIELD_CHECK_LOGS"
  local base="$FIELD_CHECK_LOGS/chromium-$$-$RANDOM"
  echo "--log=$base.log --trace=$base.trace"
}

# Chromium: scripts/field-player.py says what is clean (its ALLOW, its rules) and prints the verdict.
check_chromium() {
  # shellcheck disable=SC2046 # the options are words without blanks
  python3 scripts/field-player.py chromium $(logs_for_chromium) --timeout "${2:-600}" "$1"
}
check_live_chromium() {
  # shellcheck disable=SC2046
  python3 scripts/field-player.py chromium $(logs_for_chromium) --live "$2" --timeout $(( $2 + 90 )) "$1"
}

# VLC 3.0 at -vv (debug): a check fails on any `warning:` or `error:` line outside VLC_ALLOW (and
# VLC_RESET_ALLOW, which holds only from a discontinuity to the end of the buffering after it),
# any HTTP answer 4xx/5xx in its http module's debug lines (a segment that is not there: VLC ends
# the stream there, with no warning), a non-zero exit, or no `Stream buffering done` (it never played).
VLC_ALLOW=(
  # libvlc starts a global-hotkeys interface, which needs an X display
  'main libvlc error: interface "globalhotkeys,none" initialization failed'
  'main interface error: no suitable interface module'
  # faad (VLC's AAC decoder) on the first AAC frame of a stream, the encoder's priming frame
  'faad decoder warning: decoded zero sample'
  # VLC's mp4 demuxer on the initialization section of fragmented MP4 (CMAF), whose sample tables
  # are empty by design (the samples are in the fragments): the ffmpeg CLI's own
  # `-f hls -hls_segment_type fmp4` package gets both too
  'mp4 demux warning: no chunk defined'
  'mp4 demux warning: STTS table of 0 entries'
  # the video output's clock on a loaded machine: a picture shown late by less than a second (the
  # ffmpeg CLI's reference: up to 399 ms at a load of 10 on two cores); a second or more is a
  # timestamp jump, not the machine
  'main video output warning: picture is too late to be displayed \(missing [0-9]{1,3} ms\)'
)
# At an EXT-X-DISCONTINUITY VLC's adaptive demuxer ends its TS demuxer and drains (`Ending
# demuxer stream. [discontinuity]`), resets the input clock (`ES_OUT_RESET_PCR called`) and
# buffers again (`Stream buffering done`); in that window the first blocks of the new time base
# reach the decoders before its first PCR (the ffmpeg CLI's own splice of two packages with
# EXT-X-DISCONTINUITY prints the two timestamp lines; on a loaded machine the picture already
# decoded is also dated and skipped), and a package that marks the new time base with the TS
# discontinuity_indicator gets the demuxer's note of it. Outside the window these lines count.
VLC_RESET_ALLOW=(
  'main decoder error: Timestamp conversion failed for [0-9]+: no reference clock'
  'main decoder error: Could not convert timestamp 0 for FFmpeg'
  'main decoder error: Could not get display date for timestamp [0-9]+'
  'main decoder warning: early picture skipped'
  'ts demux warning: discontinuity indicator \(pid=[0-9]+\)'
)
# VLC refuses to run as root: then it runs as FIELD_VLC_USER (default nobody, which every Debian
# has), with a fresh HOME and XDG_RUNTIME_DIR of its own. Sets $vlc_home and the array $vlc.
vlc_command() {
  vlc_home=$(mktemp -d)
  if [ "$(id -u)" = 0 ]; then
    chown "${FIELD_VLC_USER:-nobody}" "$vlc_home"
    vlc=(runuser -u "${FIELD_VLC_USER:-nobody}" -- env HOME="$vlc_home" XDG_RUNTIME_DIR="$vlc_home" vlc)
  else
    vlc=(env HOME="$vlc_home" XDG_RUNTIME_DIR="$vlc_home" vlc)
  fi
  vlc+=(-I dummy --no-dbus --ignore-config --control= --vout=vdummy --aout=adummy --no-video-title-show -vv)
}
vlc_verdict() {   # NAME LOG STATUS
  local allow reset bad http
  allow=$(IFS='|'; echo "${VLC_ALLOW[*]}")
  reset=$(IFS='|'; echo "${VLC_RESET_ALLOW[*]}")
  bad=$(awk '/Ending demuxer stream\. \[discontinuity\]/ { r = 1 } /ES_OUT_RESET_PCR called/ { r = 1; reset = 1 }
             /Stream buffering done/ { if (reset) r = reset = 0 }
             /^\[[0-9a-f]+\] .* (warning|error): |^error: / { sub(/^\[[0-9a-f]+\] /, ""); print (r ? "reset " : "") $0 }' "$2" |
        grep -vE "$allow" | grep -vE "^reset ($reset)" | sed 's/^reset //')
  http=$(awk '/^GET /{get=$2} /^HTTP\/[0-9.]+ [45][0-9][0-9]/{print "http: GET " get " -> " $0}' "$2")
  bad=$(printf '%s\n%s' "$http" "$bad" | sed '/^$/d' | awk '!seen[$0]++')
  if [ "$3" -ne 0 ] || [ -n "$bad" ] || ! grep -q 'Stream buffering done' "$2"; then
    printf 'FAIL vlc %s (exit %d)\n%s\n' "$1" "$3" "$(head -12 <<<"${bad:-never played}")"; return 1
  fi
  printf 'ok   vlc %s\n' "$1"
}
check_vlc() {
  local log status
  as_url "$1" || { printf 'FAIL vlc %s\n' "$1"; return 1; }
  log=$(mktemp); vlc_command
  timeout -k 5 "${2:-600}" "${vlc[@]}" --play-and-exit "$url" vlc://quit > "$log" 2>&1; status=$?
  stop_server
  vlc_verdict "$1" "$log" "$status"; status=$?
  keep_log vlc "$log"; rm -rf "$log" "$vlc_home"; return $status
}
# A live play must last its time: VLC quits at the end of what it takes for the whole stream
# (`EOF reached`) without a warning, which a live check must not call clean.
check_live_vlc() {
  local log status started=$SECONDS
  # played for $2 s of wall time, then stopped by SIGINT (VLC quits cleanly on it): not with
  # --run-time, which VLC counts in stream time from the stream's first timestamp, so that a
  # live playlist VLC joins 4 s in (three segments from its end) stops 4 s early
  log=$(mktemp); vlc_command
  timeout -s INT -k 10 "$2" "${vlc[@]}" "$1" > "$log" 2>&1; status=$?
  if [ "$status" -ne 124 ]; then
    printf 'FAIL vlc live %s for %s s: it stopped after %d s, exit %d (%s)\n' "$1" "$2" $(( SECONDS - started )) "$status" \
      "$(grep -c 'EOF reached' "$log") EOF"
    keep_log vlc "$log"; rm -rf "$log" "$vlc_home"; return 1
  fi
  status=0
  vlc_verdict "live $1 for $2 s" "$log" "$status"; status=$?
  keep_log vlc "$log"; rm -rf "$log" "$vlc_home"; return $status
}

# mpv 0.35 (FFmpeg's hls demuxer, its own A/V sync) with its log file (-v and more): a check fails
# on any error, warning or fatal line ([e], [w], [f]) outside MPV_ALLOW, or a non-zero exit.
MPV_ALLOW=(
  # the null audio output's simulated device ran dry: mpv fed it late, on a loaded machine (a
  # clean live origin played beside three other players); a stream that stalls is Chromium's to
  # catch (currentTime standing still)
  '^\[w\]\[cplayer\] Audio device underrun detected\.$'
  # mpv's A/V sync check, which says it fires on "too slow hardware, temporary CPU spikes" too:
  # on a clean `interlude serve` session played by six players at once (load 9 on two cores),
  # not when mpv played it alone (twice). Broken timestamps come with their own lines
  # ("Invalid audio PTS", "Packet corrupt"), which count.
  '^\[w\]\[cplayer\] ?$'
  '^\[w\]\[cplayer\] Audio/Video desynchronisation detected! Possible reasons include too slow$'
  '^\[w\]\[cplayer\] hardware, temporary CPU spikes, broken drivers, and broken files\. Audio$'
  '^\[w\]\[cplayer\] position will not match to the video \(see A-V status field\)\.$'
  # FFmpeg's HLS demuxer (through 7.x: hls.c new_rendition, "TODO: handle subtitles") reads no
  # subtitle rendition, says so of each and plays the rest: a player's limit, not the stream's
  "^\\[w\\]\\[ffmpeg/demuxer\\] hls: Can't support the subtitle\\(uri: [^)]*\\)$"
  # FFmpeg's HLS demuxer (5.1, hls.c open_url) asks its kept-alive HTTP connection for the next
  # segment; that of a clear segment cannot take an AES-128 one's `crypto+http` URL, so it says so
  # and opens a new connection: once per switch into encrypted segments (an encrypted origin's
  # session with clear ads), the bytes read in full
  "^\\[w\\]\\[ffmpeg/demuxer\\] hls: keepalive request failed for 'crypto\\+https?://[^']*' with error: 'Invalid argument' when opening url, retrying with new connection$"
)
MPV_ARGS=(--no-config --no-terminal --vo=null --ao=null)
mpv_verdict() {   # NAME LOG STATUS
  local allow bad
  allow=$(IFS='|'; echo "${MPV_ALLOW[*]}")
  bad=$(grep -aE '^\[ *[0-9.]+\]\[[ewf]\]' "$2" | sed -E 's/^\[ *[0-9.]+\]//' | grep -vE "$allow" | awk '!seen[$0]++')
  if [ "$3" -ne 0 ] || [ -n "$bad" ]; then
    printf 'FAIL mpv %s (exit %d)\n%s\n' "$1" "$3" "$(head -12 <<<"$bad")"; return 1
  fi
  printf 'ok   mpv %s\n' "$1"
}
check_mpv() {
  local log status
  as_url "$1" || { printf 'FAIL mpv %s\n' "$1"; return 1; }
  log=$(mktemp)
  timeout -k 5 "${2:-600}" mpv "${MPV_ARGS[@]}" --log-file="$log" "$url" > /dev/null 2>&1; status=$?
  stop_server
  mpv_verdict "$1" "$log" "$status"; status=$?
  keep_log mpv "$log"; rm -f "$log"; return $status
}
# Live only: FFmpeg's hls demuxer (5.1) takes each reload's EXT-X-MAP for a new initialization
# section (hls.c compares the parsed map by pointer, not by URI), so it reads the same map again
# after every refresh of any live fMP4 playlist and its MP4 reader skips the repeated moov (the
# same line is reported against other live fMP4 origins: bluenviron/mediamtx#5327). The map's URI
# and bytes never change (ServeLiveCMAFTests checks it); VOD playlists, read once, stay without it.
MPV_LIVE_ALLOW=(
  '^\[w\]\[ffmpeg/demuxer\] mov,mp4,m4a,3gp,3g2,mj2: Found duplicated MOOV Atom\. Skipped it$'
)
check_live_mpv() {
  local log status
  local MPV_ALLOW=("${MPV_ALLOW[@]}" "${MPV_LIVE_ALLOW[@]}")
  log=$(mktemp)
  timeout -k 5 $(( $2 + 60 )) mpv "${MPV_ARGS[@]}" --log-file="$log" --length="$2" "$1" > /dev/null 2>&1; status=$?
  mpv_verdict "live $1 for $2 s" "$log" "$status"; status=$?
  keep_log mpv "$log"; rm -f "$log"; return $status
}

# GStreamer's playbin3 (uridecodebin3, hlsdemux2): the rules and the allowlist of check_gst.
check_gst3() {
  local out status bad allow
  as_url "$1" || { printf 'FAIL gstreamer playbin3 %s\n' "$1"; return 1; }
  out=$(GST_DEBUG='*:2' GST_DEBUG_NO_COLOR=1 timeout -k 5 "${2:-300}" \
        gst-launch-1.0 playbin3 uri="$url" video-sink=fakesink audio-sink=fakesink 2>&1); status=$?
  stop_server
  allow=$(IFS='|'; echo "${ALLOW[*]}")
  bad=$(grep -E '(^| )(ERROR|WARN|WARNING)( |:)' <<<"$out" | grep -vE "$allow" | awk '!seen[$0]++')
  if [ "$status" -ne 0 ] || [ -n "$bad" ] || ! grep -q 'Got EOS' <<<"$out"; then
    printf 'FAIL gstreamer playbin3 %s (exit %d)\n%s\n' "$1" "$status" "$(head -8 <<<"${bad:-no EOS}")"; return 1
  fi
  printf 'ok   gstreamer playbin3 %s\n' "$1"
}

case "${1:-}" in
  ffmpeg) check_ffmpeg "$2"; exit ;;
  gst) check_gst "$2"; exit ;;
  live-ffmpeg) check_live_ffmpeg "$2" "$3"; exit ;;
  live-gst) check_live_gst "$2" "$3"; exit ;;
  chromium) check_chromium "$2" "${3:-}"; exit ;;
  vlc) check_vlc "$2" "${3:-}"; exit ;;
  mpv) check_mpv "$2" "${3:-}"; exit ;;
  gst3) check_gst3 "$2" "${3:-}"; exit ;;
  live-chromium) check_live_chromium "$2" "$3"; exit ;;
  live-vlc) check_live_vlc "$2" "$3"; exit ;;
  live-mpv) check_live_mpv "$2" "$3"; exit ;;
  live-gst3) check_live_gst "$2" "$3" playbin3; exit ;;
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

# The players viewers use, for the static HLS packages that GStreamer plays (the demo's, and those
# kept with `ffmpeg,gst`). Not Chromium: its media log has a warning on the demo package, "Large
# timestamp gap detected; may cause AV sync to drift" (audio 63-87 ms late after four of its
# EXT-X-DISCONTINUITY tags), which the ffmpeg CLI's own splice of two packages does not get.
PLAYERS=(gst3 vlc mpv)

# One line per check: CLIENT<TAB>PATH; the real-time players' checks (VLC and mpv play each
# package for its whole duration, about a minute) in realtime.tsv, the rest in checks.tsv.
{
  for p in "${PLAYERS[@]}"; do printf '%s\t%s\n' "$p" "$dir/demo/demo-hls/index.m3u8"; done
  if [ -f "$dir/manifest.tsv" ]; then
    sort -u "$dir/manifest.tsv" | while IFS=$'\t' read -r clients path; do
      if [[ "$clients" == *gst* && "$path" == *.m3u8 ]]; then
        for p in "${PLAYERS[@]}"; do printf '%s\t%s\n' "$p" "$path"; done
      fi
      # a DASH MPD: VLC, mpv, and Chromium through Video.js (scripts/field-player.html). Not
      # playbin3: on a loaded machine GStreamer 1.22's dashdemux2 stops a presentation longer than
      # its 30 s buffer for good, "Prerolled, waiting for buffering to finish" at 99% with both
      # tracks full (4 of 6 runs of the kept 59 s package beside two busy loops; 3 of 3 alone, and
      # with python's http.server too). The service's short DASH sessions play in playbin3 in
      # ServeDASHTests.
      if [[ "$clients" == *gst* && "$path" == *.mpd ]]; then
        for p in vlc mpv chromium; do printf '%s\t%s\n' "$p" "$path"; done
      fi
    done
  fi
} > "$dir/players.tsv"
grep -P '^(vlc|mpv|chromium)\t' "$dir/players.tsv" > "$dir/realtime.tsv"
{
  grep -vP '^(vlc|mpv|chromium)\t' "$dir/players.tsv"
  for f in "$dir/demo/demo.mp4" "$dir/demo/demo-hls/index.m3u8"; do printf 'ffmpeg\t%s\ngst\t%s\n' "$f" "$f"; done
  if [ -f "$dir/manifest.tsv" ]; then
    sort -u "$dir/manifest.tsv" | while IFS=$'\t' read -r clients path; do
      printf 'ffmpeg\t%s\n' "$path"
      [[ "$clients" == *gst* ]] && printf 'gst\t%s\n' "$path"
    done
  fi
} > "$dir/checks.tsv"

: > "$dir/results.log"
# The real-time checks wait on the clock more than they use the CPU (a 360p package decodes in a
# fraction of a core): up to eight at once, beside the decoding checks two at a time. The
# players' allow-lists hold for a loaded machine (a picture late by under a second, an audio
# underrun), not for a broken stream.
tr '\t' '\n' < "$dir/realtime.tsv" | xargs -r -d '\n' -n 2 -P 8 "$self" > "$dir/results-realtime.log" 2>&1 &
realtime=$!
tr '\t' '\n' < "$dir/checks.tsv" | xargs -d '\n' -n 2 -P 2 "$self" >> "$dir/results.log" 2>&1
wait "$realtime"
cat "$dir/results-realtime.log" >> "$dir/results.log"
cat "$dir/realtime.tsv" >> "$dir/checks.tsv"
total=$(wc -l < "$dir/checks.tsv")
failed=$(grep -c '^FAIL' "$dir/results.log")
outputs=$(cut -f2 "$dir/checks.tsv" | sort -u | wc -l)
if [ "$failed" -ne 0 ]; then
  grep -A8 '^FAIL' "$dir/results.log" | grep -v '^ok ' | head -60
  echo "field check: $failed of $total checks failed ($outputs outputs; log: $dir/results.log)"
  exit 1
fi
echo "field check: $total checks of $outputs outputs clean (ffmpeg -xerror, GStreamer playbin; HLS packages also playbin3, VLC, mpv; MPDs also VLC, mpv, Chromium with Video.js) in $((SECONDS - start)) s"
