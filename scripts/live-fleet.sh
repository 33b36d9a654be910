#!/usr/bin/env bash
# live-fleet.sh: one live channel served by a fleet (scripts/cluster.sh: redis-server, NODES serve
# nodes, 2 workers, nginx with deploy/nginx.conf, one store folder) to VIEWERS simulated viewers
# through nginx (issue 35). The origin is real time (2 s segments, scripts/live-fleet.py) with one
# 16 s break announced 30 s ahead; the nodes spread the viewers' ad requests over
# --live-prefetch-window; 8 s into the break node1 is SIGKILLed. Each viewer starts a session,
# refreshes its playlist at the target duration and downloads every new segment; every refresh
# is checked against RFC 8216's rules across refreshes. Writes bench-results/live-fleet-latest.{json,md}:
# requests/s, playlist latency, ad requests per second around the break, beacons fired twice,
# viewers that lost their session, sessions taken over.
#
#   scripts/live-fleet.sh [VIEWERS]        (default 1000)
#   INTERLUDE=.build/release/interlude  NODES=3  PORT=18700  PREFETCH=20  JOIN_SECONDS=30
set -euo pipefail
cd "$(dirname "$0")/.."
VIEWERS=${1:-1000}
INTERLUDE=${INTERLUDE:-.build/release/interlude}
NODES=${NODES:-3}
PORT=${PORT:-18700}
ORIGIN_PORT=$((PORT + 50))
PREFETCH=${PREFETCH:-20}
WORK=$(mktemp -d /tmp/live-fleet.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
for tool in ffmpeg ffprobe python3 redis-server nginx "$INTERLUDE"; do
  command -v "$tool" >/dev/null || { echo "live-fleet: $tool not found (make setup; make release)" >&2; exit 1; }
done

# 240 s of 320x180 30 fps content in 2 s segments (an IDR each), two 8 s ads
mkdir -p "$WORK/origin"
ffmpeg -v error -f lavfi -i testsrc2=size=320x180:rate=30 -f lavfi -i sine=frequency=440:sample_rate=48000 -t 240 \
  -c:v libx264 -preset ultrafast -g 60 -keyint_min 60 -sc_threshold 0 -bf 0 -c:a aac -b:a 64k -ac 2 \
  -f hls -hls_time 2 -hls_list_size 0 -hls_segment_filename "$WORK/origin/s%d.ts" "$WORK/origin/all.m3u8"
ffprobe -v error -select_streams v:0 -show_entries packet=pts -read_intervals '%+#1' -of csv=p=0 "$WORK/origin/s0.ts" \
  | head -1 | tr -d ' ,\n' >"$WORK/origin/first_pts"
for ad in 1 2; do
  color=$([ $ad = 1 ] && echo red || echo blue)
  ffmpeg -v error -f lavfi -i "color=c=$color:size=320x180:rate=30" -f lavfi -i sine=frequency=880:sample_rate=48000 -t 8 \
    -c:v libx264 -preset ultrafast -pix_fmt yuv420p -c:a aac -ac 2 "$WORK/origin/ad$ad.mp4"
done

python3 scripts/live-fleet.py origin "$WORK/origin" "$ORIGIN_PORT" >"$WORK/origin.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q '^origin: ready' "$WORK/origin.out" && break; sleep 0.1; done

CLUSTER_DIR=$WORK/cluster NODES=$NODES WORKERS=2 PORT=$PORT INTERLUDE=$INTERLUDE CONTENT="c=$WORK/origin/ad1.mp4" \
  ADS="http://127.0.0.1:$ORIGIN_PORT/vast?s=[session.id]&a=[avail.index]" \
  SERVE_ARGS="--live ch=http://127.0.0.1:$ORIGIN_PORT/live.m3u8 --live-prefetch-window $PREFETCH --ads-timeout 3" \
  ./scripts/cluster.sh >"$WORK/cluster.out" 2>&1 &
pids+=($!)
for _ in $(seq 1200); do grep -q '^cluster: ready' "$WORK/cluster.out" && break; sleep 0.25; done
grep -q '^cluster: ready' "$WORK/cluster.out" || { echo "live-fleet: the fleet did not start" >&2; tail -5 "$WORK/cluster.out" >&2; exit 1; }

mkdir -p bench-results
KILL_PIDFILE=$WORK/cluster/pids/node1 python3 scripts/live-fleet.py viewers "http://127.0.0.1:$PORT" \
  "http://127.0.0.1:$ORIGIN_PORT" "$VIEWERS" "$WORK/result.json"
adopted=$(cat "$WORK"/cluster/logs/node*.log | grep -c '"session_adopted"' || true)
python3 - "$WORK/result.json" "$adopted" "$NODES" "$VIEWERS" "$PREFETCH" "$INTERLUDE" <<'PY'
import json, os, platform, subprocess, sys, time
r = json.load(open(sys.argv[1]))
r["sessionsAdopted"] = int(sys.argv[2])
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
r["machine"] = "%s, %d cores, %.0f GiB; %s" % (cpu, os.cpu_count(), os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, platform.platform())
r["run"] = "Interlude %s (%s), %s nodes, 2 workers, redis, nginx; %s viewers; prefetch window %s s; %s" % (
    rev, sys.argv[6], sys.argv[3], sys.argv[4], sys.argv[5], time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
json.dump(r, open("bench-results/live-fleet-latest.json", "w"), indent=1)
lines = ["# Live fleet run (scripts/live-fleet.sh)", "", "- Machine: " + r["machine"], "- Run: " + r["run"],
         "- Load average at the end: %.2f" % os.getloadavg()[0], "", "| figure | value |", "|---|---|"]
for k in ["sessions", "sessionFailures", "seconds", "requests", "requestsPerSecond", "playlistLatencyMs", "segmentFailures",
          "rfc8216Violations", "viewersWithViolations", "adRequests", "adRequestsTwiceForOneAvail", "adRequestPeakPerSecond",
          "beacons", "beaconsFiredTwice", "completesPerViewer", "viewersWithAdSegments", "killedAtBreakPlus",
          "viewersFailingAfterKill", "playlistFailuresAfterKill", "sessionsAdopted"]:
    lines.append("| %s | %s |" % (k, r.get(k)))
lines += ["", "Ad requests per second, by second from the break's start at the origin's edge:", "",
          " ".join("%s:%s" % (k, v) for k, v in r["adRequestsPerSecondFromBreakStart"].items())]
if r["violationExamples"]:
    lines += ["", "RFC 8216 violations seen (first 10):", ""] + ["- " + x for x in r["violationExamples"]]
open("bench-results/live-fleet-latest.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
