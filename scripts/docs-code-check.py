#!/usr/bin/env python3
"""Checks that every Swift code listing in the DocC articles is code the tests compile and run.

Usage: scripts/docs-code-check.py CATALOG [SOURCE_DIR ...]   (default sources: Tests)

Each ```swift block of each article must appear, line for line, in one Swift file under the
source folders: its non-blank lines, stripped of leading and trailing white space, as a
contiguous run of that file's non-blank stripped lines. A line `// …` in a listing marks a gap:
the pieces around it must appear in that order in the same file. Prints one line per listing
that is not found and exits 1; prints a summary line and exits 0 when all are found.
"""
import os
import re
import sys

GAP = "// …"


def norm(text):
    return [l.strip() for l in text.split("\n") if l.strip()]


def pieces(block):
    out, cur = [], []
    for line in norm(block):
        if line == GAP:
            if cur:
                out.append(cur)
            cur = []
        else:
            cur.append(line)
    if cur:
        out.append(cur)
    return out


def find(hay, needle, start):
    n = len(needle)
    for i in range(start, len(hay) - n + 1):
        if hay[i:i + n] == needle:
            return i + n
    return -1


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().split("\n")[2], file=sys.stderr)
        return 2
    catalog = sys.argv[1]
    roots = sys.argv[2:] or ["Tests"]
    sources = {}
    for root in roots:
        for d, _, files in os.walk(root):
            for f in files:
                if f.endswith(".swift"):
                    p = os.path.join(d, f)
                    with open(p, encoding="utf-8") as fh:
                        sources[p] = norm(fh.read())
    missing, total = 0, 0
    for d, _, files in os.walk(catalog):
        for f in sorted(files):
            if not f.endswith(".md"):
                continue
            path = os.path.join(d, f)
            text = open(path, encoding="utf-8").read()
            for m in re.finditer(r"^```swift\n(.*?)^```", text, re.S | re.M):
                total += 1
                line = text[:m.start()].count("\n") + 1
                parts = pieces(m.group(1))
                ok = False
                for lines in sources.values():
                    at = 0
                    for part in parts:
                        at = find(lines, part, at)
                        if at < 0:
                            break
                    if at >= 0:
                        ok = True
                        break
                if not ok:
                    missing += 1
                    print(f"{path}:{line}: this Swift listing is not code of any test under {', '.join(roots)}")
    if missing:
        return 1
    print(f"docs: {total} Swift listings, each found in the tests' code")
    return 0


if __name__ == "__main__":
    sys.exit(main())
