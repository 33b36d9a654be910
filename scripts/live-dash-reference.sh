#!/usr/bin/env bash
# Whether this machine's players play live DASH at all: FFmpeg's own dash muxer makes a live MPD
# in real time (one Period, SegmentTimeline, 2 s segments, a 5-segment window), served on
# 127.0.0.1, and each player follows it for SECONDS (default 30):
#
#   scripts/live-dash-reference.sh [SECONDS]
#
# chromium: Video.js 7.5.5 (PyPI's js.videojs, `make setup`) over MSE, scripts/field-player.py's
# live verdict (currentTime must advance at least SECONDS / 2); gst3 and gst: GStreamer's playbin3
# and playbin, the pictures they render. docs/SERVE.md ("Live DASH") cites what it printed: none of
# them follows FFmpeg's own live MPD either, so no live DASH check in a player is possible here.
set -u
SECONDS_TO_PLAY=${1:-30}
HERE=$(cd "$(dirname "$0")/.." && pwd)
PY="$HERE/.build/pyenv/bin/python"
[ -x "$PY" ] || { echo "live-dash-reference: run make setup first" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
ffmpeg -nostdin -v error -re -f lavfi -i "testsrc2=size=320x180:rate=30" -f lavfi -i "sine=frequency=440:sample_rate=48000" \
    -t $((SECONDS_TO_PLAY * 3 + 30)) -c:v libx264 -preset veryfast -g 60 -keyint_min 60 -sc_threshold 0 -pix_fmt yuv420p \
    -c:a aac -b:a 96k -f dash -seg_duration 2 -window_size 5 -extra_window_size 3 -use_timeline 1 -use_template 1 \
    "$WORK/live.mpd" &
sleep 10
"$PY" "$HERE/scripts/field-player.py" chromium --live "$SECONDS_TO_PLAY" --timeout $((SECONDS_TO_PLAY * 2 + 30)) "$WORK/live.mpd" 2>&1 | head -3
PORT=18$((RANDOM % 900 + 100))
(cd "$WORK" && exec python3 -m http.server "$PORT" --bind 127.0.0.1 >/dev/null 2>&1) &
sleep 1
for player in playbin3 playbin; do
    frames=$(timeout "$SECONDS_TO_PLAY" gst-launch-1.0 -v "$player" uri="http://127.0.0.1:$PORT/live.mpd" \
        video-sink="fpsdisplaysink video-sink=fakesink text-overlay=false signal-fps-measurements=true" audio-sink=fakesink 2>&1 \
        | grep -o "rendered: [0-9]*" | tail -1)
    echo "gstreamer $player: ${frames:-rendered: 0} pictures in $SECONDS_TO_PLAY s"
done
