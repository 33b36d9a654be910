#!/usr/bin/env bash
# Starts an `interlude serve` fleet on 127.0.0.1 as deploy/README.md describes it: redis-server
# (a Unix socket, append-only file), N serve nodes and M workers on one shared store folder, and
# nginx in front (deploy/nginx.conf, as it is, its @FIELDS@ filled in). Prints the URL viewers
# use, then waits; Ctrl-C (or SIGTERM) stops everything it started. The cluster tests run it too.
#
# Environment (all optional):
#   INTERLUDE      the binary (.build/release/interlude)
#   CLUSTER_DIR    where the run's files go (.build/cluster): redis/, store/, nginx/, logs/, pids/
#   PORT           nginx's port (8080); nodes listen on PORT+1 … PORT+NODES
#   NODES WORKERS  how many (3, 2)
#   CONTENT        NAME=SOURCE (demo=Media/content.mp4)
#   ADS            the tag template (Media/demo-vmap.xml)
#   SERVE_ARGS     more `interlude serve` options (e.g. "--renditions 180p:320x180:400k")
#   WORKER_ARGS    more `interlude worker` options (e.g. "--visibility-timeout 5")
set -euo pipefail
cd "$(dirname "$0")/.."
INTERLUDE=${INTERLUDE:-.build/release/interlude}
CLUSTER_DIR=${CLUSTER_DIR:-.build/cluster}
PORT=${PORT:-8080}
NODES=${NODES:-3}
WORKERS=${WORKERS:-2}
CONTENT=${CONTENT:-demo=Media/content.mp4}
ADS=${ADS:-Media/demo-vmap.xml}
SERVE_ARGS=${SERVE_ARGS:-}
WORKER_ARGS=${WORKER_ARGS:-}

for tool in redis-server nginx "$INTERLUDE"; do
  command -v "$tool" >/dev/null || { echo "cluster: $tool not found (make setup; make release)" >&2; exit 1; }
done
mkdir -p "$CLUSTER_DIR"
CLUSTER_DIR=$(cd "$CLUSTER_DIR" && pwd)
rm -rf "$CLUSTER_DIR/nginx" "$CLUSTER_DIR/pids" "$CLUSTER_DIR/logs"
mkdir -p "$CLUSTER_DIR"/{redis,nginx,logs,pids}
STORE=${STORE:-$CLUSTER_DIR/store}
SOCK=$CLUSTER_DIR/redis/redis.sock
REDIS=unix://$SOCK

pids=()
stop() {
  trap - INT TERM EXIT
  # nodes and workers first (they finish what is in flight), then nginx and Redis
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  echo "cluster: stopped" >&2
}
# A signal stops everything and ends the script (a trap that only returned would leave it looping).
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
trap stop EXIT

start() { # NAME COMMAND…: runs it in the background, its output in logs/NAME.log, its pid in pids/NAME
  local name=$1; shift
  "$@" >"$CLUSTER_DIR/logs/$name.log" 2>&1 &
  local pid=$!
  pids=("$pid" "${pids[@]}")          # stopped in reverse order of starting
  echo "$pid" >"$CLUSTER_DIR/pids/$name"
}

wait_for() { # SECONDS DESCRIPTION COMMAND…
  local seconds=$1 what=$2; shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS > deadline)); then echo "cluster: $what not ready after ${seconds}s (see $CLUSTER_DIR/logs)" >&2; exit 1; fi
    # a process that exited will not become ready: say why at once
    if [[ -f $CLUSTER_DIR/pids/$what ]] && ! kill -0 "$(cat "$CLUSTER_DIR/pids/$what")" 2>/dev/null; then
      echo "cluster: $what exited: $(tail -n 3 "$CLUSTER_DIR/logs/$what.log" 2>/dev/null | tr '\n' ' ')" >&2; exit 1
    fi
    sleep 0.1
  done
}

start redis redis-server --port 0 --unixsocket "$SOCK" --unixsocketperm 700 --dir "$CLUSTER_DIR/redis" \
  --appendonly yes --appendfsync everysec --save "" --daemonize no
wait_for 10 "redis" redis-cli -s "$SOCK" ping

serve() { # node number
  local port=$((PORT + $1))
  # shellcheck disable=SC2086
  # behind nginx every connection comes from 127.0.0.1: no per-client cap on the nodes
  start "node$1" "$INTERLUDE" serve --listen "127.0.0.1:$port" --content "$CONTENT" --ads "$ADS" --max-connections-per-client 0 \
    --store "$STORE" --redis "$REDIS" $SERVE_ARGS
  echo "$port" >"$CLUSTER_DIR/pids/node$1.port"
}
# The first node packages the content into the store; the others then find it there.
serve 1
wait_for 600 "node1" curl -fsS "http://127.0.0.1:$((PORT + 1))/health"
for ((n = 2; n <= NODES; n++)); do serve "$n"; done
for ((w = 1; w <= WORKERS; w++)); do
  # the demo VMAP's ads are files in Media/: a worker reads local media only inside the folder it is given
  # shellcheck disable=SC2086
  start "worker$w" "$INTERLUDE" worker --redis "$REDIS" --store "$STORE" --consumer "worker$w" --allow-local-media Media $WORKER_ARGS
done
for ((n = 2; n <= NODES; n++)); do wait_for 120 "node$n" curl -fsS "http://127.0.0.1:$((PORT + n))/health"; done

upstreams=""
for ((n = 1; n <= NODES; n++)); do upstreams+="server 127.0.0.1:$((PORT + n)) max_fails=1 fail_timeout=5s; "; done
sed -e "s|@USER@|$(id -un)|" -e "s|@RUN@|$CLUSTER_DIR/nginx|g" -e "s|@LISTEN@|127.0.0.1:$PORT|" \
    -e "s|@STORE@|$STORE/|" -e "s|@NODES@|$upstreams|" deploy/nginx.conf >"$CLUSTER_DIR/nginx/nginx.conf"
start nginx nginx -c "$CLUSTER_DIR/nginx/nginx.conf" -p "$CLUSTER_DIR/nginx" -e "$CLUSTER_DIR/nginx/error.log"
wait_for 20 "nginx" curl -fsS "http://127.0.0.1:$PORT/health"

name=${CONTENT%%=*}
echo "cluster: redis $REDIS, $NODES nodes on 127.0.0.1:$((PORT + 1))…$((PORT + NODES)), $WORKERS workers, store $STORE"
echo "http://127.0.0.1:$PORT/v1/master/$name/index.m3u8"
echo "cluster: ready (Ctrl-C stops it)"
# Runs until interrupted; a process that exits is reported, the rest keep running.
while true; do
  wait -n "${pids[@]}" 2>/dev/null || true
  for f in "$CLUSTER_DIR"/pids/*; do
    [[ $f == *.port ]] && continue
    p=$(cat "$f"); kill -0 "$p" 2>/dev/null || { echo "cluster: $(basename "$f") ($p) exited" >&2; rm -f "$f"; }
  done
  sleep 1
done
