#!/usr/bin/env bash
# Generates the sample media in Media/ with the ffmpeg CLI only (lavfi sources + geq/aevalsrc).
# Deterministic and idempotent: a file that already exists is skipped unless FORCE=1.
# The identity/sync encoding is described in Media/README.md and read back by Sources/TestSupport.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=Media
mkdir -p "$OUT"
FFMPEG=${FFMPEG:-ffmpeg}
FORCE=${FORCE:-0}
DRYRUN=${DRYRUN:-0}   # DRYRUN=1: print the commands (as for FORCE=1) without running them

run() { # run CMD... : runs it, or prints it shell-quoted under DRYRUN=1
  if [[ "$DRYRUN" == 1 ]]; then
    local a line=""
    for a in "$@"; do
      if [[ "$a" =~ ^[A-Za-z0-9_./:+=,-]+$ ]]; then line+="$a "; else line+="\"$a\" "; fi
    done
    echo "${line% }"
  else "$@"; fi
}

need() { # need FILE -> true when FILE must be (re)generated
  if [[ "$DRYRUN" == 1 ]]; then echo "# $OUT/$1"; return 0; fi
  if [[ -e "$OUT/$1" && "$FORCE" != 1 ]]; then echo "skip  $OUT/$1 (exists; FORCE=1 regenerates)"; return 1; fi
  echo "make  $OUT/$1"; return 0
}

# The luma expression: identity band (top quarter, 2 rows x 12 cells), flash (bottom half white on
# frames N % fps == 0), a moving grey ramp elsewhere. $1 = source id, $2 = integer frame rate.
# Word (24 bits, MSB first, row-major cells): 1 0 | source id (4) | frame index mod 4096 (12) |
# check = 15 - (sum of the four data nibbles mod 16) (4) | 0 1.
luma_expr() {
  local src=$1 fps=$2
  local f="mod(N,4096)"
  local c="(15-mod($src+floor($f/256)+mod(floor($f/16),16)+mod($f,16),16))"
  local v="(8388608+$src*262144+$f*64+$c*4+1)"
  local k="(floor(Y*8/H)*12+floor(X*12/W))"
  echo "if(lt(Y,H/4),if(mod(floor($v/pow(2,23-$k)),2),235,16),if(gte(Y,H/2)*eq(mod(N,$fps),0),235,40+abs(mod(2*X+Y+2*N,120)-60)*2))"
}

# The picture is drawn at a quarter of the size (each dimension) and enlarged with nearest-neighbour
# scaling: geq is slow per pixel, and big flat blocks compress well.
video_graph() { # src W H fps seconds
  local src=$1 w=$2 h=$3 fps=$4 secs=$5
  local sw=$(( (w + 3) / 4 )) sh=$(( (h + 3) / 4 ))
  echo "color=c=black:s=${sw}x${sh}:r=${fps}:d=${secs},format=yuv420p,geq=lum='$(luma_expr "$src" "$fps")':cb=128:cr=128,scale=${w}:${h}:flags=neighbor,setsar=1"
}

# A 1 kHz sine (amplitude 0.5, phase 0 at onset) for the first rate/fps samples of every second; silence otherwise.
audio_graph() { # rate channels fps seconds
  local rate=$1 ch=$2 fps=$3 secs=$4
  local e="if(lt(mod(n,s),s/${fps}),0.5*sin(2*PI*1000*mod(n,s)/s),0)"
  local exprs=$e; for ((i=1; i<ch; i++)); do exprs="$exprs|$e"; done
  echo "aevalsrc=exprs='${exprs}':s=${rate}:d=${secs}"
}

COMMON=(-hide_banner -v error -y)
X264=(-c:v libx264 -preset veryfast -crf 24 -pix_fmt yuv420p -threads 2 -sc_threshold 0)
BITEXACT=(-map_metadata -1 -fflags +bitexact -flags:v +bitexact -flags:a +bitexact -movflags +faststart)

clip() { # file src W H fps seconds rate(0 = no audio) channels [extra video filter] [extra output args...]
  local file=$1 src=$2 w=$3 h=$4 fps=$5 secs=$6 rate=$7 ch=$8 vextra=${9:-}
  shift 9 || shift $#
  need "$file" || return 0
  local vg; vg=$(video_graph "$src" "$w" "$h" "$fps" "$secs")
  [[ -n "$vextra" ]] && vg="$vg,$vextra"
  local in=(-f lavfi -i "$vg") map=(-map 0:v)
  local aargs=()
  if (( rate > 0 )); then
    in+=(-f lavfi -i "$(audio_graph "$rate" "$ch" "$fps" "$secs")")
    map+=(-map 1:a)
    aargs=(-c:a aac -b:a $(( ch == 1 ? 64 : 96 ))k -ar "$rate" -ac "$ch")
  fi
  run "$FFMPEG" "${COMMON[@]}" "${in[@]}" "${map[@]}" "${X264[@]}" -g $((2 * fps)) -keyint_min $((2 * fps)) \
    "${aargs[@]}" "${BITEXACT[@]}" "$@" "$OUT/$file"
}

#     file               src  W    H    fps secs rate  ch
clip content.mp4          1   640  360  30  40   48000 2
clip ad-matching.mp4      2   640  360  30  6    48000 2
clip ad-mismatched.mp4    3   480  360  25  5    44100 1
clip ad-silent.mp4        4   320  240  24  4    0     0
clip ad-portrait.mp4      5   360  640  30  4    48000 2
# Displayed 360x640 with the identity layout upright once the display matrix is applied; coded
# 640x360. The upright picture is turned clockwise (transpose=clock), encoded, then remuxed with
# -metadata:s:v:0 rotate=90 (FFmpeg 5.1 writes the display matrix only when stream-copying;
# ffprobe then reports rotation=90 and the ffmpeg CLI autorotates it back upright).
if [[ ! -e "$OUT/ad-rotated.mp4" || "$FORCE" == 1 || "$DRYRUN" == 1 ]]; then
  run rm -f "$OUT/.ad-rotated-coded.mp4"
  clip .ad-rotated-coded.mp4 6 360 640 30 4 48000 2 "transpose=clock"
  need ad-rotated.mp4
  run "$FFMPEG" "${COMMON[@]}" -i "$OUT/.ad-rotated-coded.mp4" -map 0 -c copy -metadata:s:v:0 rotate=90 \
    "${BITEXACT[@]}" "$OUT/ad-rotated.mp4"
  run rm -f "$OUT/.ad-rotated-coded.mp4"
else
  need ad-rotated.mp4 || true
fi

if need audio-only.m4a; then
  run "$FFMPEG" "${COMMON[@]}" -f lavfi -i "$(audio_graph 48000 2 30 3)" -c:a aac -b:a 96k \
    "${BITEXACT[@]}" "$OUT/audio-only.m4a"
fi

# 3000 deterministic pseudo-random bytes (white noise with a fixed seed, as raw unsigned 8-bit PCM).
if need bad-garbage.mp4; then
  run "$FFMPEG" "${COMMON[@]}" -f lavfi -i "anoisesrc=r=8000:a=1:c=white:seed=1234:d=0.375" \
    -c:a pcm_u8 -f u8 "$OUT/bad-garbage.mp4"
fi

# ad-matching.mp4 (moov at the front) cut to 40 % of its bytes: headers intact, media data cut off.
if need bad-truncated.mp4; then
  if [[ "$DRYRUN" == 1 ]]; then
    echo 'head -c $(( $(stat -c %s Media/ad-matching.mp4) * 40 / 100 )) Media/ad-matching.mp4 > Media/bad-truncated.mp4'
  else
    size=$(stat -c %s "$OUT/ad-matching.mp4")
    head -c $(( size * 40 / 100 )) "$OUT/ad-matching.mp4" > "$OUT/bad-truncated.mp4"
  fi
fi

[[ "$DRYRUN" == 1 ]] || echo "Media/: $(du -sh "$OUT" | cut -f1)"
