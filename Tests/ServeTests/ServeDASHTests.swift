import Foundation
import Interlude
@testable import Serve
import TestSupport
import Testing
import Timing

/// Issue 34, item 3: a VOD session as DASH, over real HTTP on 127.0.0.1 with the real store (the
/// world of `ServeEndToEndTests`: a 4 s 30 fps content, a mid-roll at 1.55 s). The MPD is valid
/// against the DASH schema, its Periods follow one another to the tick, each Period's segments
/// downloaded and decoded are what the HLS playlists of the session show: each content frame
/// once and in order, the cut at the first frame at or after the cue, the ad at the rung's frame
/// rate for its 2 s; content segments are the same URLs and bytes for two sessions; an ad's
/// video segments fire its beacons once.
@Suite(.serialized) struct ServeDASHTests {
    /// Where the packets of the first stream `stream` of `file` start and end (ffprobe), in seconds.
    static func span(_ file: URL, stream: String) throws -> (start: Double, end: Double)? {
        let out = try Tools.ffprobe(["-v", "error", "-select_streams", stream, "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", file.path])
        let packets = String(decoding: out.stdout, as: UTF8.self).split(separator: "\n").compactMap { line -> (Double, Double)? in
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            guard let pts = f.first.flatMap({ Double($0) }) else { return nil }
            return (pts, f.count > 1 ? Double(f[1]) ?? 0 : 0)   // a duration ffprobe cannot say (N/A) counts 0
        }
        guard let start = packets.map(\.0).min(), let end = packets.map({ $0.0 + $0.1 }).max() else { return nil }
        return (start, end)
    }

    @Test func aSessionsMPDIsValidExactAndFrameExact() async throws {
        let w = try ServeEndToEndTests.World()
        let (s1, _) = try await w.readySession("A")
        let answer = try await curl(w.running.url("/v1/sessions/\(s1)/index.mpd"))
        #expect(answer.status == 200)
        let mpd = w.root.appendingPathComponent("s1.mpd")
        try answer.body.write(to: mpd)
        #expect(try await offPool { try DASHSchema.problems(mpd) } == [])
        #expect(try await curl(w.running.url("/v1/sessions/\(s1)/index.mpd")).body == answer.body, "a VOD MPD never changes")
        let (periods, total) = try DASHPeriods.read(mpd)
        #expect(periods.map(\.id) == ["content-0", "break-0-ad-0", "content-1"])
        for (a, b) in zip(periods, periods.dropFirst()) { #expect(a.start + (a.duration ?? -1) == b.start, "\(a.id) ends where \(b.id) starts") }
        #expect(periods.last.map { $0.start + ($0.duration ?? 0) } == total)
        #expect(periods[1].asset == "adA" && periods[1].eventSchemes.contains("urn:scte:scte35:2014:xml+bin"))
        #expect(periods[2].eventSchemes == ["urn:scte:scte35:2014:xml+bin"], "the splice back in")

        var ids: [FrameIdentity?] = []
        var pictures: [[VerifiedFrame]] = [], sounds: [URL] = []   // per Period: 180p's frames, the sound's file
        for (n, p) in periods.enumerated() {
            for rep in p.representations {
                #expect(rep.segments.reduce(0) { $0 + $1.duration } == p.duration, "\(p.id) \(rep.id): the timeline fills the Period")
                #expect(rep.segments.first?.start == rep.presentationTimeOffset)
                var bytes = try await curl(w.running.url(rep.initialization)).body
                for m in rep.media {
                    let r = try await curl(w.running.url(m))
                    #expect(r.status == 200, "\(m)")
                    bytes += r.body
                }
                let file = w.root.appendingPathComponent("p\(n)-\(rep.id).mp4")
                try bytes.write(to: file)
                let ff = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-xerror", "-i", file.path, "-f", "null", "-"])
                #expect(ff.status == 0, "\(p.id) \(rep.id): \(ff.stderr)")
                let span = try #require(try Self.span(file, stream: rep.contentType == "video" ? "v:0" : "a:0"))
                let start = Double(rep.presentationTimeOffset) / 90_000, end = start + Double(p.duration ?? 0) / 90_000
                if rep.contentType == "video" {
                    #expect(abs(span.start - start) < 0.0001 && abs(span.end - end) < 0.0001, "\(p.id) \(rep.id): pictures fill the Period")
                } else {
                    // sound starts with the pictures at each join (the content's own first AAC
                    // frame, its encoder's priming, a frame before them) and ends less than an AAC
                    // frame after the Period (whole frames; a player's append window trims it)
                    let aac = 1024.0 / 48_000
                    #expect(abs(span.start - start) <= (n == 0 ? aac + 0.0001 : 0.0001), "\(p.id): sound starts \(span.start - start) s off")
                    #expect(n == periods.count - 1 || (span.end >= end - 0.0001 && span.end < end + aac), "\(p.id): sound ends \(span.end - end) s off")

                }
                if rep.id == "180p" {
                    let frames = try await offPool {
                        try MediaVerifier.videoFrames(file, reader: IdentityReader(output: PixelSize(width: 320, height: 180), sources: [PixelSize(width: 240, height: 180)]))
                    }
                    ids += frames.map(\.identity)
                    pictures.append(frames)
                }
                if rep.contentType == "audio" && sounds.count == n { sounds.append(file) }
            }
        }
        let content = ids.compactMap { $0 }.filter { $0.sourceID == 3 }.map(\.frameIndex)
        #expect(content == Array(0..<StoreFixture.frames), "content frames once and in order")
        let cutAt = try #require(ids.firstIndex { $0 == FrameIdentity(sourceID: 3, frameIndex: 47) })
        #expect(ids[cutAt - 1]?.sourceID != 3, "an ad frame right before the first frame >= 1.55 s (frame 47)")
        #expect(cutAt - 47 == 60, "2 s of ad at 30 fps between frames 46 and 47")
        // A/V in each Period, its sound against its pictures on the Period's media timeline (a
        // player presents each Period's tracks from its start, trimming what runs past its end):
        // the ad's first beep within an AAC frame (no priming frame before it), every other after
        // the content's first ≤ 5 ms
        #expect(pictures.count == periods.count && sounds.count == periods.count)
        var offsets: [Double?] = []
        var adStart: Double?
        for (frames, sound) in zip(pictures, sounds) {
            let o = MediaVerifier.syncOffsets(flashTimes: MediaVerifier.flashTimes(frames), beepOnsets: try await MediaVerifier.beepOnsets(sound))
            switch frames.first?.identity {
            case FrameIdentity(sourceID: 7, frameIndex: 0)?: adStart = o.first ?? nil; offsets += o.dropFirst()
            // the content's own first flash is not a join: its beep starts inside the AAC
            // priming frame, whose pre-echo reads 8 ms early whoever packages it
            case FrameIdentity(sourceID: 3, frameIndex: 0)?: offsets += o.dropFirst()
            default: offsets += o
            }
        }
        let first = try #require(adStart ?? nil, "no beep at the ad's first flash")
        #expect(abs(first) < 1024.0 / 48_000, "the ad's first beep: \(first * 1000) ms")
        let worst = try #require(MediaVerifier.maxAbsoluteOffset(offsets), "a flash without its beep: \(offsets)")
        #expect(worst <= 0.005, "A/V in the Periods: worst \(worst * 1000) ms")
        print(String(format: "serve vod dash: %d Periods meeting to the tick, schema-valid; content %d frames once in order, the ad's 60 frames at the cut; A/V worst %.3f ms over %d flashes (the ad's first %.3f ms)",
                     periods.count, content.count, worst * 1000, offsets.count, first * 1000))
    }

    /// The implicit route makes a session and answers its MPD; content segments are the same URLs
    /// and bytes for two sessions; an ad's video segments fire its server-side beacons once each;
    /// the field's clients play the MPD to the end.
    @Test func dashSessionsShareContentFireBeaconsAndPlay() async throws {
        let w = try ServeEndToEndTests.World()
        _ = try await w.readySession("A")   // the ad ready in every rung
        _ = try await w.readySession("B")
        let before = w.ads.requests.filter { $0.path.hasPrefix("/tA/") }.count
        let a = try await curl(w.running.url("/v1/dash/c/index.mpd?v=A"))
        let b = try await curl(w.running.url("/v1/dash/c/index.mpd?v=B"))
        #expect(a.status == 200 && b.status == 200)
        let fa = w.root.appendingPathComponent("a.mpd"), fb = w.root.appendingPathComponent("b.mpd")
        try a.body.write(to: fa)
        try b.body.write(to: fb)
        let pa = try DASHPeriods.read(fa).periods, pb = try DASHPeriods.read(fb).periods
        #expect(pa.map(\.asset) == [nil, "adA", nil] && pb.map(\.asset) == [nil, "adB", nil])
        for n in [0, 2] {
            let urls = pa[n].representations.flatMap { [$0.initialization] + $0.media }
            #expect(urls == pb[n].representations.flatMap { [$0.initialization] + $0.media }, "content Periods are the same URLs")
            for u in urls.prefix(3) {
                let x = try await curl(w.running.url(u)), y = try await curl(w.running.url(u))
                #expect(x.status == 200 && x.body == y.body && x.body.count > 100)
            }
        }
        // the ad's video segments: their fetch fires the ad's beacons, once each whatever the refetches
        for _ in 0..<2 {
            for rep in pa[1].representations where rep.contentType == "video" { for m in rep.media { _ = try await curl(w.running.url(m)) } }
        }
        let once = ["/tA/imp", "/tA/start", "/tA/q1", "/tA/mid", "/tA/q3", "/tA/complete"]
        #expect(await eventually(30) { w.ads.requests.filter { $0.path.hasPrefix("/tA/") }.count == before + once.count })
        // a POSTed session names its MPD
        let posted = try await curl(w.running.url("/v1/session/c"), method: "POST", body: #"{"adsParams": {"v": "A"}}"#)
        let dash = try #require(posted.json?["dashManifestUrl"] as? String)
        let posteds = try await curl(w.running.url(dash))
        #expect(dash.hasSuffix("/index.mpd") && posteds.status == 200)
        // CMAF parts of something that is not a stored segment, or with a new-stream mark: refused
        let missing = try await curl(w.running.url("/v1/segments/content/x/180p/seg00000.ts.v.m4s"))
        #expect(missing.status == 404)
        let content = try #require(pa[0].representations.first?.media.first)
        let marked = try await curl(w.running.url(content + "?d=1"))
        #expect(marked.status == 400, "no MPEG-TS mark on a CMAF segment")

        // GStreamer's dashdemux2 (playbin3) plays the Periods one after the other: its pictures, written out,
        // are the content's frames once and in order with the ad's 60 between frames 46 and 47
        // (raw pictures: y4menc would write a header again at each Period's new pads)
        let raw = w.root.appendingPathComponent("gst.yuv"), y4m = w.root.appendingPathComponent("gst.y4m")
        let gst = try await runOffPool("/usr/bin/timeout", ["-s", "KILL", "120", "/usr/bin/gst-launch-1.0", "-q", "playbin3", "uri=" + w.running.url("/v1/dash/c/index.mpd?v=A"),
                                                            "video-sink=videoconvert ! video/x-raw,format=I420,width=320,height=180 ! filesink location=\(raw.path)",
                                                            "audio-sink=fakesink sync=false"])
        #expect(gst.status == 0, "\(gst.stderr)")
        try await Tools.ffmpeg(["-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "320x180", "-r", "30", "-i", raw.path, y4m.path])
        let ids = try await offPool {
            try MediaVerifier.videoFrames(y4m, reader: IdentityReader(output: PixelSize(width: 320, height: 180), sources: [PixelSize(width: 240, height: 180)])).map(\.identity)
        }
        #expect(ids.compactMap { $0 }.filter { $0.sourceID == 3 }.map(\.frameIndex) == Array(0..<StoreFixture.frames))
        #expect((ids.firstIndex { $0 == FrameIdentity(sourceID: 3, frameIndex: 47) } ?? 0) - (ids.firstIndex { $0 == FrameIdentity(sourceID: 3, frameIndex: 46) } ?? 0) == 61)

        // a page on another origin may create a session (its preflight answered) and read what it
        // is given (Chromium's page below is served from another port: Video.js's requests need CORS)
        let preflight = try await curl(w.running.url("/v1/session/c"), method: "OPTIONS")
        #expect(preflight.status == 204)

        // the field's clients; Chromium through Video.js (VHS over MSE: Chromium has no native DASH)
        for client in [FieldCheck.Client.ffmpeg, .gstreamer3, .vlc, .mpv, .chromium] {
            let v = try await offPool { try FieldCheck.check(URL(string: w.running.url("/v1/dash/c/index.mpd?v=B"))!, with: client, timeout: 120) }
            #expect(v.clean, "\(client): \(v.report)")
        }
    }

    /// A pre-roll: the ad is the first Period, the content whole after it; the MPD and the CMAF
    /// playlists of a session cost no encode (the CMAF tracks are remuxed from the stored
    /// segments), in any dialect.
    @Test func aPrerollSessionAndNoEncodeForAnyDialect() async throws {
        let w = try ServeEndToEndTests.World()
        let (s, _) = try await w.readySession("P")
        _ = try await w.playlist(s, "90p")
        let before = w.store.encodeCounts()
        let answer = try await curl(w.running.url("/v1/sessions/\(s)/index.mpd"))
        let mpd = w.root.appendingPathComponent("pre.mpd")
        try answer.body.write(to: mpd)
        #expect(try await offPool { try DASHSchema.problems(mpd) } == [])
        let (periods, total) = try DASHPeriods.read(mpd)
        #expect(periods.map(\.id) == ["break-0-ad-0", "content-0"] && periods.first?.start == 0)
        #expect(periods[0].start + (periods[0].duration ?? 0) == periods[1].start && periods[1].start + (periods[1].duration ?? 0) == total)
        for p in periods {
            for rep in p.representations {
                for u in [rep.initialization] + rep.media { #expect(try await curl(w.running.url(u)).status == 200) }
            }
        }
        let master = try await curl(w.running.url("/v1/sessions/\(s)/master.m3u8?segments=cmaf"))
        for line in master.text.split(separator: "\n") where line.hasPrefix("/v1/") {
            for u in ServeEndToEndTests.segmentURLs(try await curl(w.running.url(String(line))).text) { _ = try await curl(w.running.url(u)) }
        }
        #expect(w.store.encodeCounts() == before, "DASH and HLS/CMAF answers encode nothing")
    }
}
