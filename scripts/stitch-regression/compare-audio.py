#!/usr/bin/env python3
"""Decoded-audio comparison of two stitch-regression runs, for changes that encode audio
differently (e.g. smart rendering copying the content's own AAC packets, docs/SMART.md):

    compare-audio.py OLDDIR NEWDIR [CASE...]

For every case (or the named ones) whose audio.framemd5 differs, decodes both outputs with the
ffmpeg CLI (48 kHz stereo float, low-passed at 3.5 kHz: FFmpeg's AAC encoder fills bands above
4 kHz with noise substitution, which decodes to other noise after any other packet) and prints:
the decoded lengths (must be equal: no gap, no overlap), the signal-to-difference of NEW against
OLD overall and in the worst 1024-sample block with signal, and the worst time lag of NEW against
OLD over 4096-sample windows (cross-correlation within +-64 samples; must be 0: no shift).
Exit status 1 when a case has unequal lengths, a lag, or a block under 20 dB; needs numpy."""
import os, subprocess, sys
import numpy as np

def output(case_dir):
    for name in ("out.mp4", os.path.join("out", "index.m3u8")):
        p = os.path.join(case_dir, name)
        if os.path.exists(p):
            return p
    return None

def decode(path):
    b = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:a:0", "-af",
                        "lowpass=f=3500:poles=2,lowpass=f=3500:poles=2,lowpass=f=3500:poles=2",
                        "-f", "f32le", "-ac", "2", "-ar", "48000", "-"], capture_output=True, check=True).stdout
    return np.frombuffer(b, dtype=np.float32).reshape(-1, 2).astype(np.float64)

def worst_lag(a, b, window=4096, reach=64):
    worst = 0
    for start in range(reach, min(len(a), len(b)) - window - reach, window):
        ref = a[start:start + window, 0]
        if np.sum(ref * ref) < 1e-3:
            continue
        best = max(range(-reach, reach + 1), key=lambda k: float(np.dot(ref, b[start + k:start + k + window, 0])))
        worst = best if abs(best) > abs(worst) else worst
    return worst

def main():
    old, new, only = sys.argv[1], sys.argv[2], sys.argv[3:]
    cases = only or sorted(c for c in os.listdir(new) if os.path.isdir(os.path.join(new, c)))
    bad = 0
    for case in cases:
        fo, fn = os.path.join(old, case, "audio.framemd5"), os.path.join(new, case, "audio.framemd5")
        if not (os.path.exists(fo) and os.path.exists(fn)) or open(fo).read() == open(fn).read():
            continue
        po, pn = output(os.path.join(old, case)), output(os.path.join(new, case))
        if not po or not pn:
            print(f"{case:28s} no output to decode"); bad += 1; continue
        a, b = decode(po), decode(pn)
        n = min(len(a), len(b))
        d = b[:n] - a[:n]
        blocks = n // 1024
        sig = np.array([np.sum(a[i * 1024:(i + 1) * 1024] ** 2) for i in range(blocks)])
        err = np.array([np.sum(d[i * 1024:(i + 1) * 1024] ** 2) for i in range(blocks)])
        loud = sig > 1e-2
        snr = 10 * np.log10(np.maximum(sig, 1e-20) / np.maximum(err, 1e-20))
        overall = 10 * np.log10(sig.sum() / max(err.sum(), 1e-20))
        worst = snr[loud].min() if loud.any() else float("inf")
        at = int(np.arange(blocks)[loud][np.argmin(snr[loud])]) * 1024 if loud.any() else 0
        lag = worst_lag(a, b)
        ok = len(a) == len(b) and lag == 0 and worst >= 20
        bad += 0 if ok else 1
        print(f"{case:28s} {'ok  ' if ok else 'BAD '} samples {len(a)} / {len(b)}; new vs old {overall:5.1f} dB overall, "
              f"worst block {worst:5.1f} dB at sample {at}; worst lag {lag}")
    sys.exit(1 if bad else 0)

main()
