#!/usr/bin/env python3
"""Normalise the volatile parts of an `interlude stitch` run so two runs can be diffed.

usage: norm.py report|text|m3u8 FILE CASEDIR MEDIADIR   (writes the normalised text to stdout)

- paths: CASEDIR (the case's output folder, which holds the output, report and caches) -> <CASE>,
  MEDIADIR -> <MEDIA>, HOME-ish temp dirs are inside CASEDIR so they become <CASE>/...
- report: keys that measure wall-clock time are dropped (`timings`, `conformSeconds`, any key in
  VOLATILE_KEYS); keys are sorted; floats are printed as JSON prints them (no rounding: a change of
  a stream time by 1e-9 is a change).
- [CACHEBUSTING] expansions (cb=<digits>) -> cb=<CB>.
- text (stdout/stderr): `took 0.51s (plan …)` timing lines have their numbers replaced by <T>.
- m3u8: wall-clock dates (PROGRAM-DATE-TIME, START-DATE, END-DATE) are rewritten as offsets in
  milliseconds from the playlist's first date (T0+2000ms), so the playlist's structure is kept.
"""
import json
import re
import sys
from datetime import datetime

VOLATILE_KEYS = {"timings", "conformSeconds"}


def fix_paths(s, case_dir, media_dir):
    s = s.replace(case_dir, "<CASE>")
    s = s.replace(media_dir, "<MEDIA>")
    s = re.sub(r"cb=\d+", "cb=<CB>", s)
    return s


def walk(v, case_dir, media_dir):
    if isinstance(v, dict):
        return {k: walk(x, case_dir, media_dir) for k, x in v.items() if k not in VOLATILE_KEYS}
    if isinstance(v, list):
        return [walk(x, case_dir, media_dir) for x in v]
    if isinstance(v, str):
        return fix_paths(v, case_dir, media_dir)
    return v


def main():
    kind, path, case_dir, media_dir = sys.argv[1:5]
    case_dir = case_dir.rstrip("/")
    media_dir = media_dir.rstrip("/")
    data = open(path, encoding="utf-8", errors="replace").read()
    if kind == "report":
        try:
            obj = json.loads(data)
        except ValueError as e:
            print("UNPARSEABLE REPORT: %s" % e)
            return
        print(json.dumps(walk(obj, case_dir, media_dir), indent=1, sort_keys=True))
    elif kind == "text":
        out = []
        for line in data.splitlines():
            line = fix_paths(line, case_dir, media_dir)
            if re.match(r"\s*took \d", line):
                line = re.sub(r"\d+(\.\d+)?s", "<T>s", line)
            out.append(line)
        print("\n".join(out))
    elif kind == "m3u8":
        dates = re.findall(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z", data)
        t0 = None
        if dates:
            t0 = datetime.strptime(dates[0], "%Y-%m-%dT%H:%M:%S.%fZ" if "." in dates[0] else "%Y-%m-%dT%H:%M:%SZ")

        def rel(m):
            s = m.group(0)
            t = datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ" if "." in s else "%Y-%m-%dT%H:%M:%SZ")
            return "T0+%dms" % round((t - t0).total_seconds() * 1000)

        data = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z", rel, data)
        sys.stdout.write(fix_paths(data, case_dir, media_dir))
    else:
        sys.exit("unknown kind " + kind)


if __name__ == "__main__":
    main()
