#!/usr/bin/env python3
"""Checks that every relative link and image in the given Markdown files resolves to a file (and a
`#fragment` to a heading of that file). Usage: scripts/md-links.py FILE.md…  Exit 1 on a broken one."""
import os
import re
import sys


def anchors(path):
    out = set()
    inside = False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            inside = not inside
        if not inside and line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


bad = 0
checked = 0
for md in sys.argv[1:]:
    text = open(md, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"^[a-z]+:", target):
            continue
        checked += 1
        path, _, frag = target.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(md), path)) if path else md
        if not os.path.exists(full):
            print(f"{md}: link to {target}: no such file")
            bad += 1
        elif frag and full.endswith(".md") and frag not in anchors(full):
            print(f"{md}: link to {target}: no such heading")
            bad += 1
print(f"links: {checked} checked, {bad} broken")
sys.exit(1 if bad else 0)
