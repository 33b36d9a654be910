#!/usr/bin/env bash
# make-media.sh [DIR]
#
# Generates the media of the `interlude stitch` regression cases into DIR (default:
# .build/stitch-regression/media at the repository root) with the ffmpeg CLI only: lavfi sources
# with fixed parameters, single-threaded encoders (x264 threads=1, x265 frame-threads=1 pools=1),
# so the files do not depend on the machine's CPU count. The VAST/VMAP tags are copied from tags/
# (they name their media by relative path). run.sh calls this when its media folder is missing.
#
# The files are built in DIR.tmp.PID and moved to DIR at the end, so an interrupted run leaves no
# half-made DIR. DIR must not exist (FORCE=1 replaces it). At the end every file is checked
# against media.sha256, the hashes made with FFmpeg 5.1.9 (Debian 12: x264 core 164, x265 3.5,
# the native AAC encoder); another FFmpeg may encode other bytes, which is reported, not an error:
# a comparison of two binaries stays valid as long as both runs use the same media folder.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DIR=${1:-$ROOT/.build/stitch-regression/media}
FFMPEG=${FFMPEG:-ffmpeg}
if [ -e "$DIR" ]; then
  if [ "${FORCE:-0}" = 1 ]; then rm -rf "$DIR"; else echo "make-media.sh: $DIR exists (FORCE=1 replaces it)" >&2; exit 1; fi
fi
mkdir -p "$(dirname "$DIR")"
DIR=$(cd "$(dirname "$DIR")" && pwd)/$(basename "$DIR")
TMP=$DIR.tmp.$$
rm -rf "$TMP"; mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
ff() { "$FFMPEG" -nostdin -hide_banner -v error -y "$@"; }
X264=(-c:v libx264 -preset veryfast -crf 23 -threads 1 -pix_fmt yuv420p)
# x265: ultrafast, keyframe every 2 s without scene cuts; open-gop=0 (closed GOPs, smart-renderable)
# or 1 (the fallback case). hvc1 tag as the baseline was made with.
X265P=keyint=60:min-keyint=60:scenecut=0:frame-threads=1:pools=1:log-level=error

# content.mp4: 8 s 640x360 30 fps, GOP 60 (2 s) with no scene cuts, 440 Hz stereo 48 kHz, faststart.
ff -f lavfi -i testsrc2=s=640x360:r=30:d=8 -f lavfi -i sine=f=440:r=48000:d=8 \
   "${X264[@]}" -g 60 -keyint_min 60 -sc_threshold 0 -c:a aac -ac 2 -b:a 128k -movflags +faststart content.mp4
# content-lead.mp4: content.mp4's audio from 0 and its video behind a 1 s empty edit (a phone
# file's leading edit: the mp4 muxer writes the edit list for -itsoffset): audio 0-8 s, video
# 1-9 s; stream copies.
ff -i content.mp4 -itsoffset 1 -i content.mp4 -map 0:a -map 1:v -c copy content-lead.mp4
# content-hevc.mp4 / content-hevc-opengop.mp4: 6 s HEVC Main, 330 Hz stereo; closed / open GOPs.
ff -f lavfi -i testsrc2=s=640x360:r=30:d=6 -f lavfi -i sine=f=330:r=48000:d=6 \
   -c:v libx265 -preset ultrafast -crf 28 -x265-params "$X265P:open-gop=0" -tag:v hvc1 -pix_fmt yuv420p \
   -c:a aac -ac 2 -b:a 128k content-hevc.mp4
ff -f lavfi -i testsrc2=s=640x360:r=30:d=6 -f lavfi -i sine=f=330:r=48000:d=6 \
   -c:v libx265 -preset ultrafast -crf 28 -x265-params "$X265P:open-gop=1" -tag:v hvc1 -pix_fmt yuv420p \
   -c:a aac -ac 2 -b:a 128k content-hevc-opengop.mp4
# ad1.mp4: 2 s 640x360 30 fps (testsrc), GOP 30, 880 Hz stereo 48 kHz (matches the content).
ff -f lavfi -i testsrc=s=640x360:r=30:d=2 -f lavfi -i sine=f=880:r=48000:d=2 \
   "${X264[@]}" -g 30 -c:a aac -ac 2 -b:a 128k ad1.mp4
# ad2.mp4: 3 s 480x360 25 fps (smptebars), 660 Hz mono 44.1 kHz at the AAC encoder's default
# bitrate (~69 kb/s): every property differs from the content, so it must be conformed.
ff -f lavfi -i smptebars=s=480x360:r=25:d=3 -f lavfi -i sine=f=660:r=44100:d=3 \
   "${X264[@]}" -c:a aac -ac 1 ad2.mp4
# truncated.mp4: the first 30 % of a faststart copy of ad1.mp4 (moov complete, mdat cut).
ff -i ad1.mp4 -c copy -movflags +faststart ad1-faststart.tmp.mp4
head -c $(( $(stat -c %s ad1-faststart.tmp.mp4) * 30 / 100 )) ad1-faststart.tmp.mp4 > truncated.mp4
rm -f ad1-faststart.tmp.mp4
# corrupt.mp4: 20000 bytes of seeded white noise (s16le), no container at all.
ff -f lavfi -i anoisesrc=sample_rate=10000:amplitude=1:color=white:seed=20000 -t 1 -f s16le -ac 1 corrupt.mp4
# Companions and the overlay image (one frame of a solid colour; rgb24 PNG).
ff -f lavfi -i color=c=red:s=300x250 -frames:v 1 comp300x250.png
ff -f lavfi -i color=c=blue:s=728x90 -frames:v 1 comp728x90.png
ff -f lavfi -i color=c=0xFFCC00:s=400x60 -frames:v 1 overlay.png
# The tags.
cp "$HERE"/tags/*.xml .

cd /
mv "$TMP" "$DIR"
trap - EXIT
if (cd "$DIR" && sha256sum --quiet -c "$HERE/media.sha256" >/dev/null 2>&1); then
  echo "make-media.sh: $DIR: $(wc -l < "$HERE/media.sha256") files, all as in media.sha256"
else
  echo "make-media.sh: $DIR: made, but these differ from media.sha256 (another FFmpeg/x264/x265?):" >&2
  (cd "$DIR" && sha256sum -c "$HERE/media.sha256" 2>&1 | grep -v ': OK$' | sed 's/^/  /') >&2
  echo "  outputs will not match a baseline made from other media; old and new must share one media folder." >&2
fi
