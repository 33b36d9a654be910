#!/usr/bin/env bash
# Regression check for `interlude stitch`: run.sh with the old binary, run.sh with the new one,
# compare.sh on the two folders (README.md in this folder).
#
#   run.sh BIN OUTDIR [CASE...]
#
# Media: $STITCH_MEDIA, else $STITCH_WORK/media, else .build/stitch-regression/media at the
# repository root. When that folder is missing, make-media.sh generates it (ffmpeg CLI, ~3 s).
# Use the same media folder for both runs.
#
# Runs every case (or only the named ones) with BIN against that media and writes,
# per case, OUTDIR/CASE/:
#   cmd.txt            the stitch arguments (run from the media folder, so tags and ads are relative paths)
#   rc                 exit status
#   stdout.raw/.txt    summary printed by the stitch (raw / normalised: paths, "took" timings)
#   stderr.raw/.txt    same for standard error
#   report.json        the --report as written; report.norm.json: volatile keys dropped
#                      (timings, conformSeconds), paths -> <CASE>/<MEDIA>, cb=<CB>, keys sorted
#   out.mp4|out.nut|out.y4m|out/   the output (HLS: a folder; index.m3u8.norm has the wall-clock
#                      dates made relative to the first one)
#   video.framemd5     ffmpeg -i OUT -map 0:v -f framemd5 -   (decoded frames)
#   audio.framemd5     ffmpeg -i OUT -map 0:a -f framemd5 -   (decoded samples)
#   packets.framemd5   ffmpeg -i OUT -map 0 -c copy -f framemd5 -  (encoded packets, ts, flags)
#   probe.txt          ffprobe streams, format and chapters (readable; compared too)
#   bytes.sha256       sha256 of the output file(s) (HLS: the .ts segments) and of written companions
#   cache.txt          names of the files left in the case's own cache dir (transcode cache keys)
#   time.txt           wall seconds (information only, never compared)
# Raw .nut/.y4m outputs are deleted after hashing (KEEP_RAW=1 keeps them). OUTDIR/env.txt records
# the CPU count/affinity and FFmpeg version (libx264's output depends on its thread count, which
# it takes from the CPUs available: compare runs made on the same machine with the same affinity).
# OUTDIR/media.sha256 records the media the run used (compare.sh warns when two runs' differ).
# Every case gets its own empty --cache-dir and HOME, so the transcode cache always starts cold
# (a hit inside one run, e.g. the same ad twice, is part of the baseline).
set -u
BIN=${1:?usage: run.sh BIN OUTDIR [CASE...]}
OUTDIR=${2:?usage: run.sh BIN OUTDIR [CASE...]}
shift 2
ONLY=("$@")
[ -x "$BIN" ] || { echo "run.sh: $BIN is not an executable" >&2; exit 1; }
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
MEDIA=${STITCH_MEDIA:-${STITCH_WORK:-$ROOT/.build/stitch-regression}/media}
if [ ! -d "$MEDIA" ]; then
  "$HERE/make-media.sh" "$MEDIA" || { echo "run.sh: make-media.sh failed" >&2; exit 1; }
fi
MEDIA=$(cd "$MEDIA" && pwd)
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
export LC_ALL=C TZ=UTC
NORM="python3 $HERE/norm.py"
: > "$OUTDIR/cases.txt"
# The machine facts the outputs depend on. libx264 picks its thread count from the CPUs this
# process may use (x264 "threads=3" on 2 cores), and x264's output depends on its thread count:
# a run with another CPU count or affinity (taskset, a container's cpuset) gives other bytes and,
# for full re-encodes, other decoded frames. compare.sh warns when these differ.
{
  echo "nproc=$(nproc)"
  echo "affinity=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //')"
  echo "ffmpeg=$(ffmpeg -version | head -1)"
  echo "kernel=$(uname -srm)"
} > "$OUTDIR/env.txt"
{
  echo "bin=$BIN"
  echo "bin_sha256=$(sha256sum "$BIN" | cut -d' ' -f1)"
  echo "date=$(date -u +%FT%TZ)"
  echo "media=$MEDIA"
} > "$OUTDIR/run-info.txt"
(cd "$MEDIA" && sha256sum $(ls | sort)) > "$OUTDIR/media.sha256"

want() {
  [ ${#ONLY[@]} -eq 0 ] && return 0
  local c; for c in "${ONLY[@]}"; do [ "$c" = "$1" ] && return 0; done; return 1
}

hash_media() { # FILE DIR
  local in=$1 d=$2
  ffmpeg -nostdin -v error -i "$in" -map 0:v -f framemd5 - > "$d/video.framemd5" 2> "$d/video.err" || echo "ffmpeg failed: $?" >> "$d/video.err"
  if ffprobe -v error -select_streams a -show_entries stream=index -of csv=p=0 "$in" | grep -q .; then
    ffmpeg -nostdin -v error -i "$in" -map 0:a -f framemd5 - > "$d/audio.framemd5" 2> "$d/audio.err" || echo "ffmpeg failed: $?" >> "$d/audio.err"
  else
    echo "no audio stream" > "$d/audio.framemd5"
  fi
  ffmpeg -nostdin -v error -i "$in" -map 0 -c copy -f framemd5 - > "$d/packets.framemd5" 2> "$d/packets.err" || echo "ffmpeg failed: $?" >> "$d/packets.err"
  ffprobe -v error -show_entries "format=format_name,duration,nb_streams:stream=index,codec_name,codec_tag_string,profile,level,width,height,sample_aspect_ratio,pix_fmt,r_frame_rate,avg_frame_rate,time_base,start_time,duration,nb_frames,sample_rate,channels,channel_layout,bit_rate:chapter=start_time,end_time:chapter_tags=title" \
    -of default=noprint_wrappers=0 "$in" 2>&1 | sed "s#$OUTDIR#<OUTDIR>#g" > "$d/probe.txt"
}

# run_case NAME KIND ARGS...   KIND: mp4 | nut | y4m | hls
run_case() {
  local name=$1 kind=$2; shift 2
  want "$name" || return 0
  echo "$name" >> "$OUTDIR/cases.txt"
  local d="$OUTDIR/$name"
  rm -rf "$d"; mkdir -p "$d/.home" "$d/.cache"
  local out
  case $kind in
    hls) out="$d/out" ;;
    *) out="$d/out.$kind" ;;
  esac
  local a args=()
  for a in "$@"; do args+=("${a//@CASE@/$d}"); done   # @CASE@ in an argument: the case folder
  args+=(-o "$out" --report "$d/report.json" --cache-dir "$d/.cache" -y)
  [ "$kind" != mp4 ] && args+=(--format "$kind")
  printf '%q ' stitch "${args[@]}" | sed "s#$d#<CASE>#g" > "$d/cmd.txt"; echo >> "$d/cmd.txt"
  local t0 t1 rc
  t0=$(date +%s.%N)
  (cd "$MEDIA" && HOME="$d/.home" timeout 600 "$BIN" stitch "${args[@]}" < /dev/null > "$d/stdout.raw" 2> "$d/stderr.raw")
  rc=$?
  t1=$(date +%s.%N)
  echo "$rc" > "$d/rc"
  python3 -c "print(round($t1-$t0,2))" > "$d/time.txt"
  $NORM text "$d/stdout.raw" "$d" "$MEDIA" > "$d/stdout.txt"
  $NORM text "$d/stderr.raw" "$d" "$MEDIA" > "$d/stderr.txt"
  if [ -f "$d/report.json" ]; then
    $NORM report "$d/report.json" "$d" "$MEDIA" > "$d/report.norm.json"
  else
    echo "no report" > "$d/report.norm.json"
  fi
  : > "$d/bytes.sha256"
  if [ "$kind" = hls ]; then
    if [ -f "$out/index.m3u8" ]; then
      $NORM m3u8 "$out/index.m3u8" "$d" "$MEDIA" > "$d/index.m3u8.norm"
      (cd "$out" && ls | grep -v '^index.m3u8$' | sort | xargs -r sha256sum) >> "$d/bytes.sha256"
      hash_media "$out/index.m3u8" "$d"
    else
      echo "no output" > "$d/index.m3u8.norm"
    fi
  elif [ -f "$out" ]; then
    (cd "$d" && sha256sum "out.$kind") >> "$d/bytes.sha256"
    hash_media "$out" "$d"
  else
    echo "no output" > "$d/video.framemd5"; echo "no output" > "$d/audio.framemd5"
    echo "no output" > "$d/packets.framemd5"; echo "no output" > "$d/probe.txt"
  fi
  # Raw frame streams are ~100 MB each: hashed above, then removed unless KEEP_RAW=1.
  if [ "${KEEP_RAW:-0}" != 1 ] && { [ "$kind" = nut ] || [ "$kind" = y4m ]; }; then rm -f "$out"; fi
  if [ -d "$d/companions" ]; then
    (cd "$d" && find companions -type f | sort | xargs -r sha256sum) >> "$d/bytes.sha256"
  fi
  (cd "$d/.cache" && find . -type f | sed 's#^\./##' | sort) > "$d/cache.txt"
  rm -rf "$d/.cache" "$d/.home"
  printf '%-28s rc=%s  %ss\n' "$name" "$rc" "$(cat "$d/time.txt")"
}

# The cases. Media (make-media.sh): content.mp4 8 s 640x360 30 fps GOP 60 (2 s) stereo 48 kHz;
# content-hevc.mp4 6 s HEVC Main closed GOPs (smart-rendered with libx265),
# content-hevc-opengop.mp4 the same with open GOPs (smart falls back: 'open GOPs'); ad1.mp4 2 s 640x360 30 fps stereo 48 kHz;
# ad2.mp4 3 s 480x360 25 fps mono 44.1 kHz (conformed); corrupt.mp4 random bytes;
# truncated.mp4 first 30 % of a faststart ad1.mp4; missing.mp4 does not exist;
# content-lead.mp4 content.mp4 with its video behind a 1 s empty edit (audio from 0).
SCHED=(--ad-break 2=ad1.mp4 --ad-break 5.5=ad1.mp4,ad2.mp4 --ad-break end=ad2.mp4)

run_case a-media-smart-auto   mp4 content.mp4 "${SCHED[@]}"
run_case b-media-smart-off    mp4 content.mp4 "${SCHED[@]}" --smart off
run_case b2-media-smart-on    mp4 content.mp4 "${SCHED[@]}" --smart on
run_case c-nut-preroll        nut content.mp4 --ad-break start=ad1.mp4
run_case c2-y4m-midroll       y4m content.mp4 --ad-break 3.5=ad2.mp4
run_case d-hls                hls content.mp4 "${SCHED[@]}" --hls-time 2
run_case d2-hls-vmap          hls content.mp4 --ads vmap.xml --hls-time 2
run_case e-vmap               mp4 content.mp4 --ads vmap.xml
run_case e2-vmap-smart-off    mp4 content.mp4 --ads vmap.xml --smart off
run_case f-vast-preroll       mp4 content.mp4 --ads vast-inline.xml
run_case g-mixed-tag-media    mp4 content.mp4 --ad-break 3.5=vast-ad2.xml,ad1.mp4
run_case h-doublebox-adbreak  mp4 content.mp4 --ad-break 3=ad1.mp4@doublebox --smart off
run_case h2-doublebox-reverse-auto mp4 content.mp4 --ad-break 3=ad2.mp4@doublebox-reverse:mute
run_case i-vmap-doublebox     mp4 content.mp4 --ads vmap-doublebox.xml --smart off
run_case i2-vmap-doublebox-hls hls content.mp4 --ads vmap-doublebox.xml --smart off --hls-time 2
run_case j-loudness-auto      mp4 content.mp4 --ad-break 2=ad1.mp4 --ad-break end=ad2.mp4 --loudness auto
run_case j2-loudness-23-vmap  mp4 content.mp4 --ads vmap.xml --loudness -23
run_case k-adui-none          mp4 content.mp4 --ads vmap.xml --ad-ui none
run_case l-failing-ads        mp4 content.mp4 --ad-break 2=missing.mp4,ad1.mp4 --ad-break 5=corrupt.mp4,ad2.mp4,truncated.mp4
run_case l2-failing-all       mp4 content.mp4 --ad-break 2=corrupt.mp4 --ad-break end=missing.mp4
run_case m-companions-lbar    mp4 content.mp4 --ads vast-companions.xml --companions lbar
run_case m2-companions-dir    mp4 content.mp4 --ads vast-companions.xml --companions @CASE@/companions
run_case n-odd-cue            mp4 content.mp4 --ad-break 1.2345=ad1.mp4
run_case n2-odd-cue-tag       mp4 content.mp4 --ad-break 1.2345=vast-ad2.xml,ad1.mp4
run_case o-hevc-smart         mp4 content-hevc.mp4 --ad-break 2.5=ad1.mp4 --ad-break end=ad2.mp4
run_case o2-hevc-opengop-fallback mp4 content-hevc-opengop.mp4 --ad-break 2.5=ad1.mp4
run_case p-overlay-vmap       mp4 content.mp4 --ads vmap-overlay.xml
run_case q-size-fps           mp4 content.mp4 --ad-break 3=ad1.mp4,ad2.mp4 --size 320x240 --fps 25
run_case r-err-doublebox-end  mp4 content.mp4 --ad-break end=ad1.mp4@doublebox
run_case r2-err-adui-media-only mp4 content.mp4 --ad-break 2=ad1.mp4 --ad-ui none
run_case r3-err-cue-past-end  mp4 content.mp4 --ad-break 20=ad1.mp4
run_case s-lead-edit-smart    mp4 content-lead.mp4 --ad-break 3.5=ad1.mp4 --ad-break end=ad2.mp4
run_case s2-lead-edit-smart-off mp4 content-lead.mp4 --ad-break 3.5=ad1.mp4 --smart off
run_case t-one-cue-two-breaks  mp4 content.mp4 --ad-break 3=ad1.mp4 --ad-break 3=ad2.mp4 --ad-break end=ad1.mp4
run_case t2-one-cue-two-breaks-tag mp4 content.mp4 --ad-break 3=vast-ad2.xml --ad-break 3=ad1.mp4 --ad-break 5=ad1.mp4
exit 0
