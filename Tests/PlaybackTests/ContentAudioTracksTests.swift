import Foundation
import Interlude
import Media
import Testing
import Timing
import TestSupport
@testable import Playback

/// Issue 34 item 5: the stitch keeps every audio track of its content (`ContentAudioTracks`). A
/// content with three languages — English 440 Hz (the main one), French 1000 Hz, Spanish 1500 Hz
/// mono at 44.1 kHz — and two mid-rolls of an ad sounding 3000 Hz (at 2 s on a keyframe, at 5.5 s
/// inside a GOP), stitched with smart rendering and without: the MP4 has three audio tracks
/// (languages kept, the main one the default), each as long as the main one to the AAC frame,
/// each span of the timeline sounding its track's tone on content and the ad's in every track
/// during the ads, the switch to the ad and back at the main track's sample in each track; the
/// file decodes clean in `ffmpeg -xerror`.
@Suite(.serialized) struct ContentAudioTracksTests {
    static let dir: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-audio-tracks-\(getpid())")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()
    static let tones = [440.0, 1000, 1500], adTone = 3000.0

    static func content() throws -> URL {
        try TestMedia.generated("three-languages-8s.mp4", arguments: [
            "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:d=8",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:d=8",
            "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000:d=8",
            "-f", "lavfi", "-i", "sine=frequency=1500:sample_rate=44100:d=8",
            "-map", "0:v", "-map", "1:a", "-map", "2:a", "-map", "3:a", "-c:v", "libx264", "-preset", "veryfast", "-g", "30",
            "-sc_threshold", "0", "-pix_fmt", "yuv420p", "-c:a", "aac", "-ac:a:0", "2", "-ac:a:1", "2", "-ac:a:2", "1",
            "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", "-metadata:s:a:2", "language=spa", "-shortest"])
    }

    static func ad() throws -> URL {
        try TestMedia.generated("tone-ad-3000-2s.mp4", arguments: [
            "-f", "lavfi", "-i", "testsrc=size=320x180:rate=30:d=2", "-f", "lavfi", "-i", "sine=frequency=3000:sample_rate=48000:d=2",
            "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-ac", "2", "-shortest"])
    }

    /// Track `k`'s sound decoded, mono at 48 kHz.
    static func samples(_ url: URL, track k: Int) throws -> [Float] {
        let out = try Tools.ffmpeg(["-v", "error", "-i", url.path, "-map", "0:a:\(k)", "-f", "f32le", "-ac", "1", "-ar", "48000", "-"])
        return out.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// The power of frequency `f` in `x[range]` (Goertzel), per sample squared: the same for a tone whatever the window.
    static func power(_ x: [Float], _ range: Range<Int>, _ f: Double) -> Double {
        let w = 2 * Double.pi * f / 48000, c = 2 * cos(w)
        var s1 = 0.0, s2 = 0.0
        for i in range where x.indices.contains(i) { let s = Double(x[i]) + c * s1 - s2; s2 = s1; s1 = s }
        let n = Double(max(1, range.count))
        return (s1 * s1 + s2 * s2 - c * s1 * s2) / (n * n)
    }

    /// The tone of `[from, to)` seconds: which of `candidates` is loudest.
    static func tone(_ x: [Float], from: Double, to: Double, _ candidates: [Double]) -> Double {
        let r = Int(from * 48000)..<Int(to * 48000)
        return candidates.max { power(x, r, $0) < power(x, r, $1) }!
    }

    /// The tones of a package's audio playlist (decoded by ffmpeg) before, in and after a 2 s
    /// mid-roll at 2 s: 0.5–1.5 s, 2.5–3.5 s, 5–7 s.
    static func tones(of playlist: URL) async throws -> [Double] {
        let sound = try await offPool { () -> [Float] in
            let o = try Tools.ffmpeg(["-v", "error", "-i", playlist.path, "-f", "f32le", "-ac", "1", "-ar", "48000", "-"])
            return o.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        }
        let candidates = tones + [adTone]
        return [(0.5, 1.5), (2.5, 3.5), (5.0, 7.0)].map { tone(sound, from: $0.0, to: $0.1, candidates) }
    }

    /// The first sample, from `around - 0.1 s`, where the ad's tone passes half its power (or, `back`, falls under it).
    static func edge(_ x: [Float], around t: Double, back: Bool) -> Int? {
        let full = power(x, Int((back ? t - 0.5 : t + 0.2) * 48000)..<Int((back ? t - 0.2 : t + 0.5) * 48000), adTone)
        var i = Int((t - 0.1) * 48000)
        while i < Int((t + 0.1) * 48000) {
            let p = power(x, i..<(i + 128), adTone)
            if back ? p < full / 2 : p > full / 2 { return i }
            i += 32
        }
        return nil
    }

    @Test(arguments: [SmartRendering.on, .off]) func everyAudioTrackOfTheContentIsKept(smart: SmartRendering) async throws {
        let content = try Self.content(), ad = try Self.ad().path
        let out = Self.dir.appendingPathComponent("three-\(smart).mp4")
        var request = StitchRequest(content: content.path, breaks: [
            AdBreakRequest(id: "mid1", position: .time(MediaTime(seconds: 2)), ads: [ad]),
            AdBreakRequest(id: "mid2", position: .time(MediaTime(value: 11, timescale: 2)), ads: [ad]),
        ], output: out.path, encoder: EncoderSettings(preset: "ultrafast", crf: 30), overwrite: true)
        request.smart = smart
        let asked = request
        let result = try await offPool { try Stitcher(request: asked).run() }
        #expect(result.warnings.isEmpty, "\(result.warnings)")

        let probe = try await Tools.ffprobe(["-v", "error", "-select_streams", "a", "-count_packets", "-show_entries",
                                       "stream=nb_read_packets:stream_tags=language:stream_disposition=default", "-of", "csv=p=0", out.path])
        let rows = String(decoding: probe.stdout, as: UTF8.self).split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        #expect(rows.count == 3, "\(rows)")
        #expect(rows.map { $0.last } == ["eng", "fra", "spa"], "languages kept: \(rows)")
        #expect(rows.map { $0.count > 1 ? $0[1] : "" } == ["1", "0", "0"], "the main track the default: \(rows)")
        #expect(Set(rows.map { $0.first }).count == 1, "every track as long as the main one: \(rows)")
        let clean = try await Tools.ffmpeg(["-nostdin", "-v", "error", "-xerror", "-i", out.path, "-map", "0", "-f", "null", "-"])
        #expect(clean.stderr.isEmpty, "\(clean.stderr)")
        // and through `make test`'s field check: ffmpeg and GStreamer's playbin on the three-track file
        FieldCheck.keep(out, gstreamer: true)

        // each span's tone: content its track's, the ads the ad's in every track
        let tracks = try (0..<3).map { try Self.samples(out, track: $0) }
        let candidates = Self.tones + [Self.adTone]
        let ads = result.timeline.breaks.map { ($0.streamStart.seconds, $0.streamEnd.seconds) }
        #expect(ads.count == 2 && ads.allSatisfy { abs($0.1 - $0.0 - 2) < 0.05 }, "\(ads)")
        for (k, x) in tracks.enumerated() {
            for s in result.timeline.segments where s.streamEnd - s.streamStart > MediaTime(value: 1, timescale: 5) {
                let t = Self.tone(x, from: s.streamStart.seconds + 0.05, to: s.streamEnd.seconds - 0.05, candidates)
                #expect(t == Self.tones[k], "track \(k), content at \(s.streamStart.seconds) s: \(t) Hz")
            }
            for (a, b) in ads {
                #expect(Self.tone(x, from: a + 0.05, to: b - 0.05, candidates) == Self.adTone, "track \(k), ad at \(a) s")
            }
        }
        // the switches at the main track's sample in every track
        for (a, b) in ads {
            for (t, back) in [(a, false), (b, true)] {
                let main = Self.edge(tracks[0], around: t, back: back)
                for k in 1..<3 {
                    let other = Self.edge(tracks[k], around: t, back: back)
                    #expect(main != nil && other != nil && abs(main! - other!) <= 64, "track \(k) at \(t) s: \(String(describing: other)) vs \(String(describing: main))")
                }
            }
        }
    }

    /// A CMAF package of the same stitch (`--format hls --segments cmaf`, and its MPD): a track
    /// per language, the main one the default `EXT-X-MEDIA` and the others after it with their
    /// `LANGUAGE`, an audio AdaptationSet per language with its `lang`; the MPD valid against the
    /// DASH schema; ffmpeg and GStreamer's playbin3 play both manifests clean; the French playlist sounds
    /// 1000 Hz on content and the ad's 3000 Hz in the break.
    @Test func aCMAFPackageHasATrackPerLanguage() async throws {
        let content = try Self.content(), ad = try Self.ad().path
        let out = Self.dir.appendingPathComponent("three-cmaf")
        var request = StitchRequest(content: content.path, breaks: [AdBreakRequest(id: "mid1", position: .time(MediaTime(seconds: 2)), ads: [ad])],
                                    output: out.path, container: .hls, encoder: EncoderSettings(preset: "ultrafast", crf: 30), overwrite: true)
        request.hls.segmentFormat = .cmaf
        request.hls.segmentDuration = MediaTime(seconds: 2)
        let asked = request
        let result = try await offPool { try Stitcher(request: asked).run() }
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        let master = try String(contentsOf: out.appendingPathComponent("index.m3u8"), encoding: .utf8)
        let audio = master.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-MEDIA:TYPE=AUDIO") }
        #expect(audio.count == 3 && audio[0].contains("DEFAULT=YES") && audio[0].contains(#"LANGUAGE="eng""#)
                && audio[1].contains(#"LANGUAGE="fra""#) && audio[1].contains(#"URI="audio-1.m3u8""#) && audio[2].contains(#"LANGUAGE="spa""#), "\(master)")
        let mpd = out.appendingPathComponent("index.mpd")
        #expect(try await offPool { try DASHSchema.problems(mpd) } == [])
        let text = try String(contentsOf: mpd, encoding: .utf8)
        #expect(["eng", "fra", "spa"].allSatisfy { text.contains(#"contentType="audio" mimeType="audio/mp4" lang="\#($0)""#) }, "\(text)")
        for manifest in ["index.m3u8", "index.mpd"] {
            // (legacy `playbin` links one audio pad of several and stops "not-linked"; playbin3 selects)
            for client in [FieldCheck.Client.ffmpeg, .gstreamer3] {
                let verdict = try await offPool { try FieldCheck.check(out.appendingPathComponent(manifest), with: client) }
                #expect(verdict.clean, "\(manifest) \(client): \(verdict.report)")
            }
        }
        #expect(try await Self.tones(of: out.appendingPathComponent("audio-1.m3u8")) == [1000, Self.adTone, 1000],
                "the French track: its tone on content, the ad's in the break")
    }

    /// An MPEG-TS package keeps its `index.m3u8` (the media playlist, the main sound muxed) and
    /// adds each language, the main one too, as a packed-audio rendition cut at the same times,
    /// with the package's markers, and `master.m3u8` naming them (the main one the default);
    /// every playlist passes the RFC 8216 checker; ffmpeg, playbin, playbin3, VLC, mpv and
    /// Chromium's native HLS play the master clean; the Spanish rendition sounds 1500 Hz on content and the ad's 3000 Hz
    /// in the break, each segment's ID3 timestamp the first PTS of its variant segment's sound.
    @Test func anMPEGTSPackageHasARenditionPerLanguage() async throws {
        let content = try Self.content(), ad = try Self.ad().path
        let out = Self.dir.appendingPathComponent("three-ts")
        var request = StitchRequest(content: content.path, breaks: [AdBreakRequest(id: "mid1", position: .time(MediaTime(seconds: 2)), ads: [ad])],
                                    output: out.path, container: .hls, encoder: EncoderSettings(preset: "ultrafast", crf: 30), overwrite: true)
        request.hls.segmentDuration = MediaTime(seconds: 2)
        let asked = request
        let result = try await offPool { try Stitcher(request: asked).run() }
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        FieldCheck.keep(out.appendingPathComponent("master.m3u8"))
        let index = try String(contentsOf: out.appendingPathComponent("index.m3u8"), encoding: .utf8)
        #expect(!index.contains("#EXT-X-STREAM-INF") && index.contains("#EXT-X-CUE-OUT"), "index.m3u8 stays the media playlist")
        let master = try String(contentsOf: out.appendingPathComponent("master.m3u8"), encoding: .utf8)
        let audio = master.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-MEDIA:TYPE=AUDIO") }
        #expect(audio.count == 3 && audio[0].contains("DEFAULT=YES") && audio[0].contains(#"LANGUAGE="eng""#) && audio[0].contains(#"URI="audio.m3u8""#)
                && audio[1].contains(#"LANGUAGE="fra""#) && audio[1].contains(#"URI="audio-1.m3u8""#)
                && audio[2].contains(#"LANGUAGE="spa""#) && audio[2].contains(#"URI="audio-2.m3u8""#), "\(master)")
        #expect(master.contains(#"AUDIO="audio""#) && master.contains("\nindex.m3u8\n") && master.contains("RESOLUTION=320x180"))
        let spanish = try String(contentsOf: out.appendingPathComponent("audio-2.m3u8"), encoding: .utf8)
        func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("#EXTINF") || $0.hasPrefix("#EXT-X-CUE") || $0.hasPrefix("#EXT-X-DISCONTINUITY") } }
        #expect(lines(spanish) == lines(index), "the same segments, discontinuities and markers as the video's")
        for name in ["index.m3u8", "master.m3u8", "audio.m3u8", "audio-1.m3u8", "audio-2.m3u8"] {
            let text = try String(contentsOf: out.appendingPathComponent(name), encoding: .utf8)
            #expect(RFC8216.check(playlist: text).isEmpty, "\(name): \(RFC8216.check(playlist: text))")
        }
        // each Spanish segment packed audio whose ID3 timestamp is where its variant segment's muxed sound starts
        let audioSegments = spanish.split(separator: "\n").filter { $0.hasSuffix(".aac") }.map(String.init)
        let videoSegments = index.split(separator: "\n").filter { $0.hasSuffix(".ts") }.map(String.init)
        #expect(audioSegments.count == videoSegments.count && audioSegments.first == "audio-2-00000.aac")
        for (a, v) in zip(audioSegments, videoSegments) {
            let packed = [UInt8](try Data(contentsOf: out.appendingPathComponent(a)))
            let owner = Array(PackedAudio.timestampOwner.utf8) + [0]
            let at = try #require((0..<min(packed.count, 128)).first { Array(packed[$0..<min(packed.count, $0 + owner.count)]) == owner })
            let stamp = packed[(at + owner.count)..<(at + owner.count + 8)].reduce(Int64(0)) { $0 << 8 | Int64($1) }
            let probe = try await Tools.ffprobe(["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pts", "-of", "csv=p=0",
                                                 out.appendingPathComponent(v).path])
            let muxed = String(decoding: probe.stdout, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "," }).compactMap { Int64($0) }.min()
            #expect(stamp == muxed, "\(a): ID3 timestamp \(stamp), \(v)'s sound from \(String(describing: muxed))")
            #expect(packed.count > 200 && packed[(at + owner.count + 8)] == 0xFF, "ADTS after the tag")
        }
        // (VLC 3.0 among them because the main language is a rendition too: beside a variant's
        // muxed sound it loses its clock, "Could not convert timestamp 0"; docs/HLS.md)
        for client in [FieldCheck.Client.ffmpeg, .gstreamer, .gstreamer3, .vlc, .mpv, .chromium] {
            let verdict = try await offPool { try FieldCheck.check(out.appendingPathComponent("master.m3u8"), with: client) }
            #expect(verdict.clean, "master \(client): \(verdict.report)")
        }
        #expect(try await Self.tones(of: out.appendingPathComponent("audio-2.m3u8")) == [1500, Self.adTone, 1500],
                "the Spanish rendition: its tone on content, the ad's in the break")
    }

    /// A content of ten audio streams keeps the main one and eight others, and says so.
    @Test func atMostEightOtherTracksAreKept() async throws {
        var arguments = ["-f", "lavfi", "-i", "testsrc2=size=160x90:rate=30:d=2"]
        for k in 0..<10 { arguments += ["-f", "lavfi", "-i", "sine=frequency=\(300 + 100 * k):sample_rate=48000:d=2"] }
        arguments += ["-map", "0:v"] + (1...10).flatMap { ["-map", "\($0):a"] }
        arguments += ["-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"]
        let content = try await TestMedia.generated("ten-audio-streams-2s.mp4", arguments: arguments)
        let out = Self.dir.appendingPathComponent("ten.mp4")
        let request = StitchRequest(content: content.path, breaks: [AdBreakRequest(id: "mid", position: .time(MediaTime(seconds: 1)), ads: [try Self.ad().path])],
                                    output: out.path, encoder: EncoderSettings(preset: "ultrafast", crf: 30), overwrite: true)
        let result = try await offPool { try Stitcher(request: request).run() }
        #expect(result.warnings == ["the content has 10 audio tracks: the first 9 are kept"], "\(result.warnings)")
        let probe = try await Tools.ffprobe(["-v", "error", "-select_streams", "a", "-show_entries", "stream=index", "-of", "csv=p=0", out.path])
        #expect(String(decoding: probe.stdout, as: UTF8.self).split(separator: "\n").count == 9)
    }
}
