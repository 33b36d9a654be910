import Foundation
import Manifest
import Media
@testable import Serve
import TestSupport
import Testing
import Timing

/// Issue 34, item 6: an HLS origin of sample-encrypted CMAF (`ServeProtectedDASHTests.hlsOrigin`:
/// `cbcs` video under `EXT-X-KEY:METHOD=SAMPLE-AES` with a ClearKey `KEYFORMAT` and its `pssh`,
/// clear sound in an audio rendition) is served as HLS too — with CMAF segments, the only HLS
/// form its segments have — its key passed on as the origin gave it (never fetched: FairPlay's
/// `skd:` keys go the same way). A session names `master.m3u8?segments=cmaf`; its rung playlist
/// lists the origin's segments byte for byte under the key and the rung's kept initialization
/// segment, the ad's clear CMAF track between them under `METHOD=NONE` and its own map, each run
/// after `EXT-X-DISCONTINUITY` on its own clock; the audio rendition the origin's audio segments
/// of each content run and the ad's sound. Each run downloaded as the playlists list it and
/// decrypted by ffmpeg with the key: every content frame once and in order, the ad's 60 frames
/// at the 2 s boundary, each run's sound decoding clean and as long as its pictures.
@Suite(.serialized) struct ServeProtectedHLSTests {
    /// A media playlist's runs: each `EXT-X-MAP`'s URI and the segment URIs under it.
    static func runs(_ text: String) -> [(map: String, segments: [String])] {
        var out: [(map: String, segments: [String])] = []
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("#EXT-X-MAP:URI=\""), let end = line.dropFirst(16).firstIndex(of: "\"") {
                out.append((String(line.dropFirst(16)[..<end]), []))
            } else if !line.hasPrefix("#"), !line.isEmpty, !out.isEmpty {
                out[out.count - 1].segments.append(line)
            }
        }
        return out
    }

    /// A session of content `p` whose top rung's playlist has the ad (VOD leaves out an ad not
    /// transcoded yet): its id and its master playlist (the one `manifestUrl` names).
    static func readySession(_ running: RunningService) async throws -> (id: String, master: String) {
        var id = "", master = ""
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let named = try #require(try await curl(running.url("/v1/session/p"), method: "POST", body: "{}").json?["manifestUrl"] as? String)
            id = String(named.dropFirst("/v1/sessions/".count).prefix { $0 != "/" })
            master = try await curl(running.url(named)).text
            if try await curl(running.url("/v1/sessions/\(id)/180p.m3u8?segments=cmaf")).text.contains("/v1/segments/ads/") { break }
            try await Task.sleep(nanoseconds: 200_000_000)
        }
        return (id, master)
    }

    @Test func aSampleEncryptedHLSOriginIsServedAsHLSWithItsKeyPassedOn() async throws {
        let root = StoreFixture.folder("protected-hls")
        defer { try? FileManager.default.removeItem(at: root) }
        let (origin, folder, pssh, _) = try await ServeProtectedDASHTests.hlsOrigin(in: root)
        let ads = try midrollAdServer()
        defer { ads.stop(); origin.stop() }
        let store = try StoreFixture.store(root.appendingPathComponent("store")) { $0.contents = ["p": origin.url("/master.m3u8")] }
        let content = try await store.content("p")
        let keyURI = "data:text/plain;base64,\(pssh)"
        #expect(content.protectedCMAF?.hls?.video.uri == keyURI && content.protectedCMAF?.audio?.hlsKey == nil, "the origin's key kept for HLS; the sound clear")
        let running = try RunningService(media: store, adsTemplate: ads.url("/vmap")) { c in c.contents = [ContentSource(name: "p", source: "origin")] }

        // a session whose playlist has the ad (VOD leaves out an ad not transcoded yet)
        var id = "", master = "", video = ""
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let posted = try await curl(running.url("/v1/session/p"), method: "POST", body: "{}").json
            let named = try #require(posted?["manifestUrl"] as? String)
            #expect(named.hasSuffix("/master.m3u8?segments=cmaf") && posted?["dashManifestUrl"] != nil)
            id = String(named.dropFirst("/v1/sessions/".count).prefix { $0 != "/" })
            master = try await curl(running.url(named)).text
            video = try await curl(running.url("/v1/sessions/\(id)/180p.m3u8?segments=cmaf")).text
            if video.contains("/v1/segments/ads/") { break }
            try await Task.sleep(nanoseconds: 200_000_000)
        }
        #expect(master.contains(#"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio""#) && master.contains("audio.m3u8?segments=cmaf")
                && master.contains("CODECS=\"avc1.") && master.contains(",mp4a.40.2\"") && master.contains("180p.m3u8?segments=cmaf"), "\(master)")
        #expect(try await curl(running.url("/v1/master/p/index.m3u8")).text.contains("180p.m3u8?segments=cmaf"), "the implicit session's master is the CMAF one")
        let ts = try await curl(running.url("/v1/sessions/\(id)/master.m3u8"))
        #expect(ts.status == 409 && ts.text.contains("segments=cmaf"), "no MPEG-TS form: \(ts.text)")

        // the key around the clear ad, a map per run, each run on its own clock
        let key = "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"\(keyURI)\",KEYFORMAT=\"urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e\",KEYFORMATVERSIONS=\"1\""
        let lines = video.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("#EXT-X-KEY:") } == [key, "#EXT-X-KEY:METHOD=NONE", key], "\(video)")
        #expect(lines.filter { $0 == "#EXT-X-DISCONTINUITY" }.count == 2 && video.contains("#EXT-X-VERSION:6") && video.contains("#EXT-X-CUE-OUT"))
        let runs = Self.runs(video)
        #expect(runs.count == 3 && runs[0].map == runs[2].map && runs[0].map.hasSuffix("init.enc.mp4") && runs[1].map != runs[0].map
                && runs[0].segments.count == 1 && runs[2].segments.count == 1, "\(runs)")
        #expect(try await curl(running.url(runs[0].segments[0])).body == (try Data(contentsOf: folder.appendingPathComponent("s0_0.m4s"))),
                "the origin's encrypted bytes")

        // every run as listed, decrypted with the key (the service never had it) where it is encrypted
        var ids: [FrameIdentity?] = []
        for (n, run) in runs.enumerated() {
            var bytes = try await curl(running.url(run.map)).body
            for s in run.segments { bytes += try await curl(running.url(s)).body }
            let file = root.appendingPathComponent("run\(n).mp4"), decrypted = root.appendingPathComponent("run\(n)-clear.mp4")
            try bytes.write(to: file)
            let encrypted = run.map.hasSuffix(".enc.mp4")
            // (`+ignidx`: FFmpeg 5.1 applies a seekable file's last fragment's aux info to every packet)
            let ff = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-xerror"]
                                          + (encrypted ? ["-fflags", "+ignidx", "-decryption_key", ServeProtectedDASHTests.hex(ServeProtectedDASHTests.key)] : [])
                                          + ["-i", file.path, "-c", "copy", "-y", decrypted.path])
            #expect(ff.status == 0, "run \(n): \(ff.stderr.prefix(300))")
            ids += try await offPool {
                try MediaVerifier.videoFrames(decrypted, reader: IdentityReader(output: PixelSize(width: 320, height: 180), sources: [PixelSize(width: 240, height: 180)])).map(\.identity)
            }
        }
        #expect(ids.compactMap { $0 }.filter { $0.sourceID == 3 }.map(\.frameIndex) == Array(0..<StoreFixture.frames), "content frames once and in order")
        #expect(ids.count == 180 && ids[60..<120].allSatisfy { $0?.sourceID == 7 } && ids[59] == FrameIdentity(sourceID: 3, frameIndex: 59),
                "the ad's 60 frames between content frames 59 and 60")

        // the audio rendition: each run's sound decodes clean and lasts its pictures' time, within an
        // AAC frame at either end (segments of a packager's audio end on AAC frames)
        let audio = try await curl(running.url("/v1/sessions/\(id)/audio.m3u8?segments=cmaf")).text
        let audioRuns = Self.runs(audio)
        #expect(audioRuns.count == 3 && audioRuns[0].map == audioRuns[2].map && !audio.contains("#EXT-X-KEY"), "\(audio)")
        for (n, run) in audioRuns.enumerated() {
            var bytes = try await curl(running.url(run.map)).body
            for s in run.segments { bytes += try await curl(running.url(s)).body }
            let file = root.appendingPathComponent("audio\(n).mp4")
            try bytes.write(to: file)
            let decoded = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-xerror", "-i", file.path, "-f", "f32le", "-ac", "1", "-ar", "48000", "-"])
            #expect(decoded.status == 0, "audio run \(n): \(decoded.stderr.prefix(300))")
            let seconds = Double(decoded.stdout.count / 4) / 48_000
            #expect(abs(seconds - 2) <= 2 * 1024.0 / 48_000, "audio run \(n): \(seconds) s of sound for 2 s of pictures")
        }
    }

    /// A player decrypts through the session: with an identity key (`URI` a 16-byte key file,
    /// relative, made absolute) FFmpeg's HLS reader fetches the key and decrypts the `cbcs`
    /// segments itself, every content frame once and in order. FFmpeg 5.1 loses the ad: its reader
    /// feeds every segment to one MP4 demuxer, which skips the ad's `EXT-X-MAP` (a second `moov`),
    /// takes the ad's clear samples for the content's encrypted track and "decrypts" them into
    /// what its parser drops (docs/SERVE.md "Encrypted CMAF").
    @Test func ffmpegDecryptsTheContentThroughTheSession() async throws {
        let root = StoreFixture.folder("protected-hls-identity")
        defer { try? FileManager.default.removeItem(at: root) }
        let (origin, _, _, _) = try await ServeProtectedDASHTests.hlsOrigin(in: root, keyTag: "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"../key.bin\"")
        let ads = try midrollAdServer()
        defer { ads.stop(); origin.stop() }
        let store = try StoreFixture.store(root.appendingPathComponent("store")) { $0.contents = ["p": origin.url("/master.m3u8")] }
        #expect(try await store.content("p").protectedCMAF?.hls?.video == HLS.Key(method: .sampleAES, uri: origin.url("/key.bin")))
        let running = try RunningService(media: store, adsTemplate: ads.url("/vmap")) { c in c.contents = [ContentSource(name: "p", source: "origin")] }
        let (id, _) = try await Self.readySession(running)
        let out = root.appendingPathComponent("s.mp4")
        let r = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "warning", "-i", running.url("/v1/sessions/\(id)/master.m3u8?segments=cmaf"),
                                                             "-c", "copy", "-y", out.path])
        // FFmpeg 5.1 reads the ad's clear samples under the content's track (its second map
        // skipped) and decrypts them into garbage that its H.264 parser drops: those lines only
        let allowed = ["Found duplicated MOOV Atom. Skipped it", "Invalid NAL unit size", "missing picture in access unit", "Last message repeated"]
        let warnings = r.stderr.split(separator: "\n").filter { line in !allowed.contains { line.contains($0) } }
        #expect(r.status == 0 && warnings.isEmpty, "\(warnings)")
        let ids = try await offPool {
            try MediaVerifier.videoFrames(out, reader: IdentityReader(output: PixelSize(width: 320, height: 180), sources: [PixelSize(width: 240, height: 180)])).map(\.identity)
        }
        #expect(ids.map { $0?.sourceID == 3 ? $0?.frameIndex : nil } == (0..<StoreFixture.frames).map { $0 }, "every content frame decrypted, once and in order")
    }

    /// An encrypted origin's subtitles (clear WebVTT) go with it: its HLS sessions name the
    /// rendition, whose playlist follows the rung's segment for segment with each cue at the PTS
    /// the origin gave it (the video is never moved) and none during the ad; its DASH sessions
    /// carry the text AdaptationSet in every Period (the ad's the empty file).
    @Test func anEncryptedOriginsSubtitlesGoWithIt() async throws {
        let root = StoreFixture.folder("protected-hls-subs")
        defer { try? FileManager.default.removeItem(at: root) }
        let (origin, _, _, _) = try await ServeProtectedDASHTests.hlsOrigin(in: root, subtitles: true)
        let ads = try midrollAdServer()
        defer { ads.stop(); origin.stop() }
        let store = try StoreFixture.store(root.appendingPathComponent("store")) { $0.contents = ["p": origin.url("/master.m3u8")] }
        let content = try await store.content("p")
        #expect(content.subtitles.count == 1 && content.subtitles.first?.cues.count == 2, "\(content.notes)")
        let running = try RunningService(media: store, adsTemplate: ads.url("/vmap")) { c in c.contents = [ContentSource(name: "p", source: "origin")] }
        let (id, master) = try await Self.readySession(running)
        #expect(master.contains("TYPE=SUBTITLES") && master.contains(#"SUBTITLES="subs""#), "\(master)")
        let video = try await curl(running.url("/v1/sessions/\(id)/180p.m3u8?segments=cmaf")).text
        let subs = try await curl(running.url("/v1/sessions/\(id)/subtitles/0.m3u8?segments=cmaf")).text
        func extinfs(_ t: String) -> [String] { t.split(separator: "\n").filter { $0.hasPrefix("#EXTINF") || $0 == "#EXT-X-DISCONTINUITY" }.map(String.init) }
        #expect(extinfs(subs) == extinfs(video), "segment for segment with the rung")
        // each cue at the PTS the origin gave it: X-TIMESTAMP-MAP's MPEGTS plus its LOCAL start
        var shown: [(String, Int64)] = []
        for uri in subs.split(separator: "\n").filter({ !$0.hasPrefix("#") }) {
            let file = try WebVTT.parse(try await curl(running.url(String(uri))).text)
            shown += file.cuesOnMPEGTSClock.map { ($0.text, $0.start) }
        }
        // (to WebVTT's millisecond: the origin's times are rounded to 90 kHz ticks)
        #expect(shown.map(\.0) == ["one", "two"] && zip(shown.map(\.1), [45_000, 225_000]).allSatisfy { abs($0 - $1) <= 90 }, "\(shown)")
        let mpd = try await curl(running.url("/v1/sessions/\(id)/index.mpd")).text
        #expect(mpd.components(separatedBy: "contentType=\"text\"").count - 1 == 3 && mpd.components(separatedBy: "/v1/subtitles/p/0/").count - 1 == 2
                && mpd.contains("/v1/subtitles/\(SessionSubtitlePlaylist.empty)"), "a text AdaptationSet in every Period, the ad's empty")
    }

    /// An encrypted origin's other audio languages are kept as its sound is and served in each
    /// dialect: in HLS a rendition per language (the default first), each listing that language's
    /// segments per content run and the ad's sound in the break; in DASH an audio AdaptationSet
    /// per language, with its `lang`, in each content Period.
    @Test func anEncryptedOriginsLanguagesAreServed() async throws {
        let root = StoreFixture.folder("protected-hls-languages")
        defer { try? FileManager.default.removeItem(at: root) }
        let (origin, _, _, _) = try await ServeProtectedDASHTests.hlsOrigin(in: root, french: true)
        let ads = try midrollAdServer()
        defer { ads.stop(); origin.stop() }
        let store = try StoreFixture.store(root.appendingPathComponent("store")) { $0.contents = ["p": origin.url("/master.m3u8")] }
        let content = try await store.content("p")
        #expect(content.protectedCMAF?.audio?.language == "eng" && content.protectedCMAF?.languages?.map(\.language) == ["fra"], "\(content.notes)")
        let running = try RunningService(media: store, adsTemplate: ads.url("/vmap")) { c in c.contents = [ContentSource(name: "p", source: "origin")] }
        let (id, master) = try await Self.readySession(running)
        let audio = master.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-MEDIA:TYPE=AUDIO") }
        #expect(audio.count == 2 && audio[0].contains(#"LANGUAGE="eng""#) && audio[0].contains("DEFAULT=YES")
                && audio[1].contains(#"LANGUAGE="fra""#) && audio[1].contains("audio-1.m3u8?segments=cmaf"), "\(master)")
        let french = try await curl(running.url("/v1/sessions/\(id)/audio-1.m3u8?segments=cmaf")).text
        let runs = Self.runs(french)
        #expect(runs.count == 3 && runs[0].map.contains("/audio-1/") && runs[2].map == runs[0].map && runs[1].map.contains("/v1/segments/ads/"), "\(french)")
        for (n, run) in runs.enumerated() {
            var bytes = try await curl(running.url(run.map)).body
            for s in run.segments { bytes += try await curl(running.url(s)).body }
            let file = root.appendingPathComponent("fra\(n).mp4")
            try bytes.write(to: file)
            let decoded = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-xerror", "-i", file.path, "-f", "f32le", "-ac", "1", "-ar", "48000", "-"])
            let seconds = Double(decoded.stdout.count / 4) / 48_000
            #expect(decoded.status == 0 && abs(seconds - 2) <= 2 * 1024.0 / 48_000, "French run \(n): \(seconds) s \(decoded.stderr.prefix(200))")
        }
        let mpd = try await curl(running.url("/v1/sessions/\(id)/index.mpd")).text
        for chunk in mpd.components(separatedBy: "<Period ").dropFirst() where chunk.contains("content-") {
            #expect(chunk.contains(#"contentType="audio" mimeType="audio/mp4" lang="eng""#) && chunk.contains(#"contentType="audio" mimeType="audio/mp4" lang="fra""#),
                    "both languages in each content Period")
        }
        let file = root.appendingPathComponent("session.mpd")
        try Data(mpd.utf8).write(to: file)
        #expect(try await offPool { try DASHSchema.problems(file) } == [])
    }
}
