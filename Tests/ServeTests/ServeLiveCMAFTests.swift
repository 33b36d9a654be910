import Foundation
import Media
@testable import Serve
import Testing
import TestSupport
import Timing

/// A live session as HLS with CMAF segments (`?segments=cmaf`): the same viewer, the same
/// published items and the same rules as its MPEG-TS playlists, each segment that item's CMAF
/// tracks. Followed refresh by refresh as a player does (every playlist through the RFC 8216
/// checker and its refresh rules, by the `curl` helper), downloaded and decoded by tools that
/// are not Interlude's.
@Suite(.serialized) struct ServeLiveCMAFTests {
    typealias Live = ServeLiveSessionTests

    /// The `#EXT-X-MAP` URIs of a playlist.
    static func maps(_ text: String) -> [String] {
        text.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-MAP:URI=\"") }.map { String($0.dropFirst(16).prefix { $0 != "\"" }) }
    }

    /// The URI of the first line after the line starting with `prefix` (a variant), or of its `URI` attribute.
    static func uri(in master: String, after prefix: String) -> String? {
        let lines = master.split(separator: "\n").map(String.init)
        guard let i = lines.firstIndex(where: { $0.hasPrefix(prefix) }) else { return nil }
        if let r = lines[i].range(of: "URI=\"") { return String(lines[i][r.upperBound...].prefix { $0 != "\"" }) }
        return lines.indices.contains(i + 1) ? lines[i + 1] : nil
    }

    /// Packets of `file`'s only stream: (pts, duration) in seconds.
    static func packets(_ file: URL) async throws -> [(pts: Double, duration: Double)] {
        let out = try await runOffPool("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", file.path])
        return String(decoding: out.stdout, as: UTF8.self).split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard f.count >= 2, let p = f[0], let d = f[1] else { return nil }
            return (p, d)
        }
    }

    /// Two breaks (a DATERANGE one inside a segment, an in-band one inside another) on a
    /// 2 s-segment channel: the viewer's CMAF video and audio playlists list exactly the segments,
    /// durations, discontinuities and markers of its MPEG-TS playlist at every refresh, under one
    /// `EXT-X-MAP` that never changes; downloaded as one fMP4 per track (the map, then each
    /// segment once), `ffmpeg -xerror` decodes both clean, the pictures are the content's frames
    /// once each and in order with each break's ads frame-exact in place, their presentation
    /// times rise (one clock across every join), the sound has no gap anywhere and never a whole
    /// AAC frame of overlap (a stored segment's sound is whole AAC frames: where one ends past its
    /// last picture, the next one's sound overlaps it, as in MPEG-TS); GStreamer's playbin3 (hlsdemux2, CMAF) plays the video playlist's
    /// download through. The same segments were fetched by a second session's CMAF playlist: one
    /// remux per segment and one cut per piece for both.
    @Test func aLiveSessionInCMAFIsItsTimelineFrameExact() async throws {
        let rig = try await Live.Rig.start(breaks: Live.twoBreaks, seconds: 40)
        defer { rig.stop() }
        try await rig.warm()
        let master = try await curl(rig.url("/v1/master/ch/index.m3u8?segments=cmaf"))
        #expect(master.status == 200, "\(master.text)")
        #expect(master.text.contains("CODECS=\"avc3.") && master.text.contains("AUDIO=\"audio\"") && master.text.contains("#EXT-X-MEDIA:TYPE=AUDIO"),
                "\(master.text)")
        guard let video = Self.uri(in: master.text, after: "#EXT-X-STREAM-INF:"), let audio = Self.uri(in: master.text, after: "#EXT-X-MEDIA:TYPE=AUDIO"),
              video.hasSuffix("?segments=cmaf"), audio.hasSuffix("?segments=cmaf") else {
            Issue.record("no CMAF video and audio playlists in \(master.text)"); return
        }
        let ts = String(video.dropLast("?segments=cmaf".count))
        // a second viewer's CMAF playlist, refreshed beside: the same stored pieces and tracks
        let other = try await curl(rig.url("/v1/master/ch/index.m3u8?segments=cmaf&viewer=2")).text
        guard let otherVideo = Self.uri(in: other, after: "#EXT-X-STREAM-INF:") else { Issue.record("\(other)"); return }
        #expect(otherVideo != video)

        let folder = rig.root.appendingPathComponent("cmaf-live")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var seen: [String: [Int: Data]] = ["v": [:], "a": [:]]
        var mapsSeen: [String: Set<String>] = ["v": [], "a": []]
        for step in 0...16 {
            _ = try await curl(rig.url(otherVideo))
            let tsText = try await curl(rig.url(ts)).text
            for (kind, path) in [("v", video), ("a", audio)] {
                let text = try await curl(rig.url(path)).text
                #expect(text.contains("#EXT-X-VERSION:6"), "\(text.prefix(300))")
                mapsSeen[kind]?.formUnion(Self.maps(text))
                #expect(Self.maps(text).count == 1, "step \(step) \(kind): one map: \(Self.maps(text))")
                // the same published items as the MPEG-TS playlist: numbers, durations, tags
                let mine = Live.entries(text), theirs = Live.entries(tsText)
                func shape(_ e: [Live.Entry]) -> [String] {
                    e.map { "\($0.sequence) \($0.duration) \($0.tags.filter { !$0.hasPrefix("#EXT-X-MAP") })" }
                }
                #expect(shape(mine) == shape(theirs), "step \(step) \(kind): the CMAF playlist is not the MPEG-TS one's timeline")
                for e in mine where seen[kind]?[e.sequence] == nil {
                    #expect(e.uri.contains(kind == "v" ? ".ts.v.m4s" : ".ts.a.m4s"), "\(e.uri)")
                    let r = try await curl(rig.url(e.uri))
                    #expect(r.status == 200, "\(e.uri): \(r.status) \(r.text.prefix(200))")
                    seen[kind]?[e.sequence] = r.body
                }
            }
            rig.origin.advance()
            try await rig.channel.poll()
        }
        #expect(mapsSeen["v"]?.count == 1 && mapsSeen["a"]?.count == 1, "the map never changes: \(mapsSeen)")
        // both tracks downloaded as one fMP4 each: the map, then every segment once in order
        var files: [String: URL] = [:]
        for kind in ["v", "a"] {
            guard let map = mapsSeen[kind]?.first, let segments = seen[kind], let first = segments.keys.min(), let last = segments.keys.max() else { continue }
            #expect(segments.count == last - first + 1, "\(kind): no gap in the media sequence")
            let initialization = try await curl(rig.url(map))
            #expect(initialization.status == 200, "\(map): \(initialization.status)")
            var bytes = initialization.body
            for n in first...last { bytes.append(segments[n] ?? Data()) }
            let file = folder.appendingPathComponent("\(kind).mp4")
            try bytes.write(to: file)
            files[kind] = file
            let check = try await runOffPool("/usr/bin/ffmpeg", ["-v", "error", "-xerror", "-i", file.path, "-f", "null", "-"])
            #expect(check.status == 0, "ffmpeg -xerror \(kind): \(check.stderr)")
        }
        guard let videoFile = files["v"], let audioFile = files["a"] else { Issue.record("nothing downloaded"); return }
        // every content frame once and in order, each break's ad in place, times rising
        let shown = try await Live.shown(videoFile, contentSource: rig.origin.media.sourceID)
        guard case .content(let firstFrame)? = shown.first, case .content(let lastFrame)? = shown.last else {
            Issue.record("the viewer does not start and end on content: \(shown.prefix(3)) … \(shown.suffix(3))"); return
        }
        let b = rig.origin.breaks
        #expect(shown.contains(.ad(7, 0)) && shown.filter { if case .ad = $0 { true } else { false } }.count == 240, "both breaks' ads shown")
        Live.compare(shown, Live.expected(from: firstFrame, to: lastFrame + 1, breaks: [(b[0], [(7, 120)]), (b[1], [(7, 120)])]))
        // the sound on the same clock: no gap, never a whole AAC frame of overlap
        let sound = try await Self.packets(audioFile)
        #expect(sound.count > 500)
        for (p, q) in zip(sound, sound.dropFirst()) {
            let gap = q.pts - (p.pts + p.duration)
            #expect(gap < 2.0 / 48_000, "a gap of \(gap * 1000) ms in the sound at \(q.pts) s")
            #expect(gap > -1024.0 / 48_000, "an overlap of \(-gap * 1000) ms (a whole AAC frame) at \(q.pts) s")
        }
        // the sound covers the pictures (to within one AAC frame at each end)
        let pictures = try await Self.packets(videoFile)
        if let v0 = pictures.map(\.pts).min(), let a0 = sound.first?.pts {
            #expect(abs(v0 - a0) < 1024.0 / 48_000, "sound starts \(a0) s, pictures \(v0) s")
        }
        // one remux per segment and one cut per piece for both viewers
        #expect(rig.store.encodeCounts()["cut"] ?? 0 >= 4, "\(rig.store.encodeCounts())")
        let gst = try await offPool { try FieldCheck.check(videoFile, with: .gstreamer3) }
        #expect(gst.clean, "\(gst.report)")
    }

    /// The routes, on a two-rung channel: a POSTed live session's master with `?segments=cmaf`
    /// (a variant per rung, each playlist's map and segments fetched), its audio playlist, an
    /// unknown rung (404); its answer names its MPD too, a dynamic one.
    @Test func aPostedLiveSessionHasCMAFPlaylistsAndAnMPD() async throws {
        let rig = try await Live.Rig.start(breaks: [], seconds: 20, sizes: [PixelSize(width: 320, height: 180), PixelSize(width: 160, height: 90)])
        defer { rig.stop() }
        try await rig.warm()
        let created = try await curl(rig.url("/v1/session/ch"), method: "POST", body: "{}")
        guard let manifest = created.json?["manifestUrl"] as? String else { Issue.record("\(created.text)"); return }
        let master = try await curl(rig.url(manifest + "?segments=cmaf"))
        #expect(master.status == 200 && master.text.contains(".m3u8?segments=cmaf"), "\(master.text)")
        let variants = master.text.split(separator: "\n").filter { $0.hasPrefix("/v1/sessions/") }.map(String.init)
        #expect(variants.count == 2 && master.text.contains("RESOLUTION=160x90"), "\(master.text)")
        for v in variants {
            let text = try await curl(rig.url(v)).text
            for uri in Self.maps(text) + Live.entries(text).map(\.uri) {
                let r = try await curl(rig.url(uri))
                #expect(r.status == 200 && r.body.count > 100, "\(uri): \(r.status)")
            }
        }
        let id = manifest.split(separator: "/")[2]
        let audio = try await curl(rig.url("/v1/sessions/\(id)/audio.m3u8?segments=cmaf"))
        #expect(audio.status == 200 && audio.text.contains(".ts.a.m4s") && audio.text.contains("init.ts.a.mp4"), "\(audio.text)")
        #expect(try await curl(rig.url("/v1/sessions/\(id)/nope.m3u8?segments=cmaf")).status == 404)
        let mpd = try #require(created.json?["dashManifestUrl"] as? String)
        let dash = try await curl(rig.url(mpd))
        #expect(dash.status == 200 && dash.text.contains("type=\"dynamic\""), "\(dash.text.prefix(300))")
    }
}

extension ServeLivePlayTests {
    /// The live session as HLS with CMAF segments in the players that take it, each on a session
    /// of its own for `seconds` (30 in `make test`, `LIVE_PLAY_SECONDS` in `make live-check`),
    /// all at once, through breaks of every signalling form: Chromium's native HLS (currentTime
    /// advancing, no media error or warning), mpv with its log read, GStreamer's playbin3
    /// (hlsdemux2), `ffmpeg -xerror`. Not VLC 3.0: after each `EXT-X-DISCONTINUITY` of an fMP4
    /// playlist its adaptive module starts a new MP4 demuxer without the initialization segment
    /// (docs/SERVE.md), as it does on a VOD session's CMAF playlists; nor legacy `playbin`
    /// (hlsdemux), which has no CMAF support.
    @Test func theFieldsPlayersPlayALiveCMAFSession() async throws {
        let seconds = Self.seconds
        let rig = try await Self.liveRig(seconds: seconds + 20)
        defer { rig.stop() }
        let url = rig.url("/v1/master/ch/index.m3u8?segments=cmaf")
        try await Self.play([.chromium, .mpv, .gstreamer3, .ffmpeg].map { ($0, url) }, seconds: seconds)
        let metrics = try await curl(rig.url("/metrics")).text
        #expect(metrics.contains("interlude_live_avails_total"), "the players met breaks: \(metrics)")
    }
}
