#!/usr/bin/env bash
# `make docs`: the Interlude module's documentation, built with the toolchain's `docc` from the
# symbol graphs of a debug build, into .build/docs. Fails on any warning (a broken symbol link, a
# missing article, …) and when a Swift listing in the articles is not code the tests run
# (scripts/docs-code-check.py). The log is kept as .build/docs.log (docc's own output:
# .build/docs-docc.log).
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
catalog=Sources/Interlude/Interlude.docc
symbols=.build/docs-symbols
out=.build/docs
log=.build/docs.log
mkdir -p .build
: >"$log"

# 1. The articles' code is the guide tests' code.
python3 scripts/docs-code-check.py "$catalog" Tests | tee -a "$log"

# 2. The symbol graph of what `import Interlude` exposes (re-exported modules included).
scripts/symbol-graph.sh "$symbols" >>"$log" 2>&1 || { echo "docs: no symbol graph (see $log)" >&2; exit 1; }

# 3. docc, warnings as errors; any "warning:" line in its output fails the target too.
rm -rf "$out"
doccLog=.build/docs-docc.log
status=0
docc convert "$catalog" --additional-symbol-graph-dir "$symbols" \
  --fallback-display-name Interlude --fallback-bundle-identifier org.interlude.Interlude \
  --fallback-default-module-kind Framework \
  --output-path "$out" --warnings-as-errors >"$doccLog" 2>&1 || status=$?
cat "$doccLog" | tee -a "$log"
if [ "$status" -ne 0 ] || grep -qE '(warning|error):' "$doccLog"; then
  echo "docs: docc reported problems (status $status; see $log)" >&2
  exit 1
fi
echo "docs: $(find "$out/data/documentation" -name '*.json' | wc -l) pages in $out (open $out/index.html through a web server)"
scripts/public-api.sh | tee -a "$log"
