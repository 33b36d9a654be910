#!/usr/bin/env bash
# libFuzzer target for the VAST/VMAP parser (called by `make fuzz`).
#
# Builds Sources/Timing as a module, then Sources/Ads + Fuzz/AdsFuzzEntry.swift with
# `swiftc -sanitize=fuzzer -parse-as-library`, seeds a corpus from ../shared/vast-corpus and runs
# for a bounded time. Environment: FUZZ_SECONDS (default 60), FUZZ_JOBS (default 1),
# FUZZ_ARGS (extra libFuzzer flags), SWIFTC (default: swiftc on PATH, else /opt/swift/usr/bin/swiftc).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SWIFTC=${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}
SECONDS_TO_RUN=${FUZZ_SECONDS:-60}
OUT=$ROOT/.build/fuzz
CORPUS_SRC=${VAST_CORPUS:-$ROOT/../shared/vast-corpus}
mkdir -p "$OUT/mod" "$OUT/corpus" "$OUT/artifacts"

echo "fuzz: building with $SWIFTC"
"$SWIFTC" -parse-as-library -sanitize=fuzzer -O -g -module-name Timing -emit-module -emit-module-path "$OUT/mod/Timing.swiftmodule" \
  -emit-library -static -o "$OUT/mod/libTiming.a" Sources/Timing/*.swift
mapfile -t ADS_SOURCES < <(find Sources/Ads -name '*.swift' | sort)
"$SWIFTC" -parse-as-library -sanitize=fuzzer -O -g -module-name AdsFuzz -I "$OUT/mod" -L "$OUT/mod" -lTiming \
  "${ADS_SOURCES[@]}" Fuzz/AdsFuzzEntry.swift -o "$OUT/ads-fuzz"

# Seeds: every corpus document plus a few hostile ones.
if [ -d "$CORPUS_SRC" ]; then
  find "$CORPUS_SRC" -name '*.xml' -print0 | while IFS= read -r -d '' f; do
    cp "$f" "$OUT/corpus/$(printf '%s' "$f" | md5sum | cut -c1-16).xml"
  done
else
  echo "fuzz: corpus not found at $CORPUS_SRC; seeding with built-in documents only"
fi
printf '<!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><VAST version="4.2">&x;</VAST>' > "$OUT/corpus/seed-xxe.xml"
printf '<vmap:VMAP version="1.0"><vmap:AdBreak timeOffset="50%%" breakType="linear"><vmap:AdSource><vmap:VASTAdData><VAST version="3.0"><Ad sequence="1"><InLine><Creatives><Creative><Linear skipoffset="10%%"><Duration>00:00:10.5</Duration></Linear></Creative></Creatives></InLine></Ad></VAST></vmap:VASTAdData></vmap:AdSource></vmap:AdBreak></vmap:VMAP>' > "$OUT/corpus/seed-vmap.xml"

echo "fuzz: running for ${SECONDS_TO_RUN}s"
LOG=$OUT/fuzz.log
set +e
"$OUT/ads-fuzz" "$OUT/corpus" -max_total_time="$SECONDS_TO_RUN" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$OUT/artifacts/" -print_final_stats=1 ${FUZZ_ARGS:-} 2>&1 | tee "$LOG" | grep -E '^(#[0-9]+ +(INITED|DONE|pulse)|==|stat::|.*(crash|deadly|timeout|leak))' || true
STATUS=${PIPESTATUS[0]}
set -e
RUNS=$(grep -E '^stat::number_of_executed_units' "$LOG" | awk '{print $2}' | tail -1)
echo "fuzz: ${RUNS:-0} executions, exit status $STATUS (log: $LOG, findings: $OUT/artifacts/)"
exit "$STATUS"
