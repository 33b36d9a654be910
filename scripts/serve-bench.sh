#!/usr/bin/env bash
# serve-bench.sh: `interlude serve` under wrk. Starts the service on Media/content.mp4 with an ad
# decision server (a local Python server answering a VMAP, optionally after a delay), creates
# SESSIONS sessions (their start latency with the ADS answering at once, PARALLEL at a time, with
# the service's CPU per start; then 100 one at a time; then 200 with the ADS answering in ADS_DELAY s),
# warms each one's top playlist, then runs wrk over all of them: requests/s, p50/p99 latency and
# the service's CPU time per playlist request (from /proc/PID/stat). Then the limit, side by side:
# nginx (its own port, 2 workers: one per core here) serving static copies of the same playlists
# at the same paths, under the same wrk settings, and the ratio of the two rates (NGINX=0: skip).
#
#   scripts/serve-bench.sh [SESSIONS] [SECONDS]        (defaults 1000, 15)
#   BIN=.build/release/interlude  ADS_DELAY=0.5  PARALLEL=16  WRK_THREADS=2  WRK_CONNECTIONS=64
set -euo pipefail
cd "$(dirname "$0")/.."
SESSIONS=${1:-1000}
SECONDS_RUN=${2:-15}
BIN=${BIN:-.build/release/interlude}
ADS_DELAY=${ADS_DELAY:-0.5}
PORT=${PORT:-18490}
ADS_PORT=${ADS_PORT:-18491}
WORK=$(mktemp -d /tmp/serve-bench.XXXXXX)
STORE=${STORE:-.build/serve-bench-store}
PIDS=()
cleanup() { for p in "${PIDS[@]:-}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

[ -x "$BIN" ] || { echo "serve-bench: $BIN missing (swift build -c release --product interlude)" >&2; exit 1; }
command -v wrk >/dev/null || { echo "serve-bench: wrk missing (apt-get install wrk)" >&2; exit 1; }

# The ADS: /vmap answers a mid-roll at 20.5 s with Media/ad-matching.mp4 over http, after
# ?delay= seconds; /ad.mp4 is the media.
cat > "$WORK/ads.py" <<PY
import http.server, time, urllib.parse, sys
ad = open("Media/ad-matching.mp4", "rb").read()
vmap = """<vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0"><vmap:AdBreak timeOffset="00:00:20.500" breakType="linear" breakId="mid">
<vmap:AdSource id="s" allowMultipleAds="false" followRedirects="true"><vmap:VASTAdData><VAST version="4.1"><Ad id="bench"><InLine><AdSystem>bench</AdSystem><AdTitle>bench</AdTitle>
<Impression><![CDATA[http://127.0.0.1:$ADS_PORT/t?e=imp]]></Impression><Creatives><Creative id="c"><Linear><Duration>00:00:05</Duration>
<MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360"><![CDATA[http://127.0.0.1:$ADS_PORT/ad.mp4]]></MediaFile></MediaFiles>
</Linear></Creative></Creatives></InLine></Ad></VAST></vmap:VASTAdData></vmap:AdSource></vmap:AdBreak></vmap:VMAP>""".encode()
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_GET(self):
        u = urllib.parse.urlparse(self.path); q = urllib.parse.parse_qs(u.query)
        if u.path == "/vmap":
            time.sleep(float(q.get("delay", ["0"])[0])); body, ct = vmap, "application/xml"
        elif u.path == "/ad.mp4": body, ct = ad, "video/mp4"
        else: body, ct = b"", "text/plain"
        self.send_response(200); self.send_header("Content-Type", ct); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
class S(http.server.ThreadingHTTPServer): request_queue_size = 1024   # not 5: 16 starts at once would wait on SYN retries
S(("127.0.0.1", $ADS_PORT), H).serve_forever()
PY
python3 "$WORK/ads.py" & PIDS+=($!)

"$BIN" serve --listen 127.0.0.1:$PORT --content demo=Media/content.mp4 --store "$STORE" \
    --ads "http://127.0.0.1:$ADS_PORT/vmap?delay=[player_params.delay]&sid=[session.id]" --threads "${THREADS:-8}" \
    >"$WORK/url" 2>"$WORK/serve.log" & SERVE=$!; PIDS+=($SERVE)
for _ in $(seq 600); do [ -s "$WORK/url" ] && break; sleep 0.5; done
[ -s "$WORK/url" ] || { echo "serve-bench: the service did not start" >&2; tail -5 "$WORK/serve.log" >&2; exit 1; }
BASE="http://127.0.0.1:$PORT"

# One session first, its ad transcoded, so every later one is a playlist, never an encode.
first=$(curl -s -X POST -d '{"adsParams":{"delay":"0"}}' "$BASE/v1/session/demo" | python3 -c 'import sys,json; print(json.load(sys.stdin)["manifestUrl"])')
top=$(curl -s "$BASE$first" | grep -v '^#' | head -1 | sed 's|.*/||')
for _ in $(seq 300); do curl -s "$BASE${first%master.m3u8}$top" | grep -q '/segments/ads/' && break; sleep 1; done

start_sessions() {   # N DELAY [AT_ONCE] -> one "seconds manifestUrl" line per session
    # one echo per session: lines from parallel curls never interleave
    seq "$1" | xargs -P "${3:-${PARALLEL:-16}}" -I{} sh -c 'r=$(curl -s -o - -w " %{time_total}" -X POST -d "{\"adsParams\":{\"delay\":\"$1\"}}" "$0/v1/session/demo"); echo "$r"' "$BASE" "$2" \
      | python3 -c 'import sys,json
for l in sys.stdin:
    body, t = l.rsplit(" ", 1); print(t.strip(), json.loads(body)["manifestUrl"])'
}
percentiles() { sort -n | awk '{a[NR]=$1} END {printf "p50 %.1f ms, p99 %.1f ms, max %.1f ms", a[int(NR*0.5)+1]*1000, a[int(NR*0.99)]*1000, a[NR]*1000}'; }

ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$SERVE/stat"; }
s0=$(cpu)
start_sessions "$SESSIONS" 0 > "$WORK/sessions"
s1=$(cpu)
echo "session start, ADS answering at once ($SESSIONS sessions, ${PARALLEL:-16} at a time): $(cut -d' ' -f1 "$WORK/sessions" | percentiles); service CPU per start $(python3 -c "print('%.2f ms' % (($s1-$s0)/$ticks/$SESSIONS*1e3))")"
start_sessions 100 0 1 > "$WORK/alone"
echo "session start, ADS answering at once (100 sessions, 1 at a time): $(cut -d' ' -f1 "$WORK/alone" | percentiles)"
start_sessions 200 "$ADS_DELAY" > "$WORK/slow"
echo "session start, ADS answering in ${ADS_DELAY} s (200 sessions, ${PARALLEL:-16} at a time): $(cut -d' ' -f1 "$WORK/slow" | percentiles)"

# Warm: each session's top media playlist built once (later requests are a lookup).
cut -d' ' -f2 "$WORK/sessions" | sed "s|master.m3u8|$top|" > "$WORK/paths"
xargs -P 8 -I{} curl -s -o /dev/null "$BASE{}" < "$WORK/paths"

cat > "$WORK/paths.lua" <<LUA
local paths = {}
for l in io.lines("$WORK/paths") do paths[#paths + 1] = l end
local i = 0
request = function() i = i % #paths + 1; return wrk.format("GET", paths[i]) end
LUA
c0=$(cpu)
wrk -t "${WRK_THREADS:-2}" -c "${WRK_CONNECTIONS:-64}" -d "${SECONDS_RUN}s" --latency -s "$WORK/paths.lua" "$BASE" > "$WORK/wrk"
c1=$(cpu)
requests=$(awk '/requests in/ {print $1}' "$WORK/wrk")
echo "wrk over $SESSIONS sessions' playlists, ${SECONDS_RUN} s, ${WRK_THREADS:-2} threads, ${WRK_CONNECTIONS:-64} connections:"
grep -E "Requests/sec|Non-2xx|Socket errors" "$WORK/wrk" | sed 's/^/  /'
grep -E "^ +(50|99)%" "$WORK/wrk" | sed 's/^ */  latency p/'
python3 -c "print('  service CPU per playlist request: %.1f us (%d requests, %.2f CPU s)' % (($c1-$c0)/$ticks/$requests*1e6, $requests, ($c1-$c0)/$ticks))"
curl -s "$BASE/metrics" | grep -E '^interlude_serve_(sessions|encodes_total|ads_errors_total)' | sed 's/^/  /'

# The limit: nginx serving the same playlists as static files at the same paths, same wrk.
if [ "${NGINX:-1}" != 0 ] && command -v nginx >/dev/null; then
  NGINX_PORT=${NGINX_PORT:-18492}
  mkdir -p "$WORK/static" "$WORK/nginx"
  chmod a+rx "$WORK"   # nginx's workers run as nobody when started as root
  while read -r path; do
    mkdir -p "$WORK/static$(dirname "$path")"
    curl -s -o "$WORK/static$path" "$BASE$path"
  done < "$WORK/paths"
  cat > "$WORK/nginx/nginx.conf" <<NGINX
worker_processes 2;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  types { application/vnd.apple.mpegurl m3u8; }
  client_body_temp_path $WORK/nginx; proxy_temp_path $WORK/nginx; fastcgi_temp_path $WORK/nginx;
  uwsgi_temp_path $WORK/nginx; scgi_temp_path $WORK/nginx;
  server { listen 127.0.0.1:$NGINX_PORT; root $WORK/static; }
}
NGINX
  nginx -c "$WORK/nginx/nginx.conf" -g 'daemon off;' 2>"$WORK/nginx/stderr" & PIDS+=($!)
  for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$NGINX_PORT/" && break; sleep 0.1; done
  wrk -t "${WRK_THREADS:-2}" -c "${WRK_CONNECTIONS:-64}" -d "${SECONDS_RUN}s" --latency -s "$WORK/paths.lua" "http://127.0.0.1:$NGINX_PORT" > "$WORK/wrk-nginx"
  echo "nginx serving static copies of the same playlists, same wrk:"
  grep -E "Requests/sec|Non-2xx|Socket errors" "$WORK/wrk-nginx" | sed 's/^/  /'
  grep -E "^ +(50|99)%" "$WORK/wrk-nginx" | sed 's/^ */  latency p/'
  python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print('  interlude serve / nginx: %.2f' % (a / b))" \
    "$(awk '/Requests\/sec/ {print $2}' "$WORK/wrk")" "$(awk '/Requests\/sec/ {print $2}' "$WORK/wrk-nginx")"
fi
