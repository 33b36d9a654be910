#!/usr/bin/env bash
# Writes the symbol graph of what `import Interlude` exposes into DIR: the Interlude module's
# public symbols together with those of the modules it re-exports (Sources/Interlude/Exports.swift),
# from the debug build's modules, with swift-symbolgraph-extract. Builds the Interlude target
# first (incremental; its output in .build/symbol-graph-build.log). Extra arguments go to swift-symbolgraph-extract (e.g. -skip-inherited-docs).
# Used by `make docs` (scripts/docs.sh) and scripts/public-api.sh.
# Usage: scripts/symbol-graph.sh DIR [extract options…]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: scripts/symbol-graph.sh DIR [extract options…]}
shift
SWIFT=${SWIFT:-swift}
buildLog=.build/symbol-graph-build.log
"$SWIFT" build --target Interlude >"$buildLog" 2>&1 || { cat "$buildLog" >&2; exit 1; }
bin=$("$SWIFT" build --show-bin-path)
# The C modules' map files and header paths, as the build passed them to the compiler.
mapfile -t cflags < <(python3 - "$bin/description.json" <<'PY'
import json, sys
cmds = json.load(open(sys.argv[1]))["swiftCommands"]
args = next(v["otherArguments"] for k, v in cmds.items() if k.startswith("C.Interlude-"))
out, i = [], 0
while i < len(args):
    a = args[i]
    if a == "-Xcc" and i + 1 < len(args) and args[i + 1].startswith("-fmodule-map-file="):
        out += [a, args[i + 1]]; i += 2; continue
    if a.startswith("-I") and len(a) > 2:
        out.append(a)
    i += 1
print("\n".join(dict.fromkeys(out) if False else out))
PY
)
rm -rf "$dir" && mkdir -p "$dir"
# Every module of the package may be re-exported; the tool keeps only those Interlude re-exports.
swift-symbolgraph-extract -module-name Interlude -target "$(uname -m)-unknown-linux-gnu" \
  -I "$bin/Modules" "${cflags[@]}" -module-cache-path "$bin/ModuleCache" \
  -minimum-access-level public -skip-synthesized-members \
  -experimental-allowed-reexported-modules=Playback,Timing,Draw,Media,Ads \
  -output-dir "$dir" "$@"
