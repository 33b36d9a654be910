#!/usr/bin/env bash
# Counts what `import Interlude` exposes, from its symbol graph (scripts/symbol-graph.sh: the
# Interlude module's public symbols and those of the modules it re-exports): public declarations,
# types, and the public declarations without a `///` summary of their own (inherited docs are
# not counted as one).
# Usage: scripts/public-api.sh [--list] [--types] [--json]
#   --list  also print each declaration without a summary (file:line name)
#   --json  print the figures as one JSON object
#   --types also print the types, by module (nested types with their parent: AdUILayout.Item)
# PUBLIC_API_SYMBOLS=DIR counts an existing symbol-graph folder instead of extracting one.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${PUBLIC_API_SYMBOLS:-}
if [ -z "$dir" ]; then
  dir=.build/api-symbols
  scripts/symbol-graph.sh "$dir" -skip-inherited-docs >/dev/null
fi
python3 - "$dir" "$@" <<'PY'
import json, os, re, sys
from collections import Counter

folder, flags = sys.argv[1], set(sys.argv[2:])
symbols = []
for name in sorted(os.listdir(folder)):
    if name.startswith("Interlude") and name.endswith(".symbols.json"):
        graph = json.load(open(os.path.join(folder, name)))
        symbols += [s for s in graph["symbols"] if s.get("accessLevel") in ("public", "open")
                    and not s["kind"]["identifier"].startswith("swift.extension")]
type_kinds = {"swift.class": "classes", "swift.struct": "structs", "swift.enum": "enums",
              "swift.protocol": "protocols", "swift.actor": "actors"}

def module(s):
    m = re.search(r"/Sources/([^/]+)/", s.get("location", {}).get("uri", ""))
    if m:
        return m.group(1)
    m = re.match(r"s:(\d+)", s["identifier"]["precise"])   # synthesized: the mangled module name
    return s["identifier"]["precise"][len(m.group(0)):][:int(m.group(1))] if m else "?"

def summary(s):
    lines = s.get("docComment", {}).get("lines", [])
    return any(l.get("text", "").strip() for l in lines)

types = Counter(type_kinds[s["kind"]["identifier"]] for s in symbols if s["kind"]["identifier"] in type_kinds)
aliases = sum(1 for s in symbols if s["kind"]["identifier"] == "swift.typealias")
by_module = Counter(module(s) for s in symbols)
# Declarations the compiler synthesizes (an enum's init(rawValue:), Codable's members) have no
# source, so no summary can be written for them: counted, but not as missing one.
synthesized = [s for s in symbols if "location" not in s]
missing = [s for s in symbols if "location" in s and not summary(s)]
missing_by_module = Counter(module(s) for s in missing)
figures = {
    "declarations": len(symbols),
    "types": sum(types.values()),
    "typesByKind": dict(types),
    "typeAliases": aliases,
    "declarationsByModule": dict(by_module),
    "synthesizedWithoutSource": len(synthesized),
    "withoutSummary": len(missing),
    "withoutSummaryByModule": dict(missing_by_module),
}
if "--json" in flags:
    print(json.dumps(figures, indent=2, sort_keys=True))
else:
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(types.items()))
    print(f"import Interlude exposes {len(symbols)} public declarations and {sum(types.values())} types ({kinds}; "
          f"{aliases} type aliases besides)")
    print("  by module: " + ", ".join(f"{m} {n}" for m, n in by_module.most_common()))
    print(f"  without a /// summary: {len(missing)} (" + ", ".join(f"{m} {n}" for m, n in missing_by_module.most_common()) + ")"
          f"; besides, {len(synthesized)} synthesized by the compiler, with no source to document")
if "--types" in flags:
    named = {}
    for s in symbols:
        if s["kind"]["identifier"] in type_kinds:
            named.setdefault(module(s), []).append(".".join(s["pathComponents"]))
    for m, names in sorted(named.items(), key=lambda kv: -len(kv[1])):
        print(f"{m} ({len(names)}): " + ", ".join(sorted(names)))
if "--list" in flags:
    for s in sorted(missing, key=lambda s: (s.get("location", {}).get("uri", ""), s.get("location", {}).get("position", {}).get("line", 0))):
        loc = s.get("location", {})
        path = re.sub(r"^file://", "", loc.get("uri", "?"))
        path = path.split("/Sources/", 1)[-1]
        print(f"Sources/{path}:{loc.get('position', {}).get('line', 0) + 1}: {'.'.join(s['pathComponents'])} ({s['kind']['displayName']})")
PY
