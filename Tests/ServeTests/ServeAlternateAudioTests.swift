import Foundation
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
    /// The origin's files: `p0.m3u8` (video), `p1.m3u8` (English, default), `p2.m3u8` (French).
    static func origin(in folder: URL) async throws -> [String: (Data, String)] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let clip = try StoreFixture.clip().path
        try await Tools.ffmpeg(["-v", "error", "-y", "-i", clip, "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo", "-map", "0:v", "-map", "0:a", "-map", "1:a",
                                "-c:v", "copy", "-c:a", "aac", "-t", "4", "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-hls_segment_type", "fmp4",
                                "-var_stream_map", "v:0,agroup:aud a:0,agroup:aud,language:en,default:yes a:1,agroup:aud,language:fr",
                                "-master_pl_name", "master.m3u8", "-hls_segment_filename", folder.appendingPathComponent("s%v_%d.m4s").path,
                                "-hls_fmp4_init_filename", "init%v.mp4", folder.appendingPathComponent("p%v.m3u8").path])
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

    @Test func bothLanguagesAreTracksOfTheSessionWithTheAdInEach() async throws {
        let root = StoreFixture.folder("alt-audio-serve")
        defer { try? FileManager.default.removeItem(at: root) }
        let origin = try HTTPTestServer()
        origin.serve(try await Self.origin(in: root.appendingPathComponent("origin")))
        let ads = try midrollAdServer()
        defer { ads.stop(); origin.stop() }
        let store = try StoreFixture.store(root.appendingPathComponent("store")) { $0.contents = ["a": origin.url("/master.m3u8")] }
        let content = try await store.content("a")
        #expect(content.audioTracks.map(\.language) == ["en", "fr"] && content.audioTracks.map(\.isDefault) == [true, false])
        #expect(content.audioTracks[1].rendition?.name == "180p-audio1" && content.notes.isEmpty, "\(content.notes)")
        let running = try RunningService(media: store, adsTemplate: ads.url("/vmap")) { c in c.contents = [ContentSource(name: "a", source: "origin")] }
        let (id, _) = try await readySession(running, content: "a")

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

        let url = URL(string: running.url("/v1/sessions/\(id)/master.m3u8?segments=cmaf"))!
        for client in [FieldCheck.Client.ffmpeg, .gstreamer3] {
            let v = try await offPool { try FieldCheck.check(url, with: client, timeout: 120) }
            #expect(v.clean, "\(client): \(v.report)")
        }
    }

    /// Alternate audio the store cannot carry: another language whose playlist is gone, is
    /// MPEG-TS audio or is not VOD is left out with a one-line note, the content served in the
    /// default; the same of the default refuses the content in one line.
    @Test func alternateAudioItCannotCarryIsLeftOutOrRefusedInOneLine() async throws {
        let root = StoreFixture.folder("alt-audio-hostile")
        defer { try? FileManager.default.removeItem(at: root) }
        let files = try await Self.origin(in: root.appendingPathComponent("origin"))
        let master = String(decoding: files["/master.m3u8"]!.0, as: UTF8.self)
        let cases: [(String, [String: String], String)] = [
            ("gone", ["/p2.m3u8": ""], "404"),
            ("ts", ["/p2.m3u8": "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\na.ts\n#EXT-X-ENDLIST\n"], "not CMAF"),
            ("live", ["/p2.m3u8": String(decoding: files["/p2.m3u8"]!.0, as: UTF8.self).replacingOccurrences(of: "#EXT-X-ENDLIST", with: "")], "not a VOD playlist"),
        ]
        for (name, changes, why) in cases {
            for french in [true, false] {
                // the French rendition, or the English default, made bad
                let moved = french ? changes : Dictionary(uniqueKeysWithValues: changes.map { ("/p1.m3u8", $0.value.replacingOccurrences(of: "p2", with: "p1")) })
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
}
