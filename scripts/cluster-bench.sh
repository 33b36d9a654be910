#!/usr/bin/env bash
# cluster-bench.sh: wrk through nginx against a fleet of 1 serve node and of 3 (scripts/cluster.sh:
# redis-server, the nodes, 2 workers, nginx with deploy/nginx.conf), same store folder. Two loads:
# playlist requests of existing sessions (each wrk connection cycles through SESSIONS sessions' top
# variants) and session creation (POST /v1/session/demo). Each figure is the median of RUNS wrk
# runs: requests/s and p99 latency, 1 node and 3 nodes side by side, with the machine described.
#
#   scripts/cluster-bench.sh [SECONDS] [RUNS]      (defaults 5, 3)
#   INTERLUDE=.build/release/interlude  SESSIONS=200  WRK_THREADS=2  WRK_CONNECTIONS=64  PORT=18600
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_RUN=${1:-5}
RUNS=${2:-3}
INTERLUDE=${INTERLUDE:-.build/release/interlude}
SESSIONS=${SESSIONS:-200}
WRK_THREADS=${WRK_THREADS:-2}
WRK_CONNECTIONS=${WRK_CONNECTIONS:-64}
PORT=${PORT:-18600}
BASE=.build/cluster-bench
WORK=$(mktemp -d /tmp/cluster-bench.XXXXXX)
CLUSTER=""
stop_cluster() { [ -n "$CLUSTER" ] && { kill -TERM "$CLUSTER" 2>/dev/null || true; wait "$CLUSTER" 2>/dev/null || true; }; CLUSTER=""; }
trap 'stop_cluster; rm -rf "$WORK"' EXIT

for tool in wrk curl python3 "$INTERLUDE"; do
  command -v "$tool" >/dev/null || { echo "cluster-bench: $tool not found (make setup; make release)" >&2; exit 1; }
done
mkdir -p "$BASE"

start_cluster() { # NODES
  CLUSTER_DIR=$BASE/nodes$1 STORE=$PWD/$BASE/store NODES=$1 WORKERS=2 PORT=$PORT INTERLUDE=$INTERLUDE \
    ./scripts/cluster.sh >"$WORK/cluster$1.out" 2>&1 &
  CLUSTER=$!
  for _ in $(seq 1200); do grep -q '^cluster: ready' "$WORK/cluster$1.out" && return 0; kill -0 "$CLUSTER" 2>/dev/null || break; sleep 0.5; done
  echo "cluster-bench: the $1-node cluster did not start" >&2; tail -5 "$WORK/cluster$1.out" >&2; exit 1
}

# SESSIONS sessions through nginx; their top variants' paths, one a line, in $WORK/paths.
make_sessions() {
  python3 - "http://127.0.0.1:$PORT" "$SESSIONS" >"$WORK/paths" <<'PY'
import json, sys, urllib.request
from concurrent.futures import ThreadPoolExecutor
base, n = sys.argv[1], int(sys.argv[2])
def make(_):
    req = urllib.request.Request(base + "/v1/session/demo", data=b'{"reportingMode":"client"}', method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        master = json.load(r)["manifestUrl"]
    with urllib.request.urlopen(base + master, timeout=60) as r:
        variants = [l for l in r.read().decode().splitlines() if l and not l.startswith("#")]
    top = variants[0]
    return top if top.startswith("/") else master.rsplit("/", 1)[0] + "/" + top
with ThreadPoolExecutor(16) as pool:
    print("\n".join(pool.map(make, range(n))))
PY
  # every playlist once, so the load measures serving, not the first build of a timeline
  python3 - "http://127.0.0.1:$PORT" <"$WORK/paths" <<'PY'
import sys, urllib.request
from concurrent.futures import ThreadPoolExecutor
base = sys.argv[1]
paths = sys.stdin.read().split()
with ThreadPoolExecutor(16) as pool:
    list(pool.map(lambda p: urllib.request.urlopen(base + p, timeout=60).read(), paths))
PY
}

cat >"$WORK/playlists.lua" <<EOF2
local paths = {}
for line in io.lines("$WORK/paths") do paths[#paths + 1] = line end
local i = 0
request = function() i = i % #paths + 1; return wrk.format("GET", paths[i]) end
EOF2
cat >"$WORK/create.lua" <<'EOF2'
wrk.method = "POST"
wrk.body = '{"reportingMode":"client"}'
wrk.headers["Content-Type"] = "application/json"
request = function() return wrk.format(nil, "/v1/session/demo") end
EOF2

# One wrk run: "RPS P99_MS NON2XX".
one_run() { # LUA
  wrk -t"$WRK_THREADS" -c"$WRK_CONNECTIONS" -d"${SECONDS_RUN}s" --latency -s "$1" "http://127.0.0.1:$PORT" >"$WORK/wrk.out" 2>&1
  python3 - "$WORK/wrk.out" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1))
m = re.search(r"99%\s+([\d.]+)(us|ms|s)\b", t)
p99 = float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)]
bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", t)
print(f"{rps:.0f} {p99:.1f} {bad.group(1) if bad else 0}")
PY
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

declare -A RESULT
for nodes in 1 3; do
  start_cluster "$nodes"
  make_sessions
  for load in playlists create; do
    : >"$WORK/runs"
    for _ in $(seq "$RUNS"); do one_run "$WORK/$load.lua" >>"$WORK/runs"; done
    rps=$(cut -d' ' -f1 "$WORK/runs" | median); p99=$(cut -d' ' -f2 "$WORK/runs" | median)
    bad=$(awk '{s+=$3} END {print s}' "$WORK/runs")
    RESULT[$load,$nodes]="$rps req/s, p99 ${p99} ms"
    [ "$bad" = 0 ] || RESULT[$load,$nodes]+=" ($bad non-2xx)"
    echo "cluster-bench: $nodes node(s), $load: ${RESULT[$load,$nodes]} (runs: $(tr '\n' ';' <"$WORK/runs"))" >&2
  done
  stop_cluster
done

echo "machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), $(free -g | awk '/Mem:/ {print $2}') GiB; binary $INTERLUDE"
echo "wrk -t$WRK_THREADS -c$WRK_CONNECTIONS -d${SECONDS_RUN}s through nginx, median of $RUNS runs, $SESSIONS sessions"
printf '| %-38s | %-28s | %-28s |\n' "load" "1 node" "3 nodes"
printf '|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..40})" "$(printf -- '-%.0s' {1..30})" "$(printf -- '-%.0s' {1..30})"
printf '| %-38s | %-28s | %-28s |\n' "playlist GET (existing sessions)" "${RESULT[playlists,1]}" "${RESULT[playlists,3]}"
printf '| %-38s | %-28s | %-28s |\n' "session POST" "${RESULT[create,1]}" "${RESULT[create,3]}"
