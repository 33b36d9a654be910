#!/usr/bin/env bash
# serve-bench.sh: `interlude serve` under wrk. Starts the service on Media/content.mp4 with an ad
# decision server (a local Python server answering a VMAP, optionally after a delay), creates
# SESSIONS sessions (their start latency with the ADS answering at once, PARALLEL at a time, with
# the service's CPU per start; then 100 one at a time; then 200 with the ADS answering in ADS_DELAY s),
# then, for each dialect in DIALECTS (ts: the top rung's HLS media playlist with MPEG-TS segments;
# cmaf: the same rung's HLS media playlist with CMAF segments, ?segments=cmaf; dash: the session's
# MPD), warms every session's text, checks every body (HTTP 200 and the dialect's marks: #EXTINF,
# #EXT-X-MAP for CMAF only, <?xml … <MPD; it stops otherwise) and runs wrk over all of them:
# requests/s, p50/p99 latency and the service's CPU time per request (from /proc/PID/stat). Then
# the limit, side by side, right after each: nginx (its own port per dialect, 2 workers: one per
# core here) serving static copies of exactly those bodies at the same paths, under the same wrk
# settings, and the ratio of the two rates (NGINX=0: skip). RUNS times over; at the end a table,
# per dialect, of the medians (with nginx's workers' CPU per request, and the mean body size).
#
#   scripts/serve-bench.sh [SESSIONS] [SECONDS]        (defaults 1000, 15)
#   BIN=.build/release/interlude  ADS_DELAY=0.5  PARALLEL=16  WRK_THREADS=2  WRK_CONNECTIONS=64
#   DIALECTS="ts cmaf dash"  RUNS=1
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

# The dialects (DIALECTS, default all three), each over every session: ts, the top rung's HLS
# media playlist with MPEG-TS segments; cmaf, the same rung's HLS media playlist with CMAF
# segments (?segments=cmaf); dash, the session's MPD. Each is warmed (its text built once; later
# requests are a lookup), every body checked (HTTP 200 and the dialect's own marks, or the bench
# stops), then wrk runs over it against the service and against nginx serving static copies of
# exactly those bytes at the same paths, one after the other, RUNS times.
DIALECTS=${DIALECTS:-ts cmaf dash}
RUNS=${RUNS:-1}
WRK_THREADS=${WRK_THREADS:-2}
WRK_CONNECTIONS=${WRK_CONNECTIONS:-64}
sid=${first#/v1/sessions/}; sid=${sid%%/*}
cmaf_top=$(curl -s "$BASE/v1/sessions/$sid/master.m3u8?segments=cmaf" | grep -v '^#' | head -1 | sed 's|.*/||')
[ -n "$cmaf_top" ] || { echo "serve-bench: no variant in $first?segments=cmaf" >&2; exit 1; }
label() { case $1 in ts) echo "HLS/TS media playlist";; cmaf) echo "HLS/CMAF media playlist";; dash) echo "DASH MPD";; esac; }
for d in $DIALECTS; do
  case $d in
    ts)   cut -d' ' -f2 "$WORK/sessions" | sed "s|master.m3u8|$top|" ;;
    cmaf) cut -d' ' -f2 "$WORK/sessions" | sed "s|master.m3u8|$cmaf_top|" ;;
    dash) cut -d' ' -f2 "$WORK/sessions" | sed "s|master.m3u8|index.mpd|" ;;
    *) echo "serve-bench: unknown dialect '$d' (DIALECTS: ts cmaf dash)" >&2; exit 1 ;;
  esac > "$WORK/paths-$d"
  # Warm: each session's text built once, 8 at a time.
  xargs -P 8 -I{} curl -s -o /dev/null "$BASE{}" < "$WORK/paths-$d"
  # The bodies: fetched once more (kept as nginx's static copies; nginx looks files up by path
  # alone, so each dialect has its own root), each one checked.
  mkdir -p "$WORK/static-$d"
  while read -r path; do
    file="$WORK/static-$d${path%%\?*}"
    mkdir -p "$(dirname "$file")"
    code=$(curl -s -o "$file" -w '%{http_code}' "$BASE$path")
    bad=""
    if [ "$code" != 200 ]; then bad="HTTP $code"
    else case $d in
      ts)   [ "$(head -c 7 "$file")" = "#EXTM3U" ] && grep -q '^#EXTINF' "$file" && ! grep -q '#EXT-X-MAP' "$file" || bad="not an HLS/TS media playlist" ;;
      cmaf) [ "$(head -c 7 "$file")" = "#EXTM3U" ] && grep -q '^#EXTINF' "$file" && grep -q '^#EXT-X-MAP' "$file" || bad="not an HLS/CMAF media playlist (no #EXT-X-MAP)" ;;
      dash) [ "$(head -c 5 "$file")" = "<?xml" ] && grep -q '<MPD' "$file" || bad="not an MPD (<?xml … <MPD)" ;;
    esac; fi
    if [ -n "$bad" ]; then
      echo "serve-bench: $(label "$d") $path: $bad; its first bytes:" >&2; head -c 400 "$file" >&2; echo >&2; exit 1
    fi
  done < "$WORK/paths-$d"
  cat > "$WORK/paths-$d.lua" <<LUA
local paths = {}
for l in io.lines("$WORK/paths-$d") do paths[#paths + 1] = l end
local i = 0
request = function() i = i % #paths + 1; return wrk.format("GET", paths[i]) end
LUA
done

# The limit: nginx (2 workers: one per core here) serving the static copies, one port per
# dialect (NGINX_PORT, +1, +2), same wrk; NGINX=0 (or no nginx) skips it.
NGINX_ON=0
if [ "${NGINX:-1}" != 0 ] && command -v nginx >/dev/null; then
  NGINX_ON=1
  NGINX_PORT=${NGINX_PORT:-18492}
  mkdir -p "$WORK/nginx"
  chmod a+rx "$WORK"   # nginx's workers run as nobody when started as root
  servers="" i=0
  for d in $DIALECTS; do
    servers+="  server { listen 127.0.0.1:$((NGINX_PORT + i)); root $WORK/static-$d; }"$'\n'
    eval "NGINX_PORT_$d=$((NGINX_PORT + i))"; i=$((i + 1))
  done
  cat > "$WORK/nginx/nginx.conf" <<NGINX
worker_processes 2;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  types { application/vnd.apple.mpegurl m3u8; application/dash+xml mpd; }
  client_body_temp_path $WORK/nginx; proxy_temp_path $WORK/nginx; fastcgi_temp_path $WORK/nginx;
  uwsgi_temp_path $WORK/nginx; scgi_temp_path $WORK/nginx;
$servers}
NGINX
  nginx -c "$WORK/nginx/nginx.conf" -g 'daemon off;' 2>"$WORK/nginx/stderr" & NGINX_PID=$!; PIDS+=($NGINX_PID)
  for d in $DIALECTS; do
    port_var="NGINX_PORT_$d"
    for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:${!port_var}/" && break; sleep 0.1; done
  done
fi
nginx_cpu() {   # the workers' CPU ticks (the master only forks them)
  local t=0 w
  [ "$NGINX_ON" = 1 ] || { echo 0; return; }
  for w in $(pgrep -P "$NGINX_PID"); do t=$((t + $(awk '{print $14 + $15}' "/proc/$w/stat"))); done; echo $t
}
machine_busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }   # every core's, ticks
children_cpu() { times > "$WORK/times"; awk 'NR == 2 {gsub(/[ms]/, " "); print ($1 * 60 + $2 + $3 * 60 + $4)}' "$WORK/times"; }   # this shell's reaped children's CPU s
latency() { grep -E "^ +$1%" "$2" | awk '{print $2}'; }
ms() { python3 -c "import sys,re; v, u = re.match(r'([0-9.]+)(us|ms|s|m)$', sys.argv[1]).groups(); print('%.3f' % (float(v) * {'us': 1e-3, 'ms': 1, 's': 1e3, 'm': 6e4}[u]))" "$1"; }
cores=$(nproc)
# measure WHO DIALECT URL: wrk over the dialect's paths at URL into $WORK/wrk-WHO; prints its lines
# and appends "run dialect who req/s p50-ms p99-ms cpu-us/request non-2xx elsewhere-%" to results:
# the CPU of WHO (the service, or nginx's workers) per request, and the share of the machine's
# cores busy with something else than the service, nginx and wrk during the run (other work
# on the machine: its figures are disturbed by that much).
measure() {
  local out="$WORK/wrk-$1" s0 s1 n0 n1 b0 b1 w0 w1 t0 t1 requests mine
  s0=$(cpu); n0=$(nginx_cpu); b0=$(machine_busy); w0=$(children_cpu); t0=$(date +%s.%N)
  wrk -t "$WRK_THREADS" -c "$WRK_CONNECTIONS" -d "${SECONDS_RUN}s" --latency -s "$WORK/paths-$2.lua" "$3" > "$out"
  s1=$(cpu); n1=$(nginx_cpu); b1=$(machine_busy); w1=$(children_cpu); t1=$(date +%s.%N)
  requests=$(awk '/requests in/ {print $1}' "$out")
  if [ "$1" = serve ]; then
    if [ "$2" = ts ]; then echo "wrk over $SESSIONS sessions' playlists, ${SECONDS_RUN} s, $WRK_THREADS threads, $WRK_CONNECTIONS connections:"
    else echo "wrk over $SESSIONS sessions' $(label "$2")s, ${SECONDS_RUN} s, $WRK_THREADS threads, $WRK_CONNECTIONS connections:"; fi
    mine=$((s1 - s0))
  else
    if [ "$2" = ts ]; then echo "nginx serving static copies of the same playlists, same wrk:"
    else echo "nginx serving static copies of the same $(label "$2")s, same wrk:"; fi
    mine=$((n1 - n0))
  fi
  grep -E "Requests/sec|Non-2xx|Socket errors" "$out" | sed 's/^/  /'
  grep -E "^ +(50|99)%" "$out" | sed 's/^ */  latency p/'
  if [ "$1" = serve ]; then
    python3 -c "print('  service CPU per $( [ "$2" = ts ] && echo playlist || echo "$2") request: %.1f us (%d requests, %.2f CPU s)' % ($mine/$ticks/$requests*1e6, $requests, $mine/$ticks))"
  fi
  echo "$run $2 $1 $(awk '/Requests\/sec/ {print $2}' "$out") $(ms "$(latency 50 "$out")") $(ms "$(latency 99 "$out")")" \
       "$(python3 -c "print('%.2f' % ($mine/$ticks/$requests*1e6))") $(awk '/Non-2xx/ {print $5}' "$out" | grep . || echo 0)" \
       "$(python3 -c "print('%.0f' % max(0, (($b1-$b0-($s1-$s0)-($n1-$n0))/$ticks-($w1-$w0))/(($t1-$t0)*$cores)*100))")" >> "$WORK/results"
}

: > "$WORK/results"
for run in $(seq "$RUNS"); do
  [ "$RUNS" = 1 ] || echo "run $run of $RUNS (load: $(cut -d' ' -f1-3 /proc/loadavg)):"
  for d in $DIALECTS; do
    measure serve "$d" "$BASE"
    [ "$d" = ts ] && curl -s "$BASE/metrics" | grep -E '^interlude_serve_(sessions|encodes_total|ads_errors_total)' | sed 's/^/  /'
    [ "$NGINX_ON" = 1 ] || continue
    port_var="NGINX_PORT_$d"
    measure nginx "$d" "http://127.0.0.1:${!port_var}"
    python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print('  interlude serve / nginx: %.2f' % (a / b))" \
      "$(awk '/Requests\/sec/ {print $2}' "$WORK/wrk-serve")" "$(awk '/Requests\/sec/ {print $2}' "$WORK/wrk-nginx")"
  done
done
curl -s "$BASE/metrics" | grep -E '^interlude_serve_(encodes_total|ads_errors_total)' | sed 's/^/after every dialect: /'

# Side by side: per dialect, the median of the runs (each column on its own).
for d in $DIALECTS; do
  echo "$d $(label "$d" | tr ' ' '_') $(cat "$WORK/static-$d"/v1/sessions/*/* | wc -c) $(wc -l < "$WORK/paths-$d")"
done > "$WORK/bodies"
python3 - "$WORK/results" "$WORK/bodies" "$RUNS" <<'PY'
import sys, statistics
rows = [l.split() for l in open(sys.argv[1])]
bodies = [l.split() for l in open(sys.argv[2])]
runs = sys.argv[3]
def med(d, who, col):
    v = [float(r[col]) for r in rows if r[1] == d and r[2] == who]
    return statistics.median(v) if v else None
print("dialects side by side (%s; body: mean bytes; CPU: the server's per request;"
      " else: the machine's CPU busy with other work during the runs, median %%):" % ("median of %s runs" % runs if runs != "1" else "one run"))
print("  %-24s %6s %9s %7s %7s %7s %9s %7s %7s %7s %6s %5s" % ("", "body", "serve/s", "p50 ms", "p99 ms", "CPU us", "nginx/s", "p50 ms", "p99 ms", "CPU us", "ratio", "else"))
for d, name, total, n in bodies:
    s = [med(d, "serve", c) for c in (3, 4, 5, 6)]
    g = [med(d, "nginx", c) for c in (3, 4, 5, 6)]
    ratios = [float(a[3]) / float(b[3]) for a in rows if a[1] == d and a[2] == "serve" for b in rows if b[0] == a[0] and b[1] == d and b[2] == "nginx"]
    line = "  %-24s %6d %9.0f %7.2f %7.2f %7.1f" % (name.replace("_", " "), int(total) / int(n), *s)
    if g[0] is not None: line += " %9.0f %7.2f %7.2f %7.1f %5.2fx" % (*g, statistics.median(ratios))
    line += " %4.0f%%" % statistics.median(float(r[8]) for r in rows if r[1] == d)
    if len(ratios) > 1: line += "  ratios " + " / ".join("%.2f" % r for r in ratios)
    print(line)
bad = [r for r in rows if r[7] != "0"]
for r in bad: print("  run %s %s %s: %s non-2xx answers" % (r[0], r[1], r[2], r[7]))
sys.exit(1 if bad else 0)
PY
