import Foundation
import Serve
import TestSupport
import Testing
import Timing

/// An HLS origin as the source: read over HTTP under the hardening rules, its segments served byte
/// for byte, its CUE-OUT markers as origin cues, cuts made on its own clock.
@Suite(.serialized) struct ServeStoreHLSSourceTests {
    /// A two-variant HLS origin of the store's clip (made by the ffmpeg CLI, 2 s segments, keyframes
    /// every second in both), with a CUE-OUT before each variant's second segment, in `folder`.
    /// `hls` adds options of the ffmpeg CLI's HLS muxer (`-hls_key_info_file` …).
    static func origin(in folder: URL, hls: [String] = []) throws -> [String: (Data, String)] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let clip = try StoreFixture.clip().path
        let common = ["-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod"] + hls
        _ = try Tools.ffmpeg(["-v", "error", "-y", "-i", clip, "-c", "copy"] + common
                             + ["-hls_segment_filename", folder.appendingPathComponent("a%d.ts").path, folder.appendingPathComponent("a.m3u8").path])
        _ = try Tools.ffmpeg(["-v", "error", "-y", "-i", clip, "-c:a", "copy", "-c:v", "libx264", "-s", "160x90", "-g", "30",
                              "-keyint_min", "30", "-sc_threshold", "0", "-b:v", "150k"] + common
                             + ["-hls_segment_filename", folder.appendingPathComponent("b%d.ts").path, folder.appendingPathComponent("b.m3u8").path])
        var files: [String: (Data, String)] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            var data = try Data(contentsOf: folder.appendingPathComponent(name))
            if name.hasSuffix(".m3u8") {
                // the origin's ad marker before the second segment
                var lines = String(decoding: data, as: UTF8.self).components(separatedBy: "\n")
                if let i = lines.indices.filter({ lines[$0].hasPrefix("#EXTINF") }).dropFirst().first { lines.insert("#EXT-X-CUE-OUT:DURATION=5", at: i) }
                data = Data(lines.joined(separator: "\n").utf8)
            }
            files["/" + name] = (data, name.hasSuffix(".ts") ? "video/mp2t" : "application/vnd.apple.mpegurl")
        }
        files["/master.m3u8"] = (Data("""
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=160x90,CODECS="avc1.64000b,mp4a.40.2"
            b.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=320x180,CODECS="avc1.64000d,mp4a.40.2"
            a.m3u8

            """.utf8), "application/vnd.apple.mpegurl")
        return files
    }

    @Test func anHLSOriginIsServedByteForByteAndCutOnItsClock() async throws {
        let root = StoreFixture.folder("hls")
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try HTTPTestServer()
        let files = try Self.origin(in: root.appendingPathComponent("origin"))
        server.serve(files)
        let store = try MediaStore(options: StoreOptions(root: root.appendingPathComponent("store"), contents: ["h": server.url("/master.m3u8")]))
        let content = try await store.content("h")
        #expect(content.renditions.map(\.rendition.name) == ["180p", "90p"], "top first")
        #expect(content.renditions.map(\.rendition.width) == [320, 160])
        #expect(content.duration == MediaTime(seconds: 4))
        #expect(content.originCues == [MediaTime(seconds: 2)])
        let whole = try await store.cut("h", rendition: "180p", at: [])
        #expect(whole.runs[0].count == 2)
        for (i, s) in whole.runs[0].enumerated() {
            #expect(try Data(contentsOf: store.file(forSegment: s.path)!) == files["/a\(i).ts"]!.0, "the origin's segment, byte for byte")
        }
        // at the origin's own cue (a segment boundary) nothing is cut
        let atMarker = try await store.cut("h", rendition: "180p", at: content.originCues)
        #expect(atMarker.runs == [[whole.runs[0][0]], [whole.runs[0][1]]])
        #expect(store.encodeCounts()["cut"] == nil)
        // between keyframes: head and tail on the origin's clock
        let cut = try await store.cut("h", rendition: "180p", at: [ServeStoreCutTests.cue])
        let joined = try StoreFixture.concatenate([cut.runs[0][0], cut.runs[1][0]], store: store, into: root, name: "split.ts")
        #expect(try StoreFixture.identities(joined, size: PixelSize(width: 320, height: 180)).map { $0?.frameIndex } == (0..<60).map { Optional($0) })
        let originPTS = try HLSPackageCheck.firstVideoFramePTS(root.appendingPathComponent("origin/a0.ts"))
        let tail = try StoreFixture.concatenate([cut.runs[1][0]], store: store, into: root, name: "tail.ts")
        #expect(try HLSPackageCheck.firstVideoFramePTS(tail) == originPTS + 47 * 3000)
        // strict clients across the discontinuity
        let playlist = try StoreFixture.playlist(cut.runs, store: store, root: root, name: "play")
        #expect(try HLSPackageCheck.continuityProblems(playlist) == [])
        let problems = try await HLSPackageCheck.clientProblems(playlist)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        // the lower variant cuts too
        let low = try await store.cut("h", rendition: "90p", at: [ServeStoreCutTests.cue])
        let lowJoined = try StoreFixture.concatenate([low.runs[0][0], low.runs[1][0]], store: store, into: root, name: "low.ts")
        #expect(try StoreFixture.identities(lowJoined, size: PixelSize(width: 160, height: 90)).map { $0?.frameIndex } == (0..<60).map { Optional($0) })
    }

    /// What every origin the store remuxes must hold up to, as content `name` in `store`: each
    /// rung (name, picture size) two MPEG-TS segments holding the clip's 120 frames once each in
    /// order, its sound with no gap at the segment boundary; the top rung cut between keyframes
    /// (frames 0..<60 across the cut, continuity counters that follow, clean in ffmpeg `-xerror`
    /// and GStreamer).
    static func expectTakenInAsAnOrigin(_ store: MediaStore, _ name: String, rungs: [(String, PixelSize)], root: URL) async throws {
        for (rung, size) in rungs {
            let whole = try await store.cut(name, rendition: rung, at: [])
            #expect(whole.runs[0].count == 2)
            for s in whole.runs[0] { #expect(try Data(contentsOf: store.file(forSegment: s.path)!).first == 0x47, "\(s.path) is MPEG-TS") }
            let joined = try StoreFixture.concatenate(whole.runs[0], store: store, into: root, name: "whole-\(rung).ts")
            #expect(try StoreFixture.identities(joined, size: size).map { $0?.frameIndex } == (0..<120).map { Optional($0) }, "\(rung): every frame once, in order")
            let joins = try HLSPackageCheck.audioJoinProblems(try StoreFixture.playlist(whole.runs, store: store, root: root, name: "whole-\(rung)"))
            #expect(joins.checked >= 1 && joins.problems.isEmpty, "\(rung): \(joins.checked) boundaries: \(joins.problems)")
        }
        let (top, size) = rungs[0]
        let cut = try await store.cut(name, rendition: top, at: [ServeStoreCutTests.cue])
        let split = try StoreFixture.concatenate([cut.runs[0][0], cut.runs[1][0]], store: store, into: root, name: "split.ts")
        let splitFrames = try StoreFixture.identities(split, size: size).map { $0?.frameIndex }
        #expect(splitFrames == (0..<60).map { Optional($0) }, "\(splitFrames.map { $0.map(String.init) ?? "-" }.joined(separator: ","))")
        let playlist = try StoreFixture.playlist(cut.runs, store: store, root: root, name: "play")
        #expect(try HLSPackageCheck.continuityProblems(playlist) == [])
        let problems = try await HLSPackageCheck.clientProblems(playlist)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// An origin with alternate audio renditions (CMAF, made by the ffmpeg CLI: the video alone
    /// in the variant, an English and a French rendition in its AUDIO group, English the
    /// default): taken in with the default's audio muxed into every segment, from each segment's
    /// first picture to the next one's (every frame once, no gap in the sound at a boundary, a cut
    /// played clean); the French one in a language rung of its own (`ServeAlternateAudioTests`
    /// serves both).
    @Test func anOriginWithAlternateAudioIsTakenInWithItsDefault() async throws {
        let root = StoreFixture.folder("alt-audio")
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try HTTPTestServer()
        defer { server.stop() }
        let files = try await ServeAlternateAudioTests.origin(in: root.appendingPathComponent("origin"))
        server.serve(files)
        let master = String(decoding: files["/master.m3u8"]?.0 ?? Data(), as: UTF8.self)
        #expect(master.contains("TYPE=AUDIO") && master.contains("LANGUAGE=\"fr\""), "ffmpeg made another master: \(master)")
        let store = try MediaStore(options: StoreOptions(root: root.appendingPathComponent("store"), contents: ["a": server.url("/master.m3u8")]))
        let content = try await store.content("a")
        #expect(content.renditions.map(\.rendition.name) == ["180p"] && content.renditions[0].codecs.hasSuffix(",mp4a.40.2"))
        #expect(content.notes.isEmpty && content.audioTracks.map(\.language) == ["en", "fr"], "\(content.notes)")
        try await Self.expectTakenInAsAnOrigin(store, "a", rungs: [("180p", PixelSize(width: 320, height: 180))], root: root)
        // the English sound, not the French silence
        let whole = try await store.cut("a", rendition: "180p", at: [])
        let segment = try #require(store.file(forSegment: whole.runs[0][0].path))
        let volume = try await Tools.ffmpeg(["-v", "info", "-i", segment.path, "-af", "volumedetect", "-f", "null", "-"]).stderr
        let mean = try #require(volume.split(separator: "\n").first { $0.contains("mean_volume:") }?.split(separator: " ").dropLast().last.flatMap { Double($0) })
        #expect(mean > -60, "the default (English) rendition's sound: \(mean) dB")
    }

    /// The same two-variant origin with CMAF segments (fMP4, `EXT-X-MAP`, made by the ffmpeg CLI;
    /// the top variant's packets copied from the clip, B-frames and their negative decode times
    /// included): taken into the store as MPEG-TS (packets copied, timestamps 10 s later), every
    /// frame once and in order in each variant, the origin's cue kept, cut between keyframes as an
    /// MPEG-TS origin is, played clean by the strict clients.
    @Test func aCMAFOriginIsTakenInAsMPEGTS() async throws {
        let root = StoreFixture.folder("cmaf")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("origin")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let clip = try StoreFixture.clip().path
        for (name, codec) in [("a", ["-c", "copy"]), ("b", ["-c:a", "copy", "-c:v", "libx264", "-s", "160x90", "-g", "30", "-keyint_min", "30",
                                                         "-sc_threshold", "0", "-b:v", "150k"])] {
            _ = try await Tools.ffmpeg(["-v", "error", "-y", "-i", clip] + codec + ["-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod",
                                 "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "\(name)_init.mp4",
                                 "-hls_segment_filename", folder.appendingPathComponent("\(name)%d.m4s").path,
                                 folder.appendingPathComponent("\(name).m3u8").path])
        }
        let server = try HTTPTestServer()
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            var data = try Data(contentsOf: folder.appendingPathComponent(name))
            if name.hasSuffix(".m3u8") {
                #expect(String(decoding: data, as: UTF8.self).contains("#EXT-X-MAP:URI="), "ffmpeg made no CMAF playlist")
                var lines = String(decoding: data, as: UTF8.self).components(separatedBy: "\n")
                if let i = lines.indices.filter({ lines[$0].hasPrefix("#EXTINF") }).dropFirst().first { lines.insert("#EXT-X-CUE-OUT:DURATION=5", at: i) }
                data = Data(lines.joined(separator: "\n").utf8)
            }
            server.route("/" + name, HTTPTestServer.Response(headers: ["Content-Type": name.hasSuffix(".m3u8") ? "application/vnd.apple.mpegurl" : "video/mp4"], body: data))
        }
        server.route("/master.m3u8", body: """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=160x90,CODECS="avc1.64000b,mp4a.40.2"
            b.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=320x180,CODECS="avc1.64000d,mp4a.40.2"
            a.m3u8

            """)
        let store = try MediaStore(options: StoreOptions(root: root.appendingPathComponent("store"), contents: ["h": server.url("/master.m3u8")]))
        let content = try await store.content("h")
        #expect(content.renditions.map(\.rendition.name) == ["180p", "90p"])
        #expect(content.duration == MediaTime(seconds: 4))
        #expect(content.originCues == [MediaTime(seconds: 2)])
        try await Self.expectTakenInAsAnOrigin(store, "h", rungs: [("180p", PixelSize(width: 320, height: 180)), ("90p", PixelSize(width: 160, height: 90))],
                                               root: root)
        // the top variant's first frame: the origin's time (copied packets), 10 s later
        let whole = try await store.cut("h", rendition: "180p", at: [])
        let first = try HLSPackageCheck.firstVideoFramePTS(store.file(forSegment: whole.runs[0][0].path)!)
        let joinedOrigin = root.appendingPathComponent("a-first.mp4")
        try (try Data(contentsOf: folder.appendingPathComponent("a_init.mp4")) + (try Data(contentsOf: folder.appendingPathComponent("a0.m4s")))).write(to: joinedOrigin)
        let probe = String(decoding: try await Tools.ffprobe(["-v", "error", "-select_streams", "v", "-show_entries", "stream=start_time",
                                                        "-of", "csv=p=0", joinedOrigin.path]).stdout, as: UTF8.self)
        let originStart = try #require(Double(probe.trimmingCharacters(in: .whitespacesAndNewlines)), "\(probe)")
        #expect(abs(Double(first) / 90_000 - (originStart + 10)) < 0.001, "\(Double(first) / 90_000) vs \(originStart) + 10")
    }

    /// A static DASH origin (made by the ffmpeg CLI: two video Representations, the top one's
    /// packets copied from the clip with its B-frames, and an audio AdaptationSet; CMAF segments
    /// under a SegmentTemplate with a SegmentTimeline and `$Number%05d$`): each video segment
    /// remuxed to MPEG-TS with the audio of its time, then as an HLS origin: every frame once and in
    /// order in both rungs, no gap in the sound at a segment boundary, a cut between keyframes
    /// played clean by ffmpeg `-xerror` and GStreamer; an SCTE-35 EventStream's event an origin
    /// cue. MPDs it cannot take are refused in one line.
    @Test func aDASHOriginIsTakenInAsMPEGTS() async throws {
        let root = StoreFixture.folder("dash")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("origin")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let clip = try StoreFixture.clip().path
        _ = try await Tools.ffmpeg(["-v", "error", "-y", "-i", clip, "-map", "0:v", "-map", "0:v", "-map", "0:a", "-c:v:0", "copy",
                                    "-c:v:1", "libx264", "-s:v:1", "160x90", "-g:v:1", "30", "-keyint_min:v:1", "30", "-sc_threshold", "0",
                                    "-b:v:1", "150k", "-c:a", "copy", "-f", "dash", "-seg_duration", "2", "-use_template", "1", "-use_timeline", "1",
                                    "-adaptation_sets", "id=0,streams=v id=1,streams=a", folder.appendingPathComponent("o.mpd").path])
        let server = try HTTPTestServer()
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            server.route("/" + name, HTTPTestServer.Response(headers: ["Content-Type": name.hasSuffix(".mpd") ? "application/dash+xml" : "video/mp4"],
                                                              body: try Data(contentsOf: folder.appendingPathComponent(name))))
        }
        var mpd = String(decoding: try Data(contentsOf: folder.appendingPathComponent("o.mpd")), as: UTF8.self)
        // the origin's break at 2 s, as an SCTE-35 EventStream of its Period
        if let at = mpd.range(of: "<AdaptationSet") {
            mpd.insert(contentsOf: "<EventStream schemeIdUri=\"urn:scte:scte35:2014:xml+bin\" timescale=\"90000\"><Event presentationTime=\"180000\" duration=\"450000\" id=\"1\"/></EventStream>\n", at: at.lowerBound)
        }
        server.route("/o.mpd", HTTPTestServer.Response(headers: ["Content-Type": "application/dash+xml"], body: Data(mpd.utf8)))
        #expect(mpd.contains("<SegmentTimeline>") && mpd.contains("contentType=\"audio\""), "ffmpeg made another MPD: \(mpd.prefix(300))")
        // refused in one line: what the reader does not take
        let refusals: [(String, String, String)] = [
            ("live", mpd.replacingOccurrences(of: "type=\"static\"", with: "type=\"dynamic\""), "dynamic MPD"),
            ("periods", mpd.replacingOccurrences(of: "</Period>", with: "</Period><Period id=\"1\"></Period>"), "Period 2"),
            ("entity", "<?xml version=\"1.0\"?><!DOCTYPE MPD [<!ENTITY x \"y\">]><MPD type=\"static\">&x;</MPD>", "DASH source"),
            ("protected", mpd.replacingOccurrences(of: "<Representation id=\"0\"", with: "<ContentProtection schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\"/><Representation id=\"0\""), "is not encrypted"),
        ]
        for (name, text, reason) in refusals {
            server.route("/\(name).mpd", body: text)
            try await StoreFixture.expectRefusedInOneLine(server.url("/\(name).mpd"), name: name, under: root, why: reason)
        }
        let store = try MediaStore(options: StoreOptions(root: root.appendingPathComponent("store"), contents: ["d": server.url("/o.mpd")]))
        let content = try await store.content("d")
        #expect(content.renditions.map(\.rendition.name) == ["180p", "90p"])
        #expect(content.duration == MediaTime(seconds: 4))
        #expect(content.originCues == [MediaTime(seconds: 2)], "the EventStream's break")
        try await Self.expectTakenInAsAnOrigin(store, "d", rungs: [("180p", PixelSize(width: 320, height: 180)), ("90p", PixelSize(width: 160, height: 90))],
                                               root: root)
    }

    @Test func aRemotePlaylistNeverReachesALocalFile() async throws {
        let root = StoreFixture.folder("hlsbad")
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try HTTPTestServer()
        server.route("/local.m3u8", body: "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n")
        server.route("/live.m3u8", body: "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nseg.ts\n")
        server.route("/page.m3u8", body: "<html>not a playlist</html>")
        server.route("/big.m3u8", .generated(2 << 20, contentType: "application/vnd.apple.mpegurl"))
        let store = try MediaStore(options: StoreOptions(root: root, contents: [
            "local": server.url("/local.m3u8"), "live": server.url("/live.m3u8"), "page": server.url("/page.m3u8"),
            "big": server.url("/big.m3u8"), "missing": server.url("/none.m3u8"), "ftp": "ftp://127.0.0.1/x.m3u8"]))
        for (name, says) in [("local", "only http and https"), ("live", "not a VOD"), ("page", "not a playlist"),
                             ("big", "larger than"), ("missing", "404"), ("ftp", "refused")] {
            do {
                _ = try await store.content(name)
                Issue.record("\(name) was accepted")
            } catch {
                #expect("\(error)".contains(says), "\(name): \(error)")
                #expect(!"\(error)".contains("\n"))
            }
        }
    }
}
