import Foundation
import Manifest
@testable import Serve
import TestSupport
import Testing
import Threads
import Timing

/// Issue 34 item 5, live: a live HLS origin's WebVTT subtitle rendition carried through a
/// viewer's session. The channel follows the rendition (`LiveSubtitles`: each new WebVTT segment's
/// cues placed on the channel's clock by its `X-TIMESTAMP-MAP`); the viewer's master names it in
/// group `subs`, its subtitle playlist lists a segment beside each segment of the top rung's
/// playlist (the same media sequence numbers, durations and discontinuities at every refresh,
/// RFC 8216's refresh rules checked on both), a content segment's WebVTT the cues of its channel
/// time at the PTS its first frame carries on the wire, an ad's or slate's none.
@Suite(.serialized) struct ServeLiveSubtitlesTests {
    typealias Rig = ServeLiveSessionTests.Rig

    /// `(sequence, duration, discontinuity, uri)` of each segment of a media playlist.
    static func entries(_ text: String) -> [(sequence: Int, duration: String, discontinuity: Bool, uri: String)] {
        var out: [(Int, String, Bool, String)] = []
        var sequence = 0, duration = "", discontinuity = false
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") { sequence = Int(line.dropFirst(22)) ?? 0 }
            else if line.hasPrefix("#EXTINF:") { duration = String(line.dropFirst(8).prefix { $0 != "," }) }
            else if line == "#EXT-X-DISCONTINUITY" { discontinuity = true }
            else if !line.hasPrefix("#") && !line.isEmpty { out.append((sequence, duration, discontinuity, line)); sequence += 1; discontinuity = false }
        }
        return out
    }

    @Test func aLiveOriginsSubtitlesFollowTheViewersSegmentsWithNoCueDuringAnAd() async throws {
        let rig = try await Rig.start(breaks: [
            LiveOriginBreak(start: .frame(377), duration: MediaTime(seconds: 6), signal: .dateRange(.spliceInsert)),
        ], seconds: 40, sourcePath: "/master.m3u8", subtitles: true)
        defer { rig.stop() }
        _ = try await rig.warm()
        #expect(await rig.channel.subtitleRenditions().map(\.language) == ["en"])
        let created = try await curl(rig.url("/v1/session/ch"), method: "POST", body: "{}")
        let manifest = try #require(created.json?["manifestUrl"] as? String, "\(created.text)")
        let master = try await curl(rig.url(manifest)).text
        #expect(master.contains(#"#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=YES"#) && master.contains(#"SUBTITLES="subs""#),
                "\(master)")
        let subsURI = try #require(master.split(separator: "\n").first { $0.contains("TYPE=SUBTITLES") }?
            .components(separatedBy: "URI=\"").last?.split(separator: "\"").first.map(String.init))
        let variant = try #require(master.split(separator: "\n").first { $0.hasPrefix("/v1/sessions/") }.map(String.init))
        // the CMAF master names the same subtitle playlists (one clock for both)
        let cmaf = try await curl(rig.url(manifest + "?segments=cmaf")).text
        #expect(cmaf.contains("URI=\"\(subsURI)\"") && cmaf.contains(#"SUBTITLES="subs""#), "\(cmaf)")

        var video: [Int: (duration: String, discontinuity: Bool, uri: String)] = [:]
        var subs: [Int: (duration: String, discontinuity: Bool, uri: String)] = [:]
        for _ in 0..<16 {
            // the subtitle playlist right after the video one: the same segments at every refresh
            let v = Self.entries(try await curl(rig.url(variant)).text)
            let s = Self.entries(try await curl(rig.url(subsURI)).text)
            #expect(v.map(\.sequence) == s.map(\.sequence) && v.map(\.duration) == s.map(\.duration)
                    && v.map(\.discontinuity) == s.map(\.discontinuity), "video \(v.map(\.sequence)) vs subtitles \(s.map(\.sequence))")
            for e in v { video[e.sequence] = video[e.sequence] ?? (e.duration, e.discontinuity, e.uri) }
            for e in s {
                if let old = subs[e.sequence] { #expect(old.uri == e.uri, "subtitle segment \(e.sequence) changed its URI") }
                subs[e.sequence] = subs[e.sequence] ?? (e.duration, e.discontinuity, e.uri)
            }
            rig.origin.advance()
            try await rig.channel.poll()
        }
        // each segment: content has the cue of the origin segment it shows, at its wire PTS; ads and slate none
        var contentCues = 0, adSegments = 0
        // where each segment is on the viewer's clock (its first frame at 0): its cue times count from there
        var clock: [Int: Double] = [:], at = 0.0
        for (n, v) in video.sorted(by: { $0.key < $1.key }) { clock[n] = at; at += Double(v.duration) ?? 0 }
        #expect(video.keys.min() == 0, "followed from the viewer's first segment")
        for (n, v) in video.sorted(by: { $0.key < $1.key }) {
            let s = try #require(subs[n])
            let body = try await curl(rig.url(s.uri)).text
            let vtt = try WebVTT.parse(body, maxCues: 100)
            if v.uri.contains("/ads/") || v.uri.contains("/slate/") {
                adSegments += 1
                #expect(vtt.cues.isEmpty && s.uri.contains("/empty.vtt?at="), "segment \(n) (ad or slate): \(body)")
                continue
            }
            // the segment's first frame's PTS on the wire: what its file starts at (ffprobe)
            let file = rig.root.appendingPathComponent("subs-\(n).ts")
            try await curl(rig.url(v.uri)).body.write(to: file)
            let wire = try HLSPackageCheck.firstVideoFramePTS(file)
            #expect(vtt.timestampMap?.mpegts == wire, "segment \(n): the map at the wire PTS of its first frame (\(wire)): \(body)")
            // (EXTINF to the millisecond: the clock summed from them within a millisecond a segment)
            let local = Double(vtt.timestampMap?.local ?? -1) / 90_000
            #expect(abs(local - (clock[n] ?? -1)) <= 0.001 * Double(n + 1), "segment \(n): LOCAL \(local) s, its place on the viewer's clock \(clock[n] ?? -1) s")
            for cue in vtt.cuesOnMPEGTSClock {
                // a cue is the origin's segment k's, shown where that segment's frames are: 0.2 s after its first frame
                guard let k = Int(cue.text.dropFirst(8)), cue.text.hasPrefix("segment ") else { Issue.record("segment \(n): \(cue.text)"); continue }
                // (a TS origin without faults: the channel's clock is the files', and content goes out on it)
                let originStart = rig.origin.media.segments[k].firstPTS
                // (EXTINF is written to the millisecond: the segment's end known within 1 ms)
                let length = Int64(((Double(v.duration) ?? 0) * 90_000).rounded())
                #expect(cue.start == max(originStart + 18_000, wire) && abs(cue.end - min(originStart + 162_000, wire + length)) <= 90,
                        "segment \(n): cue '\(cue.text)' at \(cue.start)-\(cue.end), the segment \(wire)+\(length)")
                contentCues += 1
            }
        }
        #expect(contentCues >= 8 && adSegments >= 2, "\(contentCues) cues, \(adSegments) ad segments")
        #expect(rig.loggedFaults.isEmpty, "\(rig.loggedFaults)")
    }
}

/// A live origin's subtitle rendition that misbehaves: its playlist gone, a segment that is not
/// WebVTT, one over 1 MiB. Each is logged once and costs the video nothing: the channel keeps
/// taking its segments, and the cues of the segments that can be read are kept.
@Suite(.serialized) struct ServeLiveSubtitleFaultsTests {
    /// For each `(mode, kind)`: the origin's subtitles misbehave as `mode` says for two new
    /// segments, the channel still takes video, and one `live_origin_fault` of `kind` is logged
    /// for the subtitles; then they are whole again for two more (the caller checks the cues).
    static func expectEachFaultLoggedOnce(_ cases: [(mode: String, kind: String)], mode: Locked<String>, origin: LiveOrigin,
                                          channel: LiveChannel, log: LineBox) async throws {
        func taken() async -> Int { await channel.window(rendition: "v0")?.segments.count ?? 0 }
        func faults(_ kind: String) -> [String] {
            log.all.filter { $0.contains("\"live_origin_fault\"") && $0.contains("\"kind\":\"\(kind)\"") && $0.contains("\"rendition\":\"subtitles\"") }
        }
        var before = await taken()
        for (m, kind) in cases {
            mode.withLock { $0 = m }
            for _ in 0..<2 {
                origin.advance()
                try await channel.poll()
            }
            let now = await taken()
            #expect(now > before, "\(m): the video goes on (\(before) → \(now) segments)")
            before = now
            #expect(faults(kind).count == 1, "\(m): \(log.all.filter { $0.contains("subtitles") })")
        }
        // readable again
        mode.withLock { $0 = "whole" }
        for _ in 0..<2 {
            origin.advance()
            try await channel.poll()
        }
    }

    @Test func aBrokenSubtitleRenditionIsLoggedAndNeverCostsTheVideo() async throws {
        let media = try await offPool { try LiveOriginMedia.make(seconds: 30) }
        let origin = try LiveOrigin(media: media, windowSize: 6, initialSegments: 4, subtitles: true)
        defer { origin.stop() }
        let server = try HTTPTestServer()
        defer { server.stop() }
        let mode = Locked("gone")
        server.setHandler { request in
            let m = mode.withLock { $0 }
            switch request.path {
            case "/master.m3u8":
                let master = origin.masterPlaylist().replacingOccurrences(of: "URI=\"subs/live.m3u8\"", with: "URI=\"\(server.url("/subs.m3u8"))\"")
                    .replacingOccurrences(of: "\nr0/live.m3u8", with: "\n" + origin.url("/r0/live.m3u8"))
                return HTTPTestServer.Response(body: master, contentType: "application/vnd.apple.mpegurl")
            case "/subs.m3u8" where m != "gone":
                // the origin's subtitle playlist, its segments here
                return HTTPTestServer.Response(body: origin.subtitlePlaylist(), contentType: "application/vnd.apple.mpegurl")
            case let p where p.hasSuffix(".vtt"):
                let n = Int(p.dropFirst().dropLast(4)) ?? 0
                switch m {
                case "garbage": return HTTPTestServer.Response(body: "not a subtitle file", contentType: "text/vtt")
                case "huge": return HTTPTestServer.Response(headers: ["Content-Type": "text/vtt"], body: Data(repeating: 0x41, count: 2 << 20))
                default: return HTTPTestServer.Response(body: LiveOrigin.subtitleSegment(n, firstPTS: media.segments[n].firstPTS), contentType: "text/vtt")
                }
            default:
                return HTTPTestServer.Response(status: 404, body: "gone", contentType: "text/plain")
            }
        }
        let folder = StoreFixture.folder("live-subtitle-faults")
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = LineBox()
        let channel = try LiveChannel(name: "s", source: server.url("/master.m3u8"), folder: folder, log: ServeLog { log.append($0) })
        try await Self.expectEachFaultLoggedOnce([("gone", "playlist_unavailable"), ("garbage", "segment_unreadable"), ("huge", "segment_unavailable")],
                                                 mode: mode, origin: origin, channel: channel, log: log)
        let w = try #require(await channel.window(rendition: "v0"))
        let last = try #require(w.segments.last)
        let text = await channel.subtitleSegment(track: 0, from: last.firstPTS, to: last.firstPTS + last.duration.mpegTicks, wirePTS: last.firstPTS)
        #expect(text?.contains("segment ") == true, "\(text ?? "nil")")
    }
}

/// Issue 34 item 5, live DASH: a live HLS origin's WebVTT subtitles in a viewer's dynamic MPD.
/// Every Period of every update (multi-period and `?periods=single`), valid against the DASH
/// schema, has a text AdaptationSet per subtitle track (`lang`, `Role` subtitle) of WebVTT in
/// MP4 (`wvtt`, ISO/IEC 14496-30: FFmpeg 5.1 muxes neither it nor fragmented TTML) whose segments
/// are the video's, number for number and tick for tick. The text track, downloaded as listed and
/// read by GStreamer's `qtdemux` (a reader we did not write), shows each origin segment's cue on
/// the wire clock where the HLS subtitle segment shows it, and no cue during the ad or slate.
@Suite(.serialized) struct ServeLiveDASHSubtitlesTests {
    typealias Rig = ServeLiveSessionTests.Rig

    /// The origin: HLS with a WebVTT rendition or an IMSC one (TTML in fMP4 behind an
    /// `EXT-X-MAP`), or DASH with WebVTT or TTML in MP4 (issue 34 items 4 and 5: MP4 text read
    /// by `MP4TextCues`).
    enum Origin: String, CaseIterable, CustomTestStringConvertible {
        case hls, hlsIMSC, dashWebVTT, dashTTML
        var testDescription: String { rawValue }
    }

    @Test(arguments: Origin.allCases) func aLiveOriginsSubtitlesAreWVTTTextInEveryPeriodWithNoCueDuringAnAd(origin: Origin) async throws {
        let breaks = [LiveOriginBreak(start: .frame(377), duration: MediaTime(seconds: 6), signal: .dateRange(.spliceInsert))]
        let rig = switch origin {
        case .hls: try await Rig.start(breaks: breaks, seconds: 40, sourcePath: "/master.m3u8", subtitles: true)
        case .hlsIMSC: try await Rig.start(breaks: breaks, seconds: 40, sourcePath: "/master.m3u8", subtitles: true, textInMP4: .ttml)
        case .dashWebVTT: try await Rig.start(breaks: breaks, seconds: 40, dash: true, textInMP4: .webVTT)
        case .dashTTML: try await Rig.start(breaks: breaks, seconds: 40, dash: true, textInMP4: .ttml)
        }
        defer { rig.stop() }
        _ = try await rig.warm()
        #expect(await rig.channel.subtitleRenditions().map(\.language) == ["en"])
        // where origin segment k's first picture is on the channel's (and the wire's) clock
        let starts = rig.origin.dashVideoStarts ?? rig.origin.media.segments.map(\.firstPTS)
        let created = try await curl(rig.url("/v1/session/ch"), method: "POST", body: "{}")
        let path = try #require(created.json?["dashManifestUrl"] as? String, "\(created.text)")
        // the HLS master names the track too (any origin's subtitles go to every dialect)
        let master = try await curl(rig.url(try #require(created.json?["manifestUrl"] as? String))).text
        #expect(master.contains(#"TYPE=SUBTITLES,GROUP-ID="subs""#) && master.contains(#"LANGUAGE="en""#), "\(master)")
        let folder = rig.root.appendingPathComponent("dash-subs")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // every text segment listed, by its time: (duration, URL, whether its Period is an ad's or slate's)
        var text: [Int64: (duration: Int64, media: String, ad: Bool)] = [:]
        var initialization: Set<String> = []
        var fetched: [String: Data] = [:]
        for step in 0..<16 {
            var byStart: [[Int64: String]] = []
            for (form, query) in [("multi", ""), ("single", "?periods=single")] {
                let r = try await curl(rig.url(path + query))
                #expect(r.status == 200, "step \(step) \(form): \(r.status)")
                let file = folder.appendingPathComponent("\(form)-\(step).mpd")
                try r.body.write(to: file)
                #expect(try await offPool { try DASHSchema.problems(file) } == [], "step \(step) \(form)")
                #expect(r.text.contains(#"contentType="text" mimeType="application/mp4" lang="en""#)
                        && r.text.contains(#"<Role schemeIdUri="urn:mpeg:dash:role:2011" value="subtitle"/>"#), "step \(step) \(form): \(r.text)")
                var starts: [Int64: String] = [:]
                for p in try DASHPeriods.read(file).periods {
                    let video = try #require(p.representations.first { $0.contentType == "video" })
                    let subs = p.representations.filter { $0.contentType == "text" }
                    #expect(subs.map(\.id) == ["text-0"] && subs.allSatisfy { $0.codecs == "wvtt" }, "step \(step) \(form) \(p.id)")
                    guard let t = subs.first else { continue }
                    // the video's segments, number for number and tick for tick
                    #expect(t.segments.map(\.start) == video.segments.map(\.start) && t.segments.map(\.duration) == video.segments.map(\.duration)
                            && t.presentationTimeOffset == video.presentationTimeOffset, "step \(step) \(form) \(p.id)")
                    #expect(zip(t.media, video.media).allSatisfy { $0.components(separatedBy: "/").last == $1.components(separatedBy: "/").last },
                            "step \(step) \(form) \(p.id): \(t.media) vs \(video.media)")
                    initialization.insert(t.initialization)
                    let ad = p.id.contains("-ad-") || p.id.contains("-slate")
                    for (s, m) in zip(t.segments, t.media) {
                        starts[s.start] = m
                        if form == "multi", text[s.start] == nil {
                            text[s.start] = (s.duration, m, ad)
                            // fetched while the window lists it
                            let r = try await curl(rig.url(m))
                            #expect(r.status == 200 && r.body.count > 8 && String(decoding: r.body[4..<8], as: UTF8.self) == "styp", "\(m): \(r.status)")
                            fetched[m] = r.body
                        }
                    }
                }
                byStart.append(starts)
            }
            // both forms name the same segment at the same time
            #expect(byStart[1].allSatisfy { byStart[0][$0.key] == nil || byStart[0][$0.key] == $0.value }, "step \(step): the forms agree")
            rig.origin.advance()
            try await rig.channel.poll()
        }
        #expect(initialization.count == 1 && initialization.first?.hasSuffix("/v1/subtitles/wvtt-init.mp4") == true, "\(initialization)")
        // the track: its initialization, then every segment in time order (they meet), read by qtdemux
        let all = text.sorted { $0.key < $1.key }
        for (x, y) in zip(all, all.dropFirst()) { #expect(x.key + x.value.duration == y.key, "text segments meet at \(x.key)") }
        var track = try await curl(rig.url(try #require(initialization.first))).body
        for (_, s) in all { track += fetched[s.media] ?? Data() }
        let mp4 = folder.appendingPathComponent("text.mp4"), vtt = folder.appendingPathComponent("text.vtt")
        try track.write(to: mp4)
        let gst = try await runOffPool("/usr/bin/gst-launch-1.0", ["-q", "filesrc", "location=\(mp4.path)", "!", "qtdemux", "name=d",
                                                                   "d.subtitle_0", "!", "filesink", "location=\(vtt.path)"])
        #expect(gst.status == 0, "\(gst.stderr)")
        let cues = try WebVTT.parse(String(decoding: try Data(contentsOf: vtt), as: UTF8.self)).cues
        var contentCues = 0
        for cue in cues {
            // qtdemux writes each sample's cues with the sample's times (ms): a cue is the origin
            // segment k's, shown 0.2–1.8 s after that segment's first frame, cut to the segment it is in
            guard cue.text.hasPrefix("segment "), let k = Int(cue.text.dropFirst(8)), starts.indices.contains(k) else {
                Issue.record("cue '\(cue.text)'"); continue
            }
            // (a DASH origin's text track counts milliseconds: within one of the picture's time)
            let from = starts[k] + 18_000, to = starts[k] + 162_000
            #expect(cue.start >= from - 90 && cue.end <= to + 90, "cue '\(cue.text)' at \(cue.start)-\(cue.end), the origin's \(from)-\(to)")
            // never in an ad's or slate's time
            for (start, s) in all where s.ad {
                #expect(cue.end <= start + 90 || cue.start >= start + s.duration - 90, "cue '\(cue.text)' at \(cue.start)-\(cue.end) in the ad at \(start)")
            }
            contentCues += 1
        }
        // each origin cue whose time the session shows as content is there whole: its pieces (qtdemux
        // writes a cue once per sample) meet and run from its start to its end, within a millisecond
        func content(_ t: Int64) -> Bool { all.contains { t >= $0.key && t < $0.key + $0.value.duration && !$0.value.ad } }
        for (k, first) in starts.enumerated() where content(first + 18_000) && content(first + 162_000 - 1) {
            let pieces = cues.filter { $0.text == "segment \(k)" }.sorted { $0.start < $1.start }
            let meet = zip(pieces, pieces.dropFirst()).allSatisfy { abs($0.end - $1.start) <= 90 }
            #expect(meet && abs((pieces.first?.start ?? -1) - (first + 18_000)) <= 90 && abs((pieces.last?.end ?? -1) - (first + 162_000)) <= 90,
                    "origin segment \(k)'s cue at \(first + 18_000)-\(first + 162_000): \(pieces.map { "\($0.start)-\($0.end)" })")
        }
        #expect(contentCues >= 8 && all.contains { $0.value.ad }, "\(contentCues) cues, \(all.count) segments")
        // no such track, a number out of the window, a malformed name: 404
        let id = path.components(separatedBy: "/")[3]
        for bad in ["text-1/\(all.count).m4s", "text-0/999999.m4s", "text-00x/1.m4s", "text-/1.m4s", "text-0/1.mp4"] {
            #expect(try await curl(rig.url("/v1/sessions/\(id)/dash/\(bad)")).status == 404, "\(bad)")
        }
        #expect(rig.loggedFaults.isEmpty, "\(rig.loggedFaults)")
    }
}

/// A live DASH origin's text segments that misbehave: gone (404), not MP4 boxes, over 1 MiB.
/// Each is logged once and costs the video nothing: the channel keeps taking its segments, and
/// the cues of the segments that can be read come back.
@Suite(.serialized) struct ServeLiveDASHSubtitleFaultsTests {
    @Test func aBrokenTextAdaptationSetIsLoggedAndNeverCostsTheVideo() async throws {
        let media = try await offPool { try LiveOriginMedia.make(seconds: 30) }
        let origin = try LiveOrigin(media: media, windowSize: 6, initialSegments: 4, dash: true, textInMP4: .webVTT)
        defer { origin.stop() }
        let server = try HTTPTestServer()
        defer { server.stop() }
        let mode = Locked("gone")
        // the origin's MPD and segments through here, its text segments as `mode` says
        server.setHandler { request in
            let m = mode.withLock { $0 }
            if request.path.hasPrefix("/dash/t/"), request.path.hasSuffix(".m4s") {
                switch m {
                case "gone": return HTTPTestServer.Response(status: 404, body: "gone", contentType: "text/plain")
                case "garbage": return HTTPTestServer.Response(headers: ["Content-Type": "application/mp4"], body: Data(repeating: 0x41, count: 4_000))
                case "huge": return HTTPTestServer.Response(headers: ["Content-Type": "application/mp4"], body: Data(repeating: 0, count: 2 << 20))
                default: break
                }
            }
            guard let r = try? run("/usr/bin/curl", ["-sf", origin.url(request.path)]), r.status == 0 else {
                return HTTPTestServer.Response(status: 404, body: "no", contentType: "text/plain")
            }
            return HTTPTestServer.Response(headers: ["Content-Type": request.path.hasSuffix(".mpd") ? "application/dash+xml" : "video/mp4"], body: r.stdout)
        }
        let folder = StoreFixture.folder("live-dash-subtitle-faults")
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = LineBox()
        let channel = try LiveChannel(name: "s", source: server.url("/live.mpd"), folder: folder, log: ServeLog { log.append($0) })
        try await channel.poll()
        #expect(await channel.subtitleRenditions().map(\.language) == ["en"])
        try await ServeLiveSubtitleFaultsTests.expectEachFaultLoggedOnce(
            [("gone", "segment_unavailable"), ("garbage", "segment_unreadable"), ("huge", "segment_unavailable")],
            mode: mode, origin: origin, channel: channel, log: log)
        let w = try #require(await channel.window(rendition: "v0"))
        let last = try #require(w.segments.last)
        let cues = await channel.subtitleCues(track: 0, from: last.firstPTS, to: last.firstPTS + last.duration.mpegTicks) ?? []
        #expect(cues.contains { $0.text.hasPrefix("segment ") }, "\(cues)")
    }
}
