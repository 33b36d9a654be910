import Foundation
import Playback
@testable import Serve
import TestSupport
import Testing
import Timing

/// Issue 34, item 5 (alternate audio): an HLS origin with two audio renditions (CMAF, made by the
/// ffmpeg CLI: the clip's sound as the English default, silence as French) carried through a
/// session with a 2 s mid-roll. HLS with CMAF segments names both in one `AUDIO` group; the
/// French playlist is the French sound cut at the same frame and the ad's sound in the break
/// (silent content, loud ad), as long as the English one; the MPD has both per Period, each with
/// its `lang`; ffmpeg `-xerror` and GStreamer's playbin3 play it.
@Suite(.serialized) struct ServeAlternateAudioTests {
    /// The origin's files: `p0.m3u8` (video), `p1.m3u8` (English, default), `p2.m3u8` (French),
    /// each of CMAF segments (`segments` "fmp4") or MPEG-TS ones ("mpegts": video-only variant
    /// segments, audio-only renditions).
    static func origin(in folder: URL, segments: String = "fmp4") async throws -> [String: (Data, String)] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let clip = try StoreFixture.clip().path
        let cmaf = segments == "fmp4"
        try await Tools.ffmpeg(["-v", "error", "-y", "-i", clip, "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo", "-map", "0:v", "-map", "0:a", "-map", "1:a",
                                "-c:v", "copy", "-c:a", "aac", "-t", "4", "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-hls_segment_type", segments,
                                "-var_stream_map", "v:0,agroup:aud a:0,agroup:aud,language:en,default:yes a:1,agroup:aud,language:fr",
                                "-master_pl_name", "master.m3u8", "-hls_segment_filename", folder.appendingPathComponent(cmaf ? "s%v_%d.m4s" : "s%v_%d.ts").path]
                               + (cmaf ? ["-hls_fmp4_init_filename", "init%v.mp4"] : []) + [folder.appendingPathComponent("p%v.m3u8").path])
        var files: [String: (Data, String)] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files["/" + name] = (try Data(contentsOf: folder.appendingPathComponent(name)), name.hasSuffix(".m3u8") ? "application/vnd.apple.mpegurl" : "video/mp4")
        }
        return files
    }

    /// The mean volume (dB) of `data` (a CMAF audio track: its initialization and media segments).
    static func meanVolume(_ data: Data, root: URL) async throws -> Double {
        let file = root.appendingPathComponent("vol-\(UUID().uuidString).mp4")
        try data.write(to: file)
        let out = try await Tools.ffmpeg(["-v", "info", "-i", file.path, "-af", "volumedetect", "-f", "null", "-"]).stderr
        return try #require(out.split(separator: "\n").first { $0.contains("mean_volume:") }?.split(separator: " ").dropLast().last.flatMap { Double($0) })
    }

    /// A store of content `a` from `source` under `root`, a service on it asking `ads` (the
    /// mid-roll server), and a session of it with its ad in.
    static func serving(_ source: String, root: URL, ads: HTTPTestServer) async throws -> (store: MediaStore, running: RunningService, id: String) {
        let store = try StoreFixture.store(root.appendingPathComponent("store")) { $0.contents = ["a": source] }
        let running = try RunningService(media: store, adsTemplate: ads.url("/vmap")) { c in c.contents = [ContentSource(name: "a", source: "origin")] }
        let (id, _) = try await readySession(running, content: "a")
        return (store, running, id)
    }

    /// With CMAF renditions and variants, and with MPEG-TS ones (video-only variant segments,
    /// each audio rendition audio-only MPEG-TS: the default's sound muxed into every variant's
    /// segments, the other's into the lowest variant's language rung, as for CMAF).
    @Test(arguments: ["fmp4", "mpegts"]) func bothLanguagesAreTracksOfTheSessionWithTheAdInEach(segments: String) async throws {
        let root = StoreFixture.folder("alt-audio-serve-\(segments)")
        defer { try? FileManager.default.removeItem(at: root) }
        let origin = try HTTPTestServer()
        let files = try await Self.origin(in: root.appendingPathComponent("origin"), segments: segments)
        #expect(files.keys.contains { $0.hasSuffix(segments == "fmp4" ? ".m4s" : ".ts") }, "ffmpeg made another origin: \(files.keys.sorted())")
        origin.serve(files)
        let ads = try midrollAdServer()
        defer { ads.stop(); origin.stop() }
        let (store, running, id) = try await Self.serving(origin.url("/master.m3u8"), root: root, ads: ads)
        let content = try await store.content("a")
        #expect(content.audioTracks.map(\.language) == ["en", "fr"] && content.audioTracks.map(\.isDefault) == [true, false])
        #expect(content.audioTracks[1].rendition?.name == "180p-audio1" && content.notes.isEmpty, "\(content.notes)")

        let master = try await curl(running.url("/v1/sessions/\(id)/master.m3u8?segments=cmaf")).text
        let audio = master.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-MEDIA:TYPE=AUDIO") }
        #expect(audio.count == 2 && audio[0].contains(#"NAME="audio_1",LANGUAGE="en",DEFAULT=YES"#)
                && audio[1].contains(#"NAME="audio_2",LANGUAGE="fr""#) && audio[1].contains("/audio-1.m3u8?segments=cmaf"), "\(master)")
        // each language's track: the content's own sound (loud English, silent French), the ad's in the break
        var lengths: [Double] = []
        for (name, contentLoud) in [("audio", true), ("audio-1", false)] {
            let playlist = try await curl(running.url("/v1/sessions/\(id)/\(name).m3u8?segments=cmaf")).text
            let lines = playlist.split(separator: "\n").map(String.init)
            let map = try #require(lines.first { $0.hasPrefix("#EXT-X-MAP:URI=\"") }.map { String($0.dropFirst(16).dropLast()) })
            let initBytes = try await curl(running.url(map)).body
            var whole = initBytes
            for uri in lines where !uri.hasPrefix("#") {
                let segment = try await curl(running.url(uri)).body
                whole += segment
                let volume = try await Self.meanVolume(initBytes + segment, root: root)
                let isAd = uri.contains("/ads/")
                #expect(isAd || contentLoud ? volume > -60 : volume < -80, "\(name) \(uri.prefix(80)): \(volume) dB")
            }
            let file = root.appendingPathComponent("\(name).mp4")
            try whole.write(to: file)
            let ff = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-xerror", "-i", file.path, "-f", "null", "-"])
            #expect(ff.status == 0, "\(name): \(ff.stderr)")
            // its length: from its first sample (on the stream clock, after the muxer's offset) to its end
            let probe = try await Tools.ffprobe(["-v", "error", "-show_entries", "format=start_time,duration", "-of", "csv=p=0", file.path])
            let values = String(decoding: probe.stdout, as: UTF8.self).split(whereSeparator: { $0 == "," || $0.isNewline }).compactMap { Double($0) }
            lengths.append(values.count == 2 ? values[1] - values[0] : -1)
        }
        #expect(lengths.count == 2 && abs(lengths[0] - lengths[1]) < 0.022 && abs(lengths[0] - 6) < 0.05, "as long as each other: \(lengths)")

        // the MPD: both per Period, each with its language
        let answer = try await curl(running.url("/v1/sessions/\(id)/index.mpd"))
        let mpd = root.appendingPathComponent("s.mpd")
        try answer.body.write(to: mpd)
        #expect(try await offPool { try DASHSchema.problems(mpd) } == [])
        for period in answer.text.components(separatedBy: "<Period ").dropFirst() {
            #expect(period.contains(#"contentType="audio" mimeType="audio/mp4" lang="en""#) && period.contains(#"contentType="audio" mimeType="audio/mp4" lang="fr""#),
                    "\(period.prefix(300))")
        }

        try await expectPlayedClean(running.url("/v1/sessions/\(id)/master.m3u8?segments=cmaf"), by: [.ffmpeg, .gstreamer3])
    }

    /// An MPEG-TS session of the same content: its master names the French sound as a packed-audio
    /// rendition (`audio-1.m3u8`, the English default in the variants: no URI), its playlist the
    /// French rung's segment for segment (same durations and discontinuities) with each segment's
    /// sound as `PATH.a.aac`: an ID3 timestamp equal to the PTS of the first audio frame the
    /// variant's segment at that place carries, then its AAC frames (silent content, loud ad).
    /// The master plays clean in ffmpeg `-xerror`, playbin3, VLC, mpv and Chromium; the French
    /// playlist passes the RFC 8216 checker.
    @Test func anMPEGTSSessionNamesTheOtherLanguageAsPackedAudio() async throws {
        let root = StoreFixture.folder("alt-audio-ts")
        defer { try? FileManager.default.removeItem(at: root) }
        let origin = try HTTPTestServer()
        origin.serve(try await Self.origin(in: root.appendingPathComponent("origin")))
        let ads = try midrollAdServer()
        defer { ads.stop(); origin.stop() }
        let (_, running, id) = try await Self.serving(origin.url("/master.m3u8"), root: root, ads: ads)
        let master = try await curl(running.url("/v1/sessions/\(id)/master.m3u8")).text
        let audio = master.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-MEDIA:TYPE=AUDIO") }
        #expect(audio.count == 2 && audio[0].contains(#"LANGUAGE="en",DEFAULT=YES"#) && audio[0].contains("URI=\"/v1/sessions/\(id)/audio.m3u8\"")
                && audio[1].contains(#"LANGUAGE="fr""#) && audio[1].contains("URI=\"/v1/sessions/\(id)/audio-1.m3u8\""), "\(master)")
        #expect(master.contains(#"AUDIO="audio""#), "\(master)")
        let variantURI = try #require(master.split(separator: "\n").first { $0.hasPrefix("/v1/sessions/") }.map(String.init))
        let variant = try await curl(running.url(variantURI)).text
        let french = try await curl(running.url("/v1/sessions/\(id)/audio-1.m3u8"))
        #expect(french.status == 200)
        let file = root.appendingPathComponent("fr.m3u8")
        try french.body.write(to: file)
        #expect(RFC8216.check(media: french.text).isEmpty, "\(french.text)")
        func entries(_ text: String) -> [(duration: String, uri: String, discontinuity: Bool)] {
            var out: [(String, String, Bool)] = [], duration = "", gap = false
            for line in text.split(separator: "\n").map(String.init) {
                if line.hasPrefix("#EXTINF:") { duration = line } else if line == "#EXT-X-DISCONTINUITY" { gap = true }
                else if !line.hasPrefix("#") { out.append((duration, line, gap)); gap = false }
            }
            return out
        }
        let v = entries(variant), f = entries(french.text)
        #expect(v.map(\.duration) == f.map(\.duration) && v.map(\.discontinuity) == f.map(\.discontinuity), "\(variant)\n\(french.text)")
        #expect(f.allSatisfy { $0.uri.contains(".a.aac") && !$0.uri.contains("d=1") && !$0.uri.contains("t=") })
        var sawAd = false
        for (video, sound) in zip(v, f) {
            let segment = try await curl(running.url(video.uri)).body
            let packed = try await curl(running.url(sound.uri))
            #expect(packed.status == 200 && packed.body.starts(with: Array("ID3".utf8)), "\(sound.uri): \(packed.status)")
            // the ID3 timestamp: the variant segment's first audio PTS there (the same clock, the same shift)
            let body = [UInt8](packed.body)
            let owner = Array("com.apple.streaming.transportStreamTimestamp".utf8) + [0]
            let at = try #require((0..<min(body.count, 80)).first { body[$0...].starts(with: owner) }, "no ID3 timestamp in \(sound.uri)")
            let stamp = body[(at + owner.count)..<(at + owner.count + 8)].reduce(Int64(0)) { $0 << 8 | Int64($1) }
            let firstAudio = try #require(TSPES.firstAudioPTS([UInt8](segment)), "\(video.uri) has no sound")
            #expect(stamp == firstAudio, "\(sound.uri): ID3 \(stamp), the variant's sound at \(firstAudio)")
            // silent French content, the loud ad in the break
            let aac = root.appendingPathComponent("s-\(UUID().uuidString).aac")
            try packed.body.write(to: aac)
            let out = try await Tools.ffmpeg(["-v", "info", "-i", aac.path, "-af", "volumedetect", "-f", "null", "-"]).stderr
            let volume = try #require(out.split(separator: "\n").first { $0.contains("mean_volume:") }?.split(separator: " ").dropLast().last.flatMap { Double($0) })
            let isAd = video.uri.contains("/ads/")
            sawAd = sawAd || isAd
            #expect(isAd ? volume > -60 : volume < -80, "\(sound.uri.prefix(80)): \(volume) dB")
        }
        #expect(sawAd, "the break's ad is in the French playlist too")
        // the route checks what it is asked as the segment route does
        let path = try #require(f.first.map { String($0.uri.split(separator: "?")[0]) })
        for (query, status) in [("?d=1", 400), ("?o=abc", 400), ("?o=99999999999", 400)] {
            #expect(try await curl(running.url(path + query)).status == status, "\(path)\(query)")
        }
        for bad in ["/v1/segments/none/seg00000.ts.a.aac", "/v1/segments/../index.json.a.aac", "/v1/segments/.a.aac"] {
            #expect([400, 404].contains(try await curl(running.url(bad)).status), "\(bad)")
        }
        // the default's packed audio: the variant's own sound, segment for segment
        let english = try await curl(running.url("/v1/sessions/\(id)/audio.m3u8"))
        #expect(english.status == 200 && entries(english.text).map(\.duration) == v.map(\.duration)
                && entries(english.text).allSatisfy { $0.uri.contains(".a.aac") }, "\(english.text)")
        // every player here, VLC too: every language a rendition of its own (beside a variant's
        // muxed sound VLC loses its clock). Not legacy `playbin`: GStreamer 1.22's hlsdemux races
        // exposing a rendition's pad (in the parallel service pass it stopped "not-linked" on
        // `src_1` 0.47 s in, in CI and here; alone, idle or with the CPUs loaded, 0 of 25 plays
        // failed); playbin3, GStreamer's player for renditions, plays it in every run.
        try await expectPlayedClean(running.url("/v1/sessions/\(id)/master.m3u8"), by: [.ffmpeg, .gstreamer3, .vlc, .mpv, .chromium])
    }

    /// A DASH origin with two audio AdaptationSets (the clip's sound `lang="en"` with `Role`
    /// main, silence `lang="fr"`, made by ffmpeg's DASH muxer): English is the ladder's sound,
    /// French a language rung of the lowest rung, so a session names both as it does an HLS
    /// origin's, the French track silent content with the ad's sound in the break. The same
    /// with the MPD split in two Periods (the same languages in each): one language rung across
    /// them, its segments numbered on.
    @Test(arguments: [false, true]) func aDASHOriginsAudioAdaptationSetsAreLanguagesToo(periods: Bool) async throws {
        let root = StoreFixture.folder("alt-audio-dash-\(periods)")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("origin")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try await Tools.ffmpeg(["-v", "error", "-y", "-i", try StoreFixture.clip().path, "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo",
                                "-map", "0:v", "-map", "0:a", "-map", "1:a", "-c:v", "copy", "-c:a", "aac", "-t", "4",
                                "-metadata:s:a:0", "language=en", "-metadata:s:a:1", "language=fr",
                                "-f", "dash", "-seg_duration", "2", "-use_template", "1", "-use_timeline", "1",
                                "-adaptation_sets", "id=0,streams=v id=1,streams=1 id=2,streams=2", folder.appendingPathComponent("o.mpd").path])
        var mpd = String(decoding: try Data(contentsOf: folder.appendingPathComponent("o.mpd")), as: UTF8.self)
        #expect(mpd.contains(#"lang="en""#) && mpd.contains(#"lang="fr""#), "ffmpeg wrote no languages: \(mpd.prefix(600))")
        // French first in the document, English marked main: the Role decides, not the order
        let en = try #require(mpd.range(of: #"<AdaptationSet id="1""#)), fr = try #require(mpd.range(of: #"<AdaptationSet id="2""#))
        let enEnd = try #require(mpd.range(of: "</AdaptationSet>", range: en.upperBound..<mpd.endIndex))
        let frEnd = try #require(mpd.range(of: "</AdaptationSet>", range: fr.upperBound..<mpd.endIndex))
        let english = String(mpd[en.lowerBound..<enEnd.upperBound])
            .replacingOccurrences(of: "</AdaptationSet>", with: #"<Role schemeIdUri="urn:mpeg:dash:role:2011" value="main"/></AdaptationSet>"#)
        mpd.replaceSubrange(en.lowerBound..<frEnd.upperBound, with: String(mpd[fr.lowerBound..<frEnd.upperBound]) + "\n" + english)
        #expect(mpd.range(of: #"lang="fr""#)!.lowerBound < mpd.range(of: #"lang="en""#)!.lowerBound && mpd.contains(#"value="main""#))
        if periods {
            mpd = try StoreDASHSourceTests.splitInTwoPeriods(mpd)
            #expect(mpd.components(separatedBy: "<Period ").count == 3 && mpd.components(separatedBy: #"lang="fr""#).count == 3, "\(mpd)")
        }
        let origin = try HTTPTestServer()
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name != "o.mpd" {
            origin.route("/" + name, HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: folder.appendingPathComponent(name))))
        }
        origin.route("/o.mpd", HTTPTestServer.Response(headers: ["Content-Type": "application/dash+xml"], body: Data(mpd.utf8)))
        let ads = try midrollAdServer()
        defer { ads.stop(); origin.stop() }
        let (store, running, id) = try await Self.serving(origin.url("/o.mpd"), root: root, ads: ads)
        let content = try await store.content("a")
        #expect(content.audioTracks.map(\.language) == ["en", "fr"] && content.audioTracks.map(\.isDefault) == [true, false], "\(content.audioTracks)")
        #expect(content.audioTracks.last?.rendition?.name == "180p-audio1" && content.notes.isEmpty, "\(content.notes)")
        try await ServeStoreHLSSourceTests.expectTakenInAsAnOrigin(store, "a", rungs: [("180p", PixelSize(width: 320, height: 180))], root: root)
        for (name, contentLoud) in [("audio", true), ("audio-1", false)] {
            let playlist = try await curl(running.url("/v1/sessions/\(id)/\(name).m3u8?segments=cmaf")).text
            let lines = playlist.split(separator: "\n").map(String.init)
            let map = try #require(lines.first { $0.hasPrefix("#EXT-X-MAP:URI=\"") }.map { String($0.dropFirst(16).dropLast()) })
            let initBytes = try await curl(running.url(map)).body
            for uri in lines where !uri.hasPrefix("#") {
                let volume = try await Self.meanVolume(initBytes + (try await curl(running.url(uri)).body), root: root)
                #expect(uri.contains("/ads/") || contentLoud ? volume > -60 : volume < -80, "\(name) \(uri.prefix(80)): \(volume) dB")
            }
        }
    }

    /// Alternate audio the store cannot carry: another language whose playlist is gone, is
    /// packed audio (raw AAC) or is not VOD is left out with a one-line note, the content served in the
    /// default; the same of the default refuses the content in one line.
    @Test func alternateAudioItCannotCarryIsLeftOutOrRefusedInOneLine() async throws {
        let root = StoreFixture.folder("alt-audio-hostile")
        defer { try? FileManager.default.removeItem(at: root) }
        let files = try await Self.origin(in: root.appendingPathComponent("origin"))
        let master = String(decoding: files["/master.m3u8"]!.0, as: UTF8.self)
        let cases: [(String, [String: String], String)] = [
            ("gone", ["/p2.m3u8": ""], "404"),
            ("packed", ["/p2.m3u8": "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\na.aac\n#EXT-X-ENDLIST\n", "/a.aac": "ID3\u{4}\0\0\0\0\0\0"], "packed audio"),
            ("live", ["/p2.m3u8": String(decoding: files["/p2.m3u8"]!.0, as: UTF8.self).replacingOccurrences(of: "#EXT-X-ENDLIST", with: "")], "not a VOD playlist"),
        ]
        for (name, changes, why) in cases {
            for french in [true, false] {
                // the French rendition, or the English default, made bad
                let moved = french ? changes : Dictionary(uniqueKeysWithValues: changes.map {
                    ($0.key == "/p2.m3u8" ? "/p1.m3u8" : $0.key, $0.value.replacingOccurrences(of: "p2", with: "p1"))
                })
                let server = try HTTPTestServer()
                defer { server.stop() }
                server.serve(files) { moved[$0] == nil }
                for (path, text) in moved where !text.isEmpty { server.route(path, body: text) }
                server.route("/master.m3u8", body: master)
                let store = try MediaStore(options: StoreOptions(root: root.appendingPathComponent("store-\(name)-\(french)"), contents: ["a": server.url("/master.m3u8")]))
                do {
                    let content = try await store.content("a")
                    #expect(french, "\(name): the default bad, and taken")
                    #expect(content.audioTracks.map(\.language) == ["en"] && content.notes.count == 1
                            && content.notes[0].hasPrefix("audio 'audio_2' left out") && content.notes[0].contains(why) && !content.notes[0].contains("\n"),
                            "\(name): \(content.notes)")
                } catch {
                    #expect(!french && "\(error)".contains(why) && !"\(error)".contains("\n"), "\(name) (French \(french)): \(error)")
                }
            }
        }
    }

    /// A rendition in another container than the variants' (MPEG-TS audio with CMAF variants):
    /// another language is left out with a note, the default refuses the content in one line.
    @Test func anAudioRenditionInAnotherContainerThanTheVariantsIsLeftOutOrRefused() async throws {
        let root = StoreFixture.folder("alt-audio-mixed")
        defer { try? FileManager.default.removeItem(at: root) }
        let cmaf = try await Self.origin(in: root.appendingPathComponent("cmaf"))
        let ts = try await Self.origin(in: root.appendingPathComponent("ts"), segments: "mpegts")
        for french in [true, false] {
            // the French (or English) playlist and segments the MPEG-TS origin's
            let playlist = french ? "/p2.m3u8" : "/p1.m3u8"
            var files = cmaf
            files[playlist] = ts[playlist]
            for (path, file) in ts where path.hasSuffix(".ts") { files[path] = file }
            let server = try HTTPTestServer()
            defer { server.stop() }
            server.serve(files)
            let store = try MediaStore(options: StoreOptions(root: root.appendingPathComponent("store-\(french)"), contents: ["a": server.url("/master.m3u8")]))
            do {
                let content = try await store.content("a")
                #expect(french && content.audioTracks.map(\.language) == ["en"] && content.notes == ["audio 'audio_2' left out: it is MPEG-TS, the variants are not"],
                        "\(content.notes)")
            } catch {
                #expect(!french && "\(error)".contains("in MPEG-TS with CMAF variants") && !"\(error)".contains("\n"), "\(error)")
            }
        }
    }

    /// A default rendition without a URI is the variants' own sound (RFC 8216 §4.3.4.2.1): the
    /// ladder keeps it, the other language (MPEG-TS) is the lowest variant's language rung.
    @Test func aDefaultWithoutAURIIsTheVariantsOwnSound() async throws {
        let root = StoreFixture.folder("alt-audio-muxed")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("origin")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // the clip's sound muxed in the variant, silence as a French rendition
        try await Tools.ffmpeg(["-v", "error", "-y", "-i", try StoreFixture.clip().path, "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo",
                                "-map", "0:v", "-map", "0:a", "-map", "1:a", "-c:v", "copy", "-c:a", "aac", "-t", "4", "-f", "hls", "-hls_time", "2",
                                "-hls_playlist_type", "vod", "-var_stream_map", "v:0,a:0,agroup:aud a:1,agroup:aud,language:fr",
                                "-master_pl_name", "master.m3u8", "-hls_segment_filename", folder.appendingPathComponent("s%v_%d.ts").path,
                                folder.appendingPathComponent("p%v.m3u8").path])
        // the master by hand: the English default without a URI (in the variant), French with its playlist
        let master = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",DEFAULT=YES,AUTOSELECT=YES,LANGUAGE="en"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="French",AUTOSELECT=YES,LANGUAGE="fr",URI="p1.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=320x180,CODECS="avc1.64000d,mp4a.40.2",AUDIO="aud"
            p0.m3u8

            """
        try master.write(to: folder.appendingPathComponent("master.m3u8"), atomically: true, encoding: .utf8)
        let server = try HTTPTestServer.serving(folder)
        defer { server.stop() }
        let store = try MediaStore(options: StoreOptions(root: root.appendingPathComponent("store"), contents: ["a": server.url("/master.m3u8")]))
        let content = try await store.content("a")
        #expect(content.audioTracks.map(\.language) == ["en", "fr"] && content.audioTracks.map(\.isDefault) == [true, false], "\(content.notes)")
        // the ladder's segment has the clip's sound, the language rung's the French silence
        for (rung, loud) in [("180p", true), ("180p-audio1", false)] {
            let stored = try #require(try await store.cut("a", rendition: rung, at: []).runs.first?.first)
            let file = try #require(store.file(forSegment: stored.path))
            let out = try await Tools.ffmpeg(["-v", "info", "-i", file.path, "-map", "0:a", "-af", "volumedetect", "-f", "null", "-"]).stderr
            let volume = try #require(out.split(separator: "\n").first { $0.contains("mean_volume:") }?.split(separator: " ").dropLast().last.flatMap { Double($0) })
            #expect(loud ? volume > -60 : volume < -80, "\(rung): \(volume) dB")
        }
    }
}
