#!/usr/bin/env python3
"""The live fleet run's two programs (scripts/live-fleet.sh drives them), standard library only.

  live-fleet.py origin DIR PORT     a real-time live origin over DIR's 2 s MPEG-TS segments (a
                                    sliding window of 8, a break announced ahead with a DATERANGE
                                    whose SCTE35-OUT is a splice_insert at the break's first PTS)
                                    and a loopback ad server (VAST per session and avail, beacons
                                    counted per session/avail/ad/event); GET /__stats says what it saw
  live-fleet.py viewers BASE ORIGIN N OUT
                                    N simulated viewers through BASE (nginx): each starts a session,
                                    reads its master playlist, then refreshes its top variant at the
                                    target duration as a player does, downloading every new segment;
                                    each refresh checked against RFC 8216's rules across refreshes
                                    (§6.2.1-6.2.2, §6.3.4); figures written to OUT (JSON)
"""
import asyncio, json, os, sys, time, threading, urllib.parse
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler

SEGMENT = 2.0          # seconds per origin segment
WINDOW = 8             # segments in the origin's playlist
INITIAL = 10           # segments published at start
BREAK_SEGMENT = 60     # the break starts at this segment's first frame
BREAK_SECONDS = 16     # two 8 s ads
ANNOUNCED = 15         # segments ahead of the break its DATERANGE first appears (30 s)


def crc32_mpeg2(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) & 0xFFFFFFFF if crc & 0x80000000 else (crc << 1) & 0xFFFFFFFF
    return crc


def splice_insert(event_id, pts, duration_ticks):
    """An SCTE-35 splice_info_section with a splice_insert out of network at `pts` (90 kHz)."""
    cmd = event_id.to_bytes(4, "big") + bytes([0x7F])                 # not cancelled
    cmd += bytes([0b11101111])                                         # out, program splice, duration, not immediate
    cmd += ((0xFE << 32) | (pts & 0x1FFFFFFFF)).to_bytes(5, "big")    # time_specified, pts_time
    cmd += ((0xFE << 32) | (duration_ticks & 0x1FFFFFFFF)).to_bytes(5, "big")  # auto_return, duration
    cmd += (1).to_bytes(2, "big") + bytes([0, 0])                       # unique_program_id, avail_num, avails_expected
    body = bytes([0])                                                   # protocol_version
    body += bytes([0]) + (0).to_bytes(4, "big")                         # not encrypted, pts_adjustment 0
    body += bytes([0])                                                  # cw_index
    body += ((0xFFF << 12) | len(cmd)).to_bytes(3, "big")               # tier, splice_command_length
    body += bytes([5]) + cmd + (0).to_bytes(2, "big")                   # splice_insert, no descriptors
    length = len(body) + 4
    section = bytes([0xFC, 0x30 | (length >> 8), length & 0xFF]) + body
    return section + crc32_mpeg2(section).to_bytes(4, "big")


def origin(folder, port):
    names = sorted((f for f in os.listdir(folder) if f.startswith("s") and f.endswith(".ts")), key=lambda f: int(f[1:-3]))
    first_pts = int(open(os.path.join(folder, "first_pts")).read())
    t0 = time.time()
    base_date = 1_796_083_200.0
    stats = {"t0": t0, "vast": [], "beacons": {}, "breakWallStart": t0 + (BREAK_SEGMENT - INITIAL + 1) * SEGMENT,
             "announcedWall": t0 + (BREAK_SEGMENT - ANNOUNCED - INITIAL + 1) * SEGMENT}
    lock = threading.Lock()
    section = splice_insert(1, first_pts + BREAK_SEGMENT * 180_000, BREAK_SECONDS * 90_000)

    def published():
        return min(len(names), INITIAL + int((time.time() - t0) / SEGMENT))

    def iso(seconds):
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + ".%03dZ" % int(round((seconds % 1) * 1000))

    def playlist():
        n = published()
        first = max(0, n - WINDOW)
        lines = ["#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:%d" % first]
        announced = False
        for k in range(first, n):
            lines.append("#EXT-X-PROGRAM-DATE-TIME:" + iso(base_date + k * SEGMENT))
            if not announced and BREAK_SEGMENT - ANNOUNCED <= k <= BREAK_SEGMENT + BREAK_SECONDS / SEGMENT:
                announced = True
                lines.append('#EXT-X-DATERANGE:ID="brk-1",START-DATE="%s",PLANNED-DURATION=%.3f,SCTE35-OUT=0x%s'
                             % (iso(base_date + BREAK_SEGMENT * SEGMENT), BREAK_SECONDS, section.hex().upper()))
            lines += ["#EXTINF:%.3f," % SEGMENT, names[k]]
        if n == len(names):
            lines.append("#EXT-X-ENDLIST")
        return "\n".join(lines) + "\n"

    def vast(session, avail):
        host = "http://127.0.0.1:%d" % port
        ads = []
        for n in (1, 2):
            def t(event):
                return "<![CDATA[%s/t?s=%s&a=%s&ad=%d&e=%s]]>" % (host, session, avail, n, event)
            ads.append('<Ad id="ad%d" sequence="%d"><InLine><AdSystem>fleet</AdSystem><AdTitle>ad%d</AdTitle>'
                       '<Impression>%s</Impression><Creatives><Creative id="c%d"><Linear><Duration>00:00:08</Duration>'
                       '<TrackingEvents><Tracking event="start">%s</Tracking><Tracking event="midpoint">%s</Tracking>'
                       '<Tracking event="complete">%s</Tracking></TrackingEvents><MediaFiles>'
                       '<MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[%s/ad%d.mp4]]></MediaFile>'
                       '</MediaFiles></Linear></Creative></Creatives></InLine></Ad>'
                       % (n, n, n, t("imp"), n, t("start"), t("midpoint"), t("complete"), host, n))
        return '<VAST version="4.1">' + "".join(ads) + "</VAST>"

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, status, body, kind="text/plain"):
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            u = urllib.parse.urlsplit(self.path)
            q = dict(urllib.parse.parse_qsl(u.query))
            if u.path == "/live.m3u8":
                return self.send(200, playlist().encode(), "application/vnd.apple.mpegurl")
            if u.path.startswith("/s") and u.path.endswith(".ts") and u.path[1:] in names[:published()]:
                return self.send(200, open(os.path.join(folder, u.path[1:]), "rb").read(), "video/mp2t")
            if u.path in ("/ad1.mp4", "/ad2.mp4"):
                return self.send(200, open(os.path.join(folder, u.path[1:]), "rb").read(), "video/mp4")
            if u.path == "/vast":
                with lock:
                    stats["vast"].append([time.time(), q.get("s", ""), q.get("a", "")])
                return self.send(200, vast(q.get("s", ""), q.get("a", "")).encode(), "application/xml")
            if u.path == "/t":
                key = "%s %s %s %s" % (q.get("s"), q.get("a"), q.get("ad"), q.get("e"))
                with lock:
                    stats["beacons"][key] = stats["beacons"].get(key, 0) + 1
                return self.send(200, b"")
            if u.path == "/__stats":
                with lock:
                    return self.send(200, json.dumps(stats).encode(), "application/json")
            self.send(404, b"no")

    ThreadingHTTPServer.daemon_threads = True
    ThreadingHTTPServer.request_queue_size = 1024
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print("origin: ready", flush=True)
    server.serve_forever()


class Connection:
    """One keep-alive HTTP/1.1 connection of a viewer (reopened when the server closes it)."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.reader = self.writer = None

    async def request(self, method, path, body=b""):
        for attempt in range(2):
            try:
                if self.writer is None:
                    self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
                head = "%s %s HTTP/1.1\r\nHost: %s:%d\r\nUser-Agent: live-fleet\r\nContent-Length: %d\r\n\r\n" % (
                    method, path, self.host, self.port, len(body))
                self.writer.write(head.encode() + body)
                status_line = await self.reader.readline()
                if not status_line:
                    raise ConnectionError("closed")
                status = int(status_line.split()[1])
                length, chunked, close = None, False, False
                while True:
                    line = await self.reader.readline()
                    if line in (b"\r\n", b"\n", b""):
                        break
                    name, _, value = line.decode("latin-1").partition(":")
                    name, value = name.strip().lower(), value.strip()
                    if name == "content-length":
                        length = int(value)
                    elif name == "transfer-encoding" and "chunked" in value.lower():
                        chunked = True
                    elif name == "connection" and value.lower() == "close":
                        close = True
                if chunked:
                    data = bytearray()
                    while True:
                        size = int((await self.reader.readline()).split(b";")[0], 16)
                        if size == 0:
                            await self.reader.readline()
                            break
                        data += await self.reader.readexactly(size)
                        await self.reader.readline()
                    data = bytes(data)
                else:
                    data = await self.reader.readexactly(length or 0)
                if close:
                    self.close()
                return status, data
            except (ConnectionError, asyncio.IncompleteReadError, OSError, ValueError, IndexError):
                self.close()
                if attempt == 1:
                    return 0, b""
        return 0, b""

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def parse(text):
    """A media playlist: target, media sequence, discontinuity sequence, ended, segments as
    (uri, EXTINF string, seconds, discontinuity before it)."""
    target = ms = ds = None
    ended, segments, disc, extinf = False, [], False, None
    for line in text.splitlines():
        if line.startswith("#EXT-X-TARGETDURATION:"):
            target = int(line.split(":", 1)[1])
        elif line.startswith("#EXT-X-MEDIA-SEQUENCE:"):
            ms = int(line.split(":", 1)[1])
        elif line.startswith("#EXT-X-DISCONTINUITY-SEQUENCE:"):
            ds = int(line.split(":", 1)[1])
        elif line == "#EXT-X-DISCONTINUITY":
            disc = True
        elif line == "#EXT-X-ENDLIST":
            ended = True
        elif line.startswith("#EXTINF:"):
            extinf = line[8:].split(",")[0]
        elif line and not line.startswith("#"):
            segments.append((line, extinf, float(extinf), disc))
            disc, extinf = False, None
    return target, ms or 0, ds or 0, ended, segments


class Viewer:
    def __init__(self, n, base, run):
        host, port = base.split("//")[1].split(":")
        self.n, self.run = n, run
        self.http = Connection(host, int(port))
        self.seen = {}          # media sequence -> (uri, extinf, discontinuity sequence number)
        self.violations = []
        self.target = self.last_ms = None
        self.removed_any = False
        self.session = None
        self.failures = 0       # playlist fetches that did not answer 200
        self.failed_after_kill = 0
        self.ads = 0

    def check(self, text):
        target, ms, ds, ended, segments = parse(text)
        v = self.violations
        if target is None:
            v.append("no EXT-X-TARGETDURATION")
            return []
        if self.target is not None and target != self.target:
            v.append("EXT-X-TARGETDURATION changed %d -> %d (6.2.1)" % (self.target, target))
        self.target = target
        if self.last_ms is not None and ms < self.last_ms:
            v.append("EXT-X-MEDIA-SEQUENCE went back %d -> %d (6.2.1)" % (self.last_ms, ms))
        if self.last_ms is not None and ms > self.last_ms:
            self.removed_any = True
        self.last_ms = ms
        total = 0.0
        new = []
        dsn = ds
        for i, (uri, extinf, seconds, disc) in enumerate(segments):
            if disc:
                dsn += 1
            total += seconds
            if round(seconds) > target:
                v.append("EXTINF %s over the target %d (4.3.3.1)" % (extinf, target))
            seq = ms + i
            if seq in self.seen:
                old = self.seen[seq]
                if old != (uri, extinf, dsn):
                    v.append("segment %d changed: %s -> %s (6.2.1)" % (seq, old, (uri, extinf, dsn)))
            else:
                if self.seen and seq <= max(self.seen):
                    v.append("segment %d inserted before published ones (6.2.1)" % seq)
                self.seen[seq] = (uri, extinf, dsn)
                new.append(uri)
        if self.removed_any and not ended and total < 3 * target - 0.001:
            v.append("window %.3f s under three target durations after a removal (6.2.2)" % total)
        return new

    async def play(self):
        run = self.run
        await asyncio.sleep(self.n * run["join"] / run["viewers"])
        status, body = await self.http.request("POST", "/v1/session/ch", b"{}")
        if status != 200:
            run["sessionFailures"] += 1
            return
        manifest = json.loads(body)["manifestUrl"]
        self.session = manifest.split("/")[3]
        status, body = await self.http.request("GET", manifest)
        variants = [l for l in body.decode().splitlines() if l and not l.startswith("#")]
        if status != 200 or not variants:
            run["sessionFailures"] += 1
            return
        variant = variants[0]
        while time.time() < run["end"]:
            started = time.time()
            status, body = await self.http.request("GET", variant)
            took = time.time() - started
            run["requests"] += 1
            if status != 200:
                self.failures += 1
                if run["killedAt"] and started > run["killedAt"]:
                    self.failed_after_kill += 1
                await asyncio.sleep(1)
                continue
            run["latencies"].append(took)
            for uri in self.check(body.decode()):
                s, data = await self.http.request("GET", uri)
                run["requests"] += 1
                run["segmentBytes"] += len(data)
                if s != 200:
                    run["segmentFailures"] += 1
                if "/ads/" in uri:
                    self.ads += 1
            await asyncio.sleep((self.target or 6) * (0.9 + 0.2 * ((self.n * 7919) % 100) / 100))


async def viewers(base, origin_url, count, out):
    host, port = origin_url.split("//")[1].split(":")
    stats_conn = Connection(host, int(port))
    _, body = await stats_conn.request("GET", "/__stats")
    schedule = json.loads(body)
    run = {"viewers": count, "join": float(os.environ.get("JOIN_SECONDS", "30")), "requests": 0, "segmentBytes": 0,
           "latencies": [], "sessionFailures": 0, "segmentFailures": 0, "killedAt": None,
           "end": schedule["breakWallStart"] + BREAK_SECONDS + float(os.environ.get("AFTER_SECONDS", "30"))}
    kill_at = schedule["breakWallStart"] + float(os.environ.get("KILL_AFTER", "8"))
    pidfile = os.environ.get("KILL_PIDFILE")

    async def killer():
        await asyncio.sleep(max(0, kill_at - time.time()))
        if pidfile and os.path.exists(pidfile):
            os.kill(int(open(pidfile).read()), 9)
            run["killedAt"] = time.time()
            print("viewers: SIGKILL %s at break + %.1f s" % (pidfile, run["killedAt"] - schedule["breakWallStart"]), flush=True)

    started = time.time()
    vs = [Viewer(i, base, run) for i in range(count)]
    await asyncio.gather(killer(), *(v.play() for v in vs))
    elapsed = time.time() - started
    _, body = await stats_conn.request("GET", "/__stats")
    seen = json.loads(body)
    lat = sorted(run["latencies"])
    def pct(p):
        return lat[min(len(lat) - 1, int(p * len(lat)))] * 1000 if lat else None
    sessions = {v.session for v in vs if v.session}
    vast = [x for x in seen["vast"] if x[1] in sessions]
    per_avail = {}
    for _, s, a in vast:
        per_avail[(s, a)] = per_avail.get((s, a), 0) + 1
    histogram = {}
    for t, _, _ in vast:
        second = int(t - schedule["breakWallStart"])
        histogram[second] = histogram.get(second, 0) + 1
    beacons = {k: n for k, n in seen["beacons"].items() if k.split()[0] in sessions}
    violations = [(v.n, x) for v in vs for x in v.violations]
    result = {
        "viewers": count, "sessions": len(sessions), "sessionFailures": run["sessionFailures"],
        "seconds": round(elapsed, 1), "requests": run["requests"], "requestsPerSecond": round(run["requests"] / elapsed, 1),
        "segmentMegabytes": round(run["segmentBytes"] / 1e6, 1), "segmentFailures": run["segmentFailures"],
        "playlistLatencyMs": {"p50": pct(0.5), "p99": pct(0.99), "max": pct(1.0)},
        "rfc8216Violations": len(violations), "viewersWithViolations": len({n for n, _ in violations}),
        "violationExamples": [x for _, x in violations[:10]],
        "adRequests": len(vast), "adRequestsTwiceForOneAvail": sum(1 for n in per_avail.values() if n > 1),
        "adRequestsPerSecondFromBreakStart": dict(sorted(histogram.items())),
        "adRequestPeakPerSecond": max(histogram.values()) if histogram else 0,
        "beacons": sum(beacons.values()), "beaconsFiredTwice": sum(1 for n in beacons.values() if n > 1),
        "viewersWithAdSegments": sum(1 for v in vs if v.ads > 0),
        "completesPerViewer": round(sum(1 for k in beacons if k.endswith(" complete")) / max(1, len(sessions)), 2),
        "killedAtBreakPlus": round(run["killedAt"] - schedule["breakWallStart"], 1) if run["killedAt"] else None,
        "viewersFailingAfterKill": sum(1 for v in vs if v.failed_after_kill > 0),
        "playlistFailuresAfterKill": sum(v.failed_after_kill for v in vs),
    }
    json.dump(result, open(out, "w"), indent=1)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    if sys.argv[1] == "origin":
        origin(sys.argv[2], int(sys.argv[3]))
    else:
        asyncio.run(viewers(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]))
