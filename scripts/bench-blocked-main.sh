#!/bin/sh
# Four stitches one after another, then four at once with the main thread blocked (issue 19,
# item 3): prints both wall times and their ratio (asked: <= 0.6 on 2 cores). A benchmark, not
# a test: run it on a quiet machine. BIN defaults to the release build of interlude-bench.
set -eu
BIN=${BIN:-.build/release/interlude-bench}
W=${BENCH_WORK:-.build/bench-blocked-main}
mkdir -p "$W"
gen() {  # gen NAME SECONDS SIZE FPS TONE
    [ -f "$W/$1" ] || ffmpeg -v error -y -f lavfi -i "testsrc2=size=$3:rate=$4:duration=$2" \
        -f lavfi -i "sine=frequency=$5:sample_rate=48000:duration=$2" -c:v libx264 -preset veryfast -crf 23 \
        -g 60 -sc_threshold 0 -pix_fmt yuv420p -c:a aac -ac 2 -threads 1 -movflags +faststart "$W/$1"
}
gen content.mp4 8 640x360 30 440
gen ad1.mp4 2 640x360 30 880
gen ad2.mp4 3 480x360 25 660
CPUS=${CPUS:-0,1}
echo "cpus $CPUS, $(nproc) online; load $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$W/out"
exec taskset -c "$CPUS" "$BIN" --blocked-main "$W/content.mp4" "$W/ad1.mp4" "$W/ad2.mp4" "$W/out"
