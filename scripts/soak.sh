#!/usr/bin/env bash
# scripts/soak.sh: one long stream in one process, resident memory sampled over stream time.
#
#   scripts/soak.sh [--hours H] [--mode play|stitch] [--bin PATH] [--every S] [--out DIR]
#
# Generates (once, into .build/soak-media/) small content of H hours (160x90 at 25 fps, AAC
# stereo) and ad rules with a break every 10 minutes (a pre-roll, two-ad mid-roll pods of a
# mismatched 320x240 30 fps mono ad and a matching one, a post-roll), then runs
#   play:   interlude play CONTENT --ads RULES --fast --null -o - --format nut
#   stitch: interlude stitch CONTENT --ads RULES -o - --format nut
# and reads its NUT stream itself (never written anywhere), sampling VmRSS from /proc/PID/status
# every S seconds of stream (default 600). Stream time is counted from the bytes read (the stream
# is raw video + PCM, a constant rate) and scaled exactly at the end to the stream's real length.
# Writes DIR/soak-MODE-Hh.tsv (stream seconds, RSS MB) and .log (the command's own output) and
# prints the samples at 0, 1 h, 2 h, ...
# The release build is used by default (`swift build -c release --product interlude`); --bin
# .build/debug/interlude for the debug one (the figures in the README).
set -euo pipefail
cd "$(dirname "$0")/.."
HOURS=3 MODE=play BIN=.build/release/interlude EVERY=600 OUT=.build/soak
while [ $# -gt 0 ]; do
  case "$1" in
    --hours) HOURS=$2; shift 2 ;;
    --mode) MODE=$2; shift 2 ;;
    --bin) BIN=$2; shift 2 ;;
    --every) EVERY=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "soak.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
case "$MODE" in play|stitch) ;; *) echo "soak.sh: --mode is play or stitch" >&2; exit 2 ;; esac
[ -x "$BIN" ] || { echo "soak.sh: $BIN not built (swift build -c release --product interlude)" >&2; exit 2; }
MEDIA=.build/soak-media
mkdir -p "$MEDIA" "$OUT"
SECONDS_TOTAL=$(python3 -c "print(int(float('$HOURS') * 3600))")
CONTENT=$MEDIA/content-${SECONDS_TOTAL}s.mp4
ff() { ffmpeg -v error -y -nostdin "$@"; }
if [ ! -f "$CONTENT" ]; then
  echo "soak: generating ${SECONDS_TOTAL} s of 160x90 content" >&2
  ff -f lavfi -i "testsrc2=s=160x90:r=25" -f lavfi -i "sine=r=48000:f=440" -t "$SECONDS_TOTAL" \
     -c:v libx264 -preset ultrafast -g 50 -c:a aac -b:a 32k -ac 2 "$CONTENT.part.mp4"
  mv "$CONTENT.part.mp4" "$CONTENT"
fi
[ -f "$MEDIA/ad-mismatched.mp4" ] || ff -f lavfi -i "testsrc=s=320x240:r=30" -f lavfi -i "sine=r=44100:f=880" -t 10 \
  -c:v libx264 -preset ultrafast -c:a aac -ac 1 "$MEDIA/ad-mismatched.mp4"
[ -f "$MEDIA/ad-matching.mp4" ] || ff -f lavfi -i "smptebars=s=160x90:r=25" -f lavfi -i "sine=r=48000:f=660" -t 5 \
  -c:v libx264 -preset ultrafast -c:a aac -ac 2 "$MEDIA/ad-matching.mp4"
RULES=$MEDIA/rules-${SECONDS_TOTAL}s.xml
python3 - "$SECONDS_TOTAL" "$RULES" <<'EOF'
import sys
total, path = int(sys.argv[1]), sys.argv[2]
def ad(i, media, w, h, dur):
    return f'''<Ad id="soak-{i}"><InLine><AdSystem>soak</AdSystem><AdTitle>{media}</AdTitle>
<Impression><![CDATA[https://ads.example.com/imp?ad={i}&cb=[CACHEBUSTING]]]></Impression>
<Error><![CDATA[https://ads.example.com/err?code=[ERRORCODE]]]></Error>
<Creatives><Creative><Linear><Duration>{dur}</Duration><TrackingEvents>
''' + ''.join(f'<Tracking event="{e}"><![CDATA[https://ads.example.com/t?e={e}&ad={i}&t=[ADPLAYHEAD]]]></Tracking>\n'
              for e in ("start", "firstQuartile", "midpoint", "thirdQuartile", "complete")) + f'''</TrackingEvents>
<MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="{w}" height="{h}"><![CDATA[{media}]]></MediaFile></MediaFiles>
</Linear></Creative></Creatives></InLine></Ad>'''
def brk(offset, name, ads):
    return f'''<vmap:AdBreak timeOffset="{offset}" breakType="linear" breakId="{name}">
<vmap:AdSource id="{name}-src" allowMultipleAds="true" followRedirects="true"><vmap:VASTAdData><VAST version="4.1">
{ads}</VAST></vmap:VASTAdData></vmap:AdSource></vmap:AdBreak>
'''
def hms(s): return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}.000"
out = ['<vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">\n']
out.append(brk("start", "preroll", ad(0, "ad-matching.mp4", 160, 90, "00:00:05")))
n = 1
for t in range(600, total - 60, 600):
    out.append(brk(hms(t), f"midroll-{n}", ad(2 * n - 1, "ad-mismatched.mp4", 320, 240, "00:00:10").replace('<Ad ', '<Ad sequence="1" ', 1)
                   + ad(2 * n, "ad-matching.mp4", 160, 90, "00:00:05").replace('<Ad ', '<Ad sequence="2" ', 1)))
    n += 1
out.append(brk("end", "postroll", ad(2 * n + 1, "ad-matching.mp4", 160, 90, "00:00:05")))
out.append('</vmap:VMAP>\n')
open(path, "w").write(''.join(out))
EOF
if [ "$MODE" = play ]; then
  CMD=("$BIN" play "$CONTENT" --ads "$RULES" --fast --null -q -o - --format nut)
else
  CMD=("$BIN" stitch "$CONTENT" --ads "$RULES" -q -o - --format nut)
fi
TSV=$OUT/soak-$MODE-${HOURS}h.tsv
echo "soak: ${CMD[*]}" >&2
python3 - "$EVERY" "$TSV" "$CONTENT" "$MEDIA" "${CMD[@]}" <<'EOF'
import json, subprocess, sys, time
every, tsv, content, media, cmd = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
# raw 160x90 yuv420p video at 25 fps + s16 stereo 48 kHz PCM: bytes per second of stream, before
# the NUT framing (the exact scale is fixed at the end from the stream's measured length)
rate = 160 * 90 * 3 // 2 * 25 + 48000 * 2 * 2
def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"): return int(line.split()[1]) / 1024
    return float("nan")
t0 = time.monotonic()
log = open(tsv[:-4] + ".log", "w")   # the command's summary and errors
p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, bufsize=0)
samples, read, next_at = [], 0, 1  # first sample: once the stream has started
while True:
    chunk = p.stdout.read(1 << 20)
    if not chunk: break
    read += len(chunk)
    if read >= next_at:
        try: samples.append((read, rss_mb(p.pid)))
        except OSError: break
        next_at = (read // (every * rate) + 1) * every * rate
rc = p.wait()
wall = time.monotonic() - t0
if rc != 0: sys.exit(f"soak: {cmd[1]} exited {rc} (see {tsv[:-4]}.log)")
def dur(f):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "json", f],
                         capture_output=True, text=True, check=True).stdout
    return float(json.loads(out)["format"]["duration"])
# the stream's length: content + every ad as placed (a pre- and post-roll of the matching ad and
# one mismatched + one matching ad per mid-roll); the bytes read map onto it linearly
rules = open(next(a for a in cmd if a.endswith(".xml"))).read()
mids = rules.count('breakId="midroll-')
stream = dur(content) + (mids + 2) * 5.0 + mids * 10.0
scale = stream / read
with open(tsv, "w") as f:
    f.write("stream_s\trss_mb\n")
    for b, r in samples: f.write(f"{b * scale:.1f}\t{r:.1f}\n")
print(f"soak {cmd[1]}: {stream:.0f} s of stream ({mids} mid-rolls) in {wall:.0f} s wall; samples in {tsv}")
for b, r in samples:
    s = b * scale
    if abs(s - round(s / 3600) * 3600) < every / 2 or b == samples[-1][0]:
        print(f"  stream {s / 3600:5.2f} h  RSS {r:6.1f} MB")
EOF
