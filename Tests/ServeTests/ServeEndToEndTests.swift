import Foundation
import Interlude
@testable import Serve
import TestSupport
import Testing
import Timing

/// The service over the real store, over real HTTP on 127.0.0.1: a VMAP mid-roll at 1.55 s (not a
/// keyframe: they are every second) in a 4 s content. What a viewer downloads decodes with each
/// content frame once, in order, the cut at the first frame at or after the cue; sessions with
/// different ads share content segment URLs and bytes; a third session with the first one's ad
/// costs no encode; ffmpeg -xerror and GStreamer's playbin play the master playlist to the end;
/// server-side beacons reach the ad server once each as the segments are fetched.
@Suite(.serialized) struct ServeEndToEndTests {
    final class World: @unchecked Sendable {
        // @unchecked Sendable: immutable after init.
        let root = StoreFixture.folder("e2e")
        let ads: HTTPTestServer
        let store: MediaStore
        let running: RunningService

        init(clock: SegmentClock = .stream) throws {
            ads = try HTTPTestServer()
            ads.route("/adA.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: try ServeStoreAdTests.adClip())))
            let adB = try TestMedia.clip(sourceID: 8, width: 240, height: 180, fps: 30, seconds: 2, gop: 30)
            ads.route("/adB.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: adB)))
            for v in ["A", "B"] {
                ads.route("/vmap-\(v)", body: vmap(midroll: "00:00:01.550", vast(id: "ad\(v)", media: ads.url("/ad\(v).mp4"), tracker: ads.url("/t\(v)"), seconds: 2)))
            }
            ads.route("/vmap-P", body: vmap(midroll: "start", vast(id: "adP", media: ads.url("/adA.mp4"), tracker: ads.url("/tP"), seconds: 2)))
            // a 25 fps ad: in the 30 fps rungs it must show 30 frames a second
            let adC = try TestMedia.clip(sourceID: 9, width: 240, height: 180, fps: 25, seconds: 2, gop: 25)
            ads.route("/adC.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: adC)))
            ads.route("/vmap-C", body: vmap(midroll: "00:00:01.550", vast(id: "adC", media: ads.url("/adC.mp4"), tracker: ads.url("/tC"), seconds: 2)))
            store = try StoreFixture.store(root)
            let template = ads.url("/vmap-[player_params.v]")
            running = try RunningService(media: store, adsTemplate: template) { c in
                c.contents = [ContentSource(name: "c", source: "clip")]
                c.clock = clock
            }
        }
        deinit { ads.stop(); try? FileManager.default.removeItem(at: root) }

        /// A new session with ad `v`; its id.
        func session(_ v: String, reporting: String = "server") async throws -> String {
            let r = try await curl(running.url("/v1/session/c"), method: "POST", body: #"{"adsParams": {"v": "\#(v)"}, "reportingMode": "\#(reporting)"}"#)
            let manifest = try #require(r.json?["manifestUrl"] as? String)
            return String(manifest.dropFirst("/v1/sessions/".count).prefix { $0 != "/" })
        }

        /// A session with ad `v` in it and its media playlist: sessions are made until one has it
        /// (up to 60 s). The first ones leave the ad out while it is transcoded, as MediaTailor's
        /// VOD sessions do; their playlists never change.
        func readySession(_ v: String, reporting: String = "server") async throws -> (String, String) {
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                let id = try await session(v, reporting: reporting)
                let text = try await curl(running.url("/v1/sessions/\(id)/180p.m3u8")).text
                if text.contains("/v1/segments/ads/") && !text.contains("/slate/") { return (id, text) }
                try await Task.sleep(nanoseconds: 200_000_000)
            }
            throw StoreFixtureError.unknown("the ad never became ready")
        }

        /// The session's media playlist in `rendition`.
        func playlist(_ id: String, _ rendition: String = "180p") async throws -> String {
            try await curl(running.url("/v1/sessions/\(id)/\(rendition).m3u8")).text
        }
    }

    /// A pre-roll puts an ad before the origin's first segment: on the stream clock that segment
    /// goes out marked as a new stream, and ffmpeg -xerror plays on.
    @Test func aPrerollSessionPlaysInFFmpegXerror() async throws {
        let w = try World()
        let (s, p) = try await w.readySession("P")
        let uris = Self.segmentURLs(p)
        #expect(uris.first?.contains("/v1/segments/ads/") == true)
        let firstContent = try #require(uris.first { $0.contains("/content/") })
        #expect(firstContent.contains("d=1"))
        _ = try await w.playlist(s, "90p")
        let ff = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-xerror", "-i", w.running.url("/v1/sessions/\(s)/master.m3u8"), "-f", "null", "-"])
        #expect(ff.status == 0, "\(ff.stderr)")
        let marked = try await curl(w.running.url(firstContent))
        let plain = try await curl(w.running.url(String(firstContent.split(separator: "?")[0])))
        #expect(marked.body.count == plain.body.count + 2 * 188, "one marker packet per stream (video, audio)")
    }

    static func segmentURLs(_ playlist: String) -> [String] { playlist.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") } }
    static func contentURLs(_ playlist: String) -> [String] { segmentURLs(playlist).filter { !$0.contains("s=") && !$0.contains("/slate/") } }

    @Test func aSessionIsFrameExactSharedAndPlaysInStrictClients() async throws {
        let w = try World()
        let (s1, p1) = try await w.readySession("A")
        #expect(p1.contains("#EXT-X-CUE-OUT:DURATION=2.000"))
        #expect(p1.components(separatedBy: "#EXT-X-DISCONTINUITY\n").count - 1 == 2)

        // Frame-exact: the top variant downloaded by ffmpeg, decoded.
        let out = w.root.appendingPathComponent("s1.ts")
        let dl = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-i", w.running.url("/v1/sessions/\(s1)/180p.m3u8"), "-c", "copy", "-y", out.path])
        #expect(dl.status == 0, "\(dl.stderr)")
        let ids = try await offPool { try MediaVerifier.videoFrames(out, reader: IdentityReader(output: PixelSize(width: 320, height: 180), sources: [PixelSize(width: 240, height: 180)])).map(\.identity) }
        let content = ids.compactMap { $0 }.filter { $0.sourceID == 3 }.map(\.frameIndex)
        #expect(content == Array(0..<StoreFixture.frames), "content frames once and in order")
        let cutAt = try #require(ids.firstIndex { $0 == FrameIdentity(sourceID: 3, frameIndex: 47) })
        #expect(ids[cutAt - 1]?.sourceID != 3, "an ad frame right before the first frame >= 1.55 s (frame 47)")
        #expect(ids.firstIndex { $0 == FrameIdentity(sourceID: 3, frameIndex: 46) }! < cutAt - 50, "2 s of ad between frames 46 and 47")

        // Sharing: a session with another ad (as long) has the same content URLs and bytes.
        let (s2, p2) = try await w.readySession("B")
        #expect(Self.contentURLs(p1) == Self.contentURLs(p2))
        #expect(!Self.contentURLs(p1).isEmpty)
        for u in Self.contentURLs(p1) {
            let a = try await curl(w.running.url(u)), b = try await curl(w.running.url(u))
            #expect(a.status == 200 && a.body == b.body && a.body.count > 1000)
        }
        #expect(Self.segmentURLs(p1).filter { $0.contains("s=") } != Self.segmentURLs(p2).filter { $0.contains("s=") })

        // A third session with the first one's ad: no encode at all (the first built both rungs).
        _ = try await w.playlist(s1, "90p")
        let before = w.store.encodeCounts()
        let s3 = try await w.session("A")
        #expect(try await w.playlist(s3).contains("/v1/segments/ads/"))
        _ = try await w.playlist(s3, "90p")
        for u in Self.segmentURLs(try await w.playlist(s3)) { _ = try await curl(w.running.url(u)) }
        #expect(w.store.encodeCounts() == before)
        let metrics = try await curl(w.running.url("/metrics")).text
        #expect(metrics.contains("interlude_serve_encodes_total{kind=\"ad\"} \(before["ad"] ?? -1)"))

        // Strict clients play the master playlist to the end.
        let ff = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-xerror", "-i", w.running.url("/v1/sessions/\(s2)/master.m3u8"), "-f", "null", "-"])
        #expect(ff.status == 0, "\(ff.stderr)")
        let gst = try await runOffPool("/usr/bin/gst-launch-1.0", ["-q", "playbin", "uri=" + w.running.url("/v1/sessions/\(s2)/master.m3u8"),
                                                                   "video-sink=fakesink", "audio-sink=fakesink"])
        #expect(gst.status == 0, "\(gst.stderr)")

        // Server-side beacons: once each, whatever was fetched how often.
        let tracker = w.ads.requests.filter { $0.path.hasPrefix("/tA/") }.map(\.path)
        let once = ["/tA/imp", "/tA/start", "/tA/q1", "/tA/mid", "/tA/q3", "/tA/complete"]
        #expect(await eventually(30) { Set(w.ads.requests.filter { $0.path.hasPrefix("/tA/") }.map(\.path)) == Set(once) })
        _ = tracker
        // s1 and s3 each fired their own set: two of each for ad A, none twice per session.
        #expect(await eventually(30) { once.allSatisfy { p in w.ads.requests.filter { $0.path == p }.count == 2 } })
        let b = w.ads.requests.filter { $0.path.hasPrefix("/tB/") }.map(\.path)
        #expect(Set(b) == Set(once.map { $0.replacingOccurrences(of: "/tA/", with: "/tB/") }) && b.count == 6)
    }

    /// What the playlists say is what the wire carries, on either clock: the SCTE-35 splice
    /// times are the PTS of the segments sent there (the break's first frame and the first frame
    /// after it on the stream clock; the content's own clock at the cut on the shared one);
    /// each variant's BANDWIDTH is at least the peak segment bit rate of what it lists as sent
    /// (RFC 8216 §4.3.4.2, measured here independently) and AVERAGE-BANDWIDTH the average; a
    /// 25 fps ad shows 30 frames a second for its 2 s; sound and pictures stay within 5 ms.
    @Test(arguments: [SegmentClock.stream, .shared]) func markersBandwidthAndJoinsAreWhatTheWireCarries(_ clock: SegmentClock) async throws {
        let w = try World(clock: clock)
        let (s, p) = try await w.readySession("C")
        let lines = p.split(separator: "\n").map(String.init)
        // the splice points, decoded by threefive
        let outLine = try #require(lines.first { $0.hasPrefix("#EXT-X-DATERANGE:") && $0.contains("SCTE35-OUT=") })
        let inLine = try #require(lines.first { $0.hasPrefix("#EXT-X-DATERANGE:") && $0.contains("SCTE35-IN=") })
        func pts(_ line: String, _ name: String) throws -> Int64 {
            let hex = try #require(line.split(separator: ",").first { $0.hasPrefix(name + "=") }).dropFirst(name.count + 1)
            return try SCTE35Reading.decode(String(hex)).splicePTS
        }
        let outPTS = try pts(outLine, "SCTE35-OUT"), inPTS = try pts(inLine, "SCTE35-IN")
        let uris = Self.segmentURLs(p)
        func firstPTS(_ uri: String) async throws -> Int64 {
            let file = w.root.appendingPathComponent("probe-\(UUID().uuidString).ts")
            try await curl(w.running.url(uri)).body.write(to: file)
            return try await offPool { try HLSPackageCheck.firstVideoFramePTS(file) }
        }
        let firstAd = try #require(uris.first { $0.contains("/ads/") }), lastAd = try #require(uris.last { $0.contains("/ads/") })
        let resume = uris[uris.firstIndex(of: lastAd)! + 1]
        let resumePTS = try await firstPTS(resume)
        #expect(inPTS == resumePTS % (1 << 33), "SCTE35-IN \(inPTS) where content resumes on the wire: \(resumePTS)")
        switch clock {
        case .stream: #expect(outPTS == (try await firstPTS(firstAd)) % (1 << 33), "SCTE35-OUT at the ad's first frame as sent")
        case .shared: #expect(outPTS == inPTS, "on the shared clock both are the content's clock at the cut")
        }
        // BANDWIDTH and AVERAGE-BANDWIDTH against the segments as sent
        let master = try await curl(w.running.url("/v1/sessions/\(s)/master.m3u8")).text
        let inf = try #require(master.split(separator: "\n").first { $0.hasPrefix("#EXT-X-STREAM-INF:") && $0.contains("320x180") })
        func attribute(_ name: String) -> Int? { inf.dropFirst(18).split(separator: ",").first { $0.hasPrefix(name + "=") }.flatMap { Int($0.dropFirst(name.count + 1)) } }
        let bandwidth = try #require(attribute("BANDWIDTH")), average = try #require(attribute("AVERAGE-BANDWIDTH"))
        let durations = lines.filter { $0.hasPrefix("#EXTINF:") }.compactMap { Double($0.dropFirst(8).dropLast()) }
        var sizes: [Int] = []
        for u in uris { sizes.append(try await curl(w.running.url(u)).body.count) }
        #expect(sizes.count == durations.count)
        let target = Double(lines.first { $0.hasPrefix("#EXT-X-TARGETDURATION:") }.flatMap { Int($0.dropFirst(22)) } ?? 0)
        var peak = 0.0
        for i in sizes.indices {
            var d = 0.0, b = 0
            for j in i..<sizes.count {
                d += durations[j]; b += sizes[j]
                if d > 1.5 * target + 0.001 { break }
                if d >= 0.5 * target - 0.001 { peak = max(peak, Double(b) * 8 / d) }
            }
        }
        let mean = Double(sizes.reduce(0, +)) * 8 / durations.reduce(0, +)
        #expect(Double(bandwidth) >= peak * 0.995, "BANDWIDTH \(bandwidth) under the measured peak \(Int(peak))")
        #expect(abs(Double(average) - mean) <= mean * 0.01, "AVERAGE-BANDWIDTH \(average) against \(Int(mean))")
        // strict clients play it to the end on either clock (the shared clock's runs each start
        // a new MPEG-TS stream: ffmpeg -xerror read them as corrupt before they were marked)
        let ff = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-xerror", "-i", w.running.url("/v1/sessions/\(s)/master.m3u8"), "-f", "null", "-"])
        // Allowed on the shared clock only: FFmpeg's HLS reader ignores EXT-X-DISCONTINUITY and
        // hands its muxer each run's own timestamps, which restart at a join (the stream clock
        // exists for FFmpeg; players that reset at a discontinuity play the shared clock).
        let allowed = clock == .shared ? "non monotonically increasing dts to muxer" : "\u{0}"
        let complaints = ff.stderr.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.contains(allowed) }
        #expect(ff.status == 0 && complaints.isEmpty, "ffmpeg -xerror on the \(clock) clock: \(complaints.prefix(5))")
        guard clock == .stream else { return }
        // the 25 fps ad at 30 frames a second, and A/V at every join, read from the segments as
        // sent (a local copy of the playlist: FFmpeg's HLS reader, timestamps as they are; a
        // remux with -c copy would retime overlapping audio)
        let local = w.root.appendingPathComponent("session")
        try FileManager.default.createDirectory(at: local, withIntermediateDirectories: true)
        var copy: [String] = []
        var k = 0
        for line in lines {
            if line.hasPrefix("#") { if !line.hasPrefix("#EXT-X-DATERANGE") { copy.append(line) }; continue }
            try await curl(w.running.url(line)).body.write(to: local.appendingPathComponent("s\(k).ts"))
            copy.append("s\(k).ts"); k += 1
        }
        let out = local.appendingPathComponent("index.m3u8")
        try (copy.joined(separator: "\n") + "\n").write(to: out, atomically: true, encoding: .utf8)
        // no gap in the sound at any segment boundary, the joins included (sound from each
        // piece's first picture), and never a whole AAC frame of overlap
        let joins = try await offPool { try HLSPackageCheck.audioJoinProblems(out) }
        #expect(joins.checked == k - 1 && joins.problems.isEmpty, "\(joins.problems)")
        let frames = try await offPool { try MediaVerifier.videoFrames(out, reader: IdentityReader(output: PixelSize(width: 320, height: 180), sources: [PixelSize(width: 240, height: 180)])) }
        let adFrames = frames.compactMap(\.identity).filter { $0.sourceID == 9 }
        #expect(abs(adFrames.count - 60) <= 1, "2 s of a 25 fps ad in a 30 fps rung: \(adFrames.count) frames")
        let content = frames.compactMap(\.identity).filter { $0.sourceID == 3 }.map(\.frameIndex)
        #expect(content == Array(0..<StoreFixture.frames), "content frames once and in order")
        let (adStart, worst, others) = try await Self.syncFromTheBreak(frames, sound: out, ad: 9)
        print(String(format: "serve vod hls-ts: content %d frames once in order; 25 fps ad as %d frames in the 30 fps rung; BANDWIDTH %d >= measured peak %d, AVERAGE-BANDWIDTH %d vs %d; %d segment boundaries without a gap; A/V worst %.3f ms over %d flashes after the ad's first (its first %.3f ms)",
                     content.count, adFrames.count, bandwidth, Int(peak), average, Int(mean), joins.checked, worst * 1000, others, adStart * 1000))
    }

    /// A/V at each flash of a VOD session's top rendition from its ad on (the ad's first frame,
    /// each second after, content after the join): `frames` its pictures decoded with their
    /// times as sent, `sound` a file whose sound is on the same clock, `ad` the ad's source id.
    /// The content's own first flash (67 ms into the stream) is not a join, and its beep starts
    /// inside the AAC priming frame an MPEG-TS segment keeps (MP4 trims it with an edit list),
    /// whose pre-echo reads 8 ms early whoever packages it. Every flash's beep within 5 ms, but
    /// the one on the ad's very first picture: the ad's first AAC frame decodes without the
    /// priming frame before it (MPEG-TS cannot trim it, and keeping it would reach back over the
    /// content: timestamps running back), so a sound starting on its first sample fades in over
    /// about 10 ms — under one AAC frame there. Returns that first offset, the worst of the
    /// others and how many others there are.
    static func syncFromTheBreak(_ frames: [VerifiedFrame], sound: URL, ad: Int) async throws -> (first: Double, worst: Double, others: Int) {
        let breakStart = try #require(frames.first { $0.identity?.sourceID == ad }?.seconds)
        let flashes = MediaVerifier.flashTimes(frames).filter { $0 >= breakStart - 0.001 }
        let offsets = MediaVerifier.syncOffsets(flashTimes: flashes, beepOnsets: try await MediaVerifier.beepOnsets(sound))
        #expect(flashes.count >= 4, "the ad's two seconds and the content after it: \(flashes)")
        let first = try #require(offsets.first ?? nil, "no beep at the ad's first flash")
        #expect(abs(first) < 1024.0 / 48_000, "the ad's first beep: \(first * 1000) ms")
        let worst = try #require(MediaVerifier.maxAbsoluteOffset(Array(offsets.dropFirst())), "a flash without its beep: \(offsets)")
        #expect(worst <= 0.005, "A/V at the joins: worst \(worst * 1000) ms over \(offsets.count - 1) flashes after the ad's first")
        return (first, worst, offsets.count - 1)
    }

    /// The players viewers use play a session to its end, on either clock: Chromium's native HLS
    /// (`ended` reached, `currentTime` only forward, no media error or warning), VLC and mpv with
    /// their logs read, GStreamer's playbin and playbin3 (no warning outside the field check's
    /// allow-lists, `scripts/field-check.sh`). Three at a time, on the master playlist of a
    /// session whose mid-roll plays (a 25 fps ad in the 30 fps rungs).
    @Test(arguments: [SegmentClock.stream, .shared]) func theFieldsPlayersPlayASession(_ clock: SegmentClock) async throws {
        let w = try World(clock: clock)
        let (s, _) = try await w.readySession("C")
        let master = w.running.url("/v1/sessions/\(s)/master.m3u8")
        for group in [[FieldCheck.Client.chromium, .vlc, .gstreamer], [.mpv, .gstreamer3]] {
            let verdicts = try await withThrowingTaskGroup(of: (FieldCheck.Client, FieldCheck.Verdict).self) { g in
                for c in group { g.addTask { (c, try await offPool { try FieldCheck.check(URL(string: master)!, with: c, timeout: 120) }) } }
                var out: [(FieldCheck.Client, FieldCheck.Verdict)] = []
                for try await v in g { out.append(v) }
                return out
            }
            for (c, v) in verdicts {
                if clock == .shared && c == .mpv {
                    // mpv reads HLS with FFmpeg's demuxer, which does not honour
                    // EXT-X-DISCONTINUITY: on the shared clock the ad's own timestamps and the
                    // content's after it each read as a jump back, once per stream at each of
                    // the two joins; mpv resyncs and plays on. Nothing else may show.
                    let complaints = v.report.split(separator: "\n").dropFirst()
                    let resets = complaints.filter { $0.contains("Invalid audio PTS") || $0.contains("Invalid video timestamp") }
                    let finished = v.clean || v.report.split(separator: "\n").first?.hasSuffix("(exit 0)") == true
                    #expect(finished, "mpv did not play to the end: \(v.report)")
                    #expect(resets.count == complaints.count && resets.count <= 4, "mpv on the shared clock: \(v.report)")
                } else {
                    #expect(v.clean, "\(c) on the \(clock) clock: \(v.report)")
                }
            }
        }
    }
    /// Decode times keep one pace in every variant (stream clock): the content's 180p rung is its
    /// source's packets (x264 B-frames: each frame decodes two frames before it shows), its 90p
    /// rung is encoded without B-frames, the ad is made without them; every segment of both
    /// variants starts with the same PTS − DTS and decode times rise through the whole session,
    /// joins included, so a player switching variants or crossing a join never sees them go back.
    @Test func decodeTimesRiseInEveryVariantAtOnePace() async throws {
        let w = try World()
        let (s, _) = try await w.readySession("C")
        var leads: Set<Int64> = []
        for rendition in ["180p", "90p"] {
            let p = try await w.playlist(s, rendition)
            var last: Int64?
            for u in Self.segmentURLs(p) {
                let file = w.root.appendingPathComponent("dts-\(UUID().uuidString).ts")
                try await curl(w.running.url(u)).body.write(to: file)
                let out = try await offPool { try Tools.ffprobe(["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,dts", "-of", "csv=p=0", file.path]) }
                let packets = String(decoding: out.stdout, as: UTF8.self).split(separator: "\n").map { $0.split(separator: ",").compactMap { Int64($0) } }.filter { $0.count == 2 }
                let first = try #require(packets.first, "\(u) has no video")
                leads.insert(first[0] - first[1])
                for pkt in packets {
                    if let last { #expect(pkt[1] > last, "\(rendition) \(u): DTS \(pkt[1]) after \(last)") }
                    last = pkt[1]
                }
            }
        }
        #expect(leads == [6_000], "PTS − DTS of the segments' first frames: \(leads) (90 kHz)")
    }
}
