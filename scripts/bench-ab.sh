#!/usr/bin/env bash
# Two interlude builds and the ffmpeg CLI on the same stitch, side by side in one run:
#   scripts/bench-ab.sh OLD_BIN NEW_BIN [ROUNDS]        (default 5 rounds)
# Takes the stitch's two command lines from $BENCH_RESULTS/latest.json (default bench-results; run
# `BENCH_QUICK=1 BENCH_SUITES=stitch … scripts/bench.sh` first, with the BENCH_SMART and
# BENCH_TRANSCODE_CACHE wanted), puts each binary in the interlude one, and runs OLD, NEW and
# ffmpeg in turn, the order rotated each round. Prints each run's wall and CPU seconds (user +
# system, from /usr/bin/time) and the whole machine's idle share while it ran (/proc/stat), then
# the medians, the ratios to ffmpeg (of the medians, and the median of each round's) and NEW/OLD.
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=${1:?usage: bench-ab.sh OLD_BIN NEW_BIN [ROUNDS]}; NEW=${2:?usage: bench-ab.sh OLD_BIN NEW_BIN [ROUNDS]}; ROUNDS=${3:-5}
RESULTS=${BENCH_RESULTS:-bench-results}
exec python3 - "$OLD" "$NEW" "$ROUNDS" "$RESULTS/latest.json" <<'PY'
import json, os, statistics as st, subprocess, sys, time
old, new, rounds, path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
stitch = next(c["stitch"] for c in json.load(open(path))["cases"] if c.get("stitch"))
ff, il = stitch["ffmpegCommand"], stitch["interludeCommand"]
if isinstance(il, str): il = il.split()
if isinstance(ff, str): ff = ff.split()
tools = {"old": [os.path.abspath(old)] + il[1:], "new": [os.path.abspath(new)] + il[1:], "ffmpeg": ff}

def stat():
    f = list(map(int, open("/proc/stat").readline().split()[1:9]))
    return sum(f), f[3] + f[4]

def run(cmd):
    a, t0 = stat(), time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    wall, b = time.monotonic() - t0, stat()
    if status != 0: sys.exit(f"bench-ab: {cmd[0]} failed ({status})")
    return wall, usage.ru_utime + usage.ru_stime, 100 * (b[1] - a[1]) / max(1, b[0] - a[0])

res = {k: [] for k in tools}
names = list(tools)
for r in range(rounds):
    line = f"round {r + 1} load {os.getloadavg()[0]:.2f}"
    for k in names[r % 3:] + names[:r % 3]:
        res[k].append(run(tools[k]))
        w, c, i = res[k][-1]
        line += f" | {k} {w:.2f} s, {c:.2f} CPU s, idle {i:.1f}%"
    print(line, flush=True)
med = lambda k, j: st.median(x[j] for x in res[k])
for k in names:
    print(f"{k}: wall {med(k, 0):.2f} ({min(x[0] for x in res[k]):.2f}-{max(x[0] for x in res[k]):.2f}) s, "
          f"CPU {med(k, 1):.2f} s, idle {med(k, 2):.1f}%")
for k in ("old", "new"):
    paired = st.median(a[0] / b[0] for a, b in zip(res[k], res["ffmpeg"]))
    print(f"{k} / ffmpeg: wall {med(k, 0) / med('ffmpeg', 0):.3f} (paired {paired:.3f}), CPU {med(k, 1) / med('ffmpeg', 1):.3f}")
print(f"new / old: wall {st.median(a[0] / b[0] for a, b in zip(res['new'], res['old'])):.3f} (paired), "
      f"CPU {med('new', 1) / med('old', 1):.3f}")
PY
