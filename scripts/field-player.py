#!/usr/bin/env python3
"""Headless Chromium's native HLS player (and, for a DASH MPD, Video.js's engine over Media Source
Extensions) as a field-check client, and the small HTTP server the field check serves files with.

  scripts/field-player.py chromium [--live SECONDS] [--timeout S] [--log FILE] [--trace FILE] URL|FILE
  scripts/field-player.py serve DIR      prints http://127.0.0.1:PORT/media/ (DIR's files), serves until killed

scripts/field-check.sh runs it (`chromium`, `live-chromium`, and `serve` for the other players when
given a file). `chromium` serves scripts/field-player.html (and, for a FILE, the FILE's folder) on
127.0.0.1, starts Chromium headless with --remote-debugging-pipe, opens the page with ?src=the
playlist, and reads over the DevTools protocol the page's `FIELD {json}` console lines (the
<video> element's events) and Chromium's media log (the Media domain: what chrome://media-internals
shows, and the pipeline's errors with their causes).

VOD: clean when the element reaches `ended` with no `error` event and no media-log error, no
media-log warning outside ALLOW, every `timeupdate` currentTime at or after the one before and
never more than JUMP ahead of the wall clock, currentTime never standing still for STUCK seconds
after the first `playing`, the played ranges one range from 0 to the duration, and video frames
shown (dropped ones: at most half; a loaded machine drops some). Live (--live SECONDS): the same
over SECONDS from the first `playing`, with currentTime advancing at least SECONDS / 2 instead of
reaching the end. `waiting` and `stalled` events are counted, not judged: the native player fires
`stalled` every few seconds on a clean stream and `waiting` when the machine is slow.

Prints `ok   chromium ...` or `FAIL chromium ...` with the lines that made it unclean; exits 0 or 1
(2 when the harness itself failed: Chromium missing or not answering).
"""
import argparse
import glob
import http.server
import json
import os
import re
import shutil
import signal
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
PAGE = os.path.join(HERE, "field-player.html")

# Seconds currentTime may stand still after the first `playing` while the element has not ended
# (a stall the player does not get out of).
STUCK = 10
# Seconds currentTime may run ahead of the wall clock between two `timeupdate`s (a skipped gap).
JUMP = 1.0
# Seconds from the page's start to the first `playing`.
START = 30

# Media-log warnings Chromium 156 prints for the ffmpeg CLI's own HLS (clean references), which
# are not the stream's fault. Media-log errors are never allowed.
ALLOW = [
    # SourceBufferParseWarning 1, kMuxedSequenceMode: the native HLS player itself appends each
    # muxed MPEG-TS segment (audio and video in one SourceBuffer) in MSE 'sequence' mode
    r"^ParseWarning \(\w+\): 1$",
]

MIME = {
    ".m3u8": "application/vnd.apple.mpegurl", ".ts": "video/mp2t", ".m4s": "video/iso.segment",
    ".mp4": "video/mp4", ".m4a": "audio/mp4", ".aac": "audio/aac", ".vtt": "text/vtt",
    ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mpd": "application/dash+xml",
}


def videojs():
    """Video.js's build (with its HLS/DASH engine, VHS) from PyPI's js.videojs in the virtual
    environment `make setup` makes (.build/pyenv), or $VIDEOJS; None when there is none."""
    if os.environ.get("VIDEOJS"):
        return os.environ["VIDEOJS"]
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".build", "pyenv", "lib")
    found = glob.glob(os.path.join(root, "python3*", "site-packages", "js", "videojs", "resources", "video.min.js"))
    return found[0] if found else None


def serve(folder):
    """An HTTP/1.1 server on 127.0.0.1 (ephemeral port) in a thread: /field-player.html, and
    /media/NAME = folder/NAME (nothing outside folder)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
            file = None
            if path == "/field-player.html":
                file = PAGE
            elif path == "/videojs/video.min.js":
                file = videojs()
            elif folder and path.startswith("/media/"):
                root = os.path.realpath(folder)
                candidate = os.path.realpath(os.path.join(root, path[len("/media/"):]))
                if candidate.startswith(root + os.sep):
                    file = candidate
            if not file or not os.path.isfile(file):
                self.answer(404, "text/plain", b"not found\n")
                return
            with open(file, "rb") as f:
                body = f.read()
            self.answer(200, MIME.get(os.path.splitext(file)[1].lower(), "application/octet-stream"), body)

        def answer(self, status, ctype, body):
            try:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass   # the player hung up (it stopped, or moved on)

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True

        def handle_error(self, request, client_address):
            pass   # a player that hangs up mid-request is not the server's news

    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class Browser:
    """Chromium headless over --remote-debugging-pipe: the child's fd 3 takes commands, its fd 4
    gives answers and events, each a JSON object ended by a NUL byte."""

    def __init__(self, log):
        exe = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
        if not exe:
            raise RuntimeError("chromium not found on PATH")
        self.profile = tempfile.mkdtemp(prefix="field-chromium-")
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        args = [exe, "--headless=new", "--remote-debugging-pipe", f"--user-data-dir={self.profile}",
                "--autoplay-policy=no-user-gesture-required", "--no-first-run", "--no-default-browser-check",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--enable-logging=stderr", "--v=0", "about:blank"]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")   # Chromium refuses to start its sandbox as root
        # The pipe's ends become the child's fds 3 and 4: bash moves them (dash takes no fd
        # number over 9; no preexec_fn in a process with threads).
        move = f'exec 3<&{to_child_r} 4>&{from_child_w} {to_child_r}<&- {from_child_w}>&-; exec "$0" "$@"'
        self.proc = subprocess.Popen(["/bin/bash", "-c", move] + args, stdin=subprocess.DEVNULL, stdout=log,
                                     stderr=log, pass_fds=(to_child_r, from_child_w), start_new_session=True)
        os.close(to_child_r)
        os.close(from_child_w)
        self.next_id = 0
        self.replies = {}
        self.events = []   # (method, params); ("closed", {}) when Chromium's end of the pipe closed
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buf = b""
        while True:
            try:
                chunk = os.read(self.from_child, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                with self.cond:
                    self.events.append(("closed", {}))
                    self.cond.notify_all()
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                with self.cond:
                    if "id" in msg:
                        self.replies[msg["id"]] = msg
                    else:
                        self.events.append((msg.get("method"), msg.get("params", {})))
                    self.cond.notify_all()

    def send(self, method, params=None, session=None, timeout=30):
        with self.cond:
            self.next_id += 1
            i = self.next_id
        msg = {"id": i, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_child, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        with self.cond:
            while i not in self.replies:
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise RuntimeError(f"chromium did not answer {method}")
                self.cond.wait(min(left, 1))
            reply = self.replies.pop(i)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)   # its helpers (zygote, renderer, GPU) too
        except ProcessLookupError:
            pass
        self.proc.wait()
        os.close(self.to_child)
        shutil.rmtree(self.profile, ignore_errors=True)


def describe(error):
    """A media-log error (a status with a chain of causes, each with data) on one line."""
    parts = []
    while error:
        data = error.get("data") or {}
        parts.append(error.get("errorType", "?") + (f" {json.dumps(data, sort_keys=True)}" if data else ""))
        causes = error.get("cause") or []
        error = causes[0] if causes else None
    return " <- ".join(parts)


def watch(browser, a, began):
    """Follows the page's events and the media log until a verdict can be given."""
    seen = {"events": [], "media": [], "times": [], "first_playing": None, "startup": None, "stopped": None}
    handled = 0
    last_t, last_move, duration = None, time.monotonic(), None
    while True:
        with browser.cond:
            if len(browser.events) == handled:
                browser.cond.wait(0.5)
            new = browser.events[handled:]
            handled = len(browser.events)
        now = time.monotonic()
        for method, params in new:
            if method == "closed":
                seen["stopped"] = "chromium exited"
                return seen
            if method == "Runtime.consoleAPICalled":
                args = params.get("args", [])
                text = args[0].get("value", "") if args else ""
                if not (isinstance(text, str) and text.startswith("FIELD ")):
                    continue
                ev = json.loads(text[6:])
                seen["events"].append(ev)
                if ev["type"] == "playing" and seen["first_playing"] is None:
                    seen["first_playing"] = now
                    seen["startup"] = now - began
                if ev["type"] == "timeupdate":
                    seen["times"].append((ev["wall"], ev["t"]))
                if isinstance(ev.get("duration"), (int, float)) and ev["duration"] > 0:
                    duration = ev["duration"]
                if ev["t"] != last_t:
                    last_t, last_move = ev["t"], now
            elif method == "Media.playerMessagesLogged":
                for m in params.get("messages", []):
                    seen["media"].append((m.get("level"), m.get("message", "")))
            elif method == "Media.playerErrorsRaised":
                for e in params.get("errors", []):
                    seen["media"].append(("error", describe(e)))
        types = {e["type"] for e in seen["events"]}
        if "error" in types or "ended" in types:
            return seen
        playing = seen["first_playing"]
        if a.live is not None and playing is not None and now - playing >= a.live:
            return seen
        if playing is None and now - began > START:
            seen["stopped"] = f"no `playing` within {START} s"
            return seen
        if playing is not None and now - last_move > STUCK:
            seen["stopped"] = f"currentTime stood at {last_t:.3f} for {STUCK} s"
            return seen
        if a.live is None and playing is not None and duration and now - playing > duration * 1.5 + 20:
            seen["stopped"] = f"not ended {duration * 1.5 + 20:.0f} s after `playing` (duration {duration:.3f} s)"
            return seen
        if now - began > a.timeout:
            seen["stopped"] = f"gave up after {a.timeout:.0f} s"
            return seen


def judge(what, a, seen, summary, took):
    """Prints the verdict; returns the exit status."""
    bad = []
    if seen["stopped"]:
        bad.append(seen["stopped"])
    for e in seen["events"]:
        if e["type"] == "error":
            bad.append(f"error event: code {e.get('code')}: {e.get('message')}")
        if e["type"] == "playrejected":
            bad.append(f"play() rejected: {e.get('message')}")
    prev = None
    for wall, t in seen["times"]:
        if prev is not None and t < prev[1]:
            bad.append(f"currentTime went back from {prev[1]:.3f} to {t:.3f} (at {wall:.1f} s)")
        elif prev is not None and (t - prev[1]) - (wall - prev[0]) > JUMP:
            bad.append(f"currentTime jumped from {prev[1]:.3f} to {t:.3f} in {wall - prev[0]:.3f} s (at {wall:.1f} s)")
        prev = (wall, t)
    allow = re.compile("|".join(ALLOW))
    for level, message in seen["media"]:
        if level == "error" or (level == "warning" and not allow.search(message)):
            bad.append(f"media log {level}: {message}")
    dropped, total = summary.get("dropped") or 0, summary.get("total") or 0
    t = summary.get("t") or 0
    if t > 2 and total == 0:
        bad.append("no video frame shown")
    if total and dropped * 2 > total:
        bad.append(f"{dropped} of {total} video frames dropped")
    duration = summary.get("duration")   # null for a live stream (Infinity)
    times = [t for _, t in seen["times"]]
    if a.live is None:
        played = summary.get("played") or []
        if "ended" not in {e["type"] for e in seen["events"]}:
            bad.append(f"no `ended`: currentTime {t:.3f} of {duration}")
        elif len(played) != 1 or played[0][0] > 0.1 or not duration or abs(played[0][1] - duration) > 0.1:
            bad.append(f"played ranges {played}, not one range over the duration {duration}")
    elif len(times) < 2 or times[-1] - times[0] < a.live / 2:
        span = f"from {times[0]:.3f} to {times[-1]:.3f}" if times else "not at all"
        bad.append(f"currentTime advanced {span} in {a.live:.0f} s of playing")
    count = lambda kind: sum(1 for e in seen["events"] if e["type"] == kind)
    length = "live" if duration is None else f"{duration:.3f} s"
    started = f"playing {seen['startup']:.1f} s after the launch" if seen["startup"] is not None else "never playing"
    facts = (f"{summary.get('width')}x{summary.get('height')}, currentTime {t:.3f} of {length}, "
             f"{dropped}/{total} frames dropped, {count('waiting')} waiting, {count('stalled')} stalled, "
             f"{started}, {took:.1f} s in all")
    if bad:
        print(f"FAIL chromium {what} ({facts})")
        print("\n".join(list(dict.fromkeys(bad))[:20]))
        return 1
    print(f"ok   chromium {what} ({facts})")
    return 0


def chromium(a):
    target = a.target
    folder = None
    if not re.match(r"^https?://", target):
        if not os.path.isfile(target):
            print(f"FAIL chromium {target}: no such file")
            return 1
        folder = os.path.dirname(os.path.abspath(target))
    server = serve(folder)
    port = server.server_address[1]
    src = target if folder is None else f"http://127.0.0.1:{port}/media/{urllib.parse.quote(os.path.basename(target))}"
    page = f"http://127.0.0.1:{port}/field-player.html?src={urllib.parse.quote(src, safe='')}"
    what = f"live {target} for {a.live:g} s" if a.live is not None else target
    began = time.monotonic()
    log_path = a.log
    if not log_path:
        fd, log_path = tempfile.mkstemp(prefix="field-chromium-", suffix=".log")
        os.close(fd)
    try:
        with open(log_path, "ab") as log:
            # A browser that does not come up (no answer to its first commands: seen once under
            # the load of a full test run) is the harness's problem, not the stream's: it is
            # started once more. Nothing has been asked of the stream before that point.
            for attempt in (1, 2):
                try:
                    browser = Browser(log)
                except Exception as e:
                    print(f"FAIL chromium {what}: {e}")
                    return 2
                try:
                    targets = browser.send("Target.getTargets", timeout=60)["targetInfos"]
                    tab = next(t for t in targets if t["type"] == "page")
                    session = browser.send("Target.attachToTarget", {"targetId": tab["targetId"], "flatten": True},
                                           timeout=60)["sessionId"]
                    break
                except Exception as e:
                    browser.close()
                    if attempt == 2:
                        print(f"FAIL chromium {what}: the harness: Chromium did not come up twice: {e}")
                        return 2
                    log.write(f"field-player: Chromium did not come up ({e}); starting it once more\n".encode())
                    log.flush()
            try:
                browser.send("Runtime.enable", session=session)
                browser.send("Media.enable", session=session)
                browser.send("Page.navigate", {"url": page}, session=session)
                seen = watch(browser, a, began)
                summary = {}
                if seen["stopped"] != "chromium exited":
                    value = browser.send("Runtime.evaluate", {"expression": "fieldSummary()", "returnByValue": True},
                                         session=session)["result"].get("value")
                    summary = json.loads(value or "{}")
            except Exception as e:
                browser.close()
                with open(log_path, "rb") as f:
                    tail = f.read().decode("utf-8", "replace").splitlines()[-15:]
                print(f"FAIL chromium {what}: the harness: {e} (exit {browser.proc.returncode}); Chromium's last lines:")
                print("\n".join(tail))
                return 2
            browser.close()
    finally:
        server.shutdown()
        if not a.log:
            os.unlink(log_path)
    if a.trace:
        with open(a.trace, "w") as f:
            for e in seen["events"]:
                f.write(json.dumps({"event": e}) + "\n")
            for m in seen["media"]:
                f.write(json.dumps({"media": m}) + "\n")
            f.write(json.dumps({"summary": summary}) + "\n")
    return judge(what, a, seen, summary, time.monotonic() - began)


def serve_forever(a):
    server = serve(a.dir)
    print(f"http://127.0.0.1:{server.server_address[1]}/media/", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:
        time.sleep(3600)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("chromium", help="play a playlist in headless Chromium's native HLS player")
    c.add_argument("--live", type=float, default=None, help="a live playlist: play it for this many seconds")
    c.add_argument("--timeout", type=float, default=600, help="give up after this many seconds in all")
    c.add_argument("--log", default=None, help="Chromium's own stderr goes here (default: a temporary file, "
                   "whose last lines a harness failure prints)")
    c.add_argument("--trace", default=None, help="every page event and media-log line, as JSON lines")
    c.add_argument("target", help="an http(s) URL, or a playlist file (its folder is served)")
    s = sub.add_parser("serve", help="serve a folder's files on 127.0.0.1 until killed")
    s.add_argument("dir")
    a = ap.parse_args()
    if a.command == "serve":
        return serve_forever(a)
    return chromium(a)


if __name__ == "__main__":
    sys.exit(main())
