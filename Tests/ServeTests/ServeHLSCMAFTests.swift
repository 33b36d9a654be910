import Foundation
import Interlude
@testable import Serve
import TestSupport
import Testing
import Timing

/// Issue 34, item 2: a VOD session as HLS with CMAF segments (`?segments=cmaf`), over real HTTP
/// with the real store (the world of `ServeEndToEndTests`). Every playlist passes the RFC 8216
/// checker (the `curl` helper's); each run has its own `EXT-X-MAP`; each run's segments decoded
/// are the session's frames (content once and in order, the ad's 60 frames at the cut), on one
/// clock across the joins; the segments are the DASH MPD's (moved by `o=`); the field's HLS
/// clients play it.
@Suite(.serialized) struct ServeHLSCMAFTests {
    @Test func aSessionAsHLSWithCMAFSegments() async throws {
        let w = try ServeEndToEndTests.World()
        let (s, _) = try await w.readySession("A")
        let master = try await curl(w.running.url("/v1/sessions/\(s)/master.m3u8?segments=cmaf"))
        #expect(master.status == 200)
        #expect(master.text.contains(#"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio""#) && master.text.contains("avc3."))
        let video = try await curl(w.running.url("/v1/sessions/\(s)/180p.m3u8?segments=cmaf")).text
        let audio = try await curl(w.running.url("/v1/sessions/\(s)/audio.m3u8?segments=cmaf")).text
        for text in [video, audio] {
            #expect(text.components(separatedBy: "#EXT-X-MAP:").count - 1 == 1, "one map: ads carry their parameter sets in band (avc3)")
            #expect(text.components(separatedBy: "#EXT-X-DISCONTINUITY\n").count - 1 == 2)
            #expect(text.contains("#EXT-X-VERSION:6") || text.contains("#EXT-X-VERSION:7"))
        }
        #expect(video.contains("SCTE35-OUT") && video.contains("#EXT-X-CUE-OUT:DURATION=2.000"))
        // the same CMAF segments as the session's MPD (moved onto the stream clock by `o=`)
        let mpd = try await curl(w.running.url("/v1/sessions/\(s)/index.mpd"))
        for uri in ServeEndToEndTests.segmentURLs(video) {
            let path = String(uri.split(separator: "?")[0])
            #expect(mpd.text.contains("\"" + path + "\"") || mpd.text.contains("\"" + path + "?"), "\(uri)")
        }

        // the playlist's segments after its map, as one fMP4 track: decoded, and on one clock
        func track(_ playlist: String, _ name: String) async throws -> URL {
            var bytes = Data()
            for line in playlist.split(separator: "\n").map(String.init) {
                if line.hasPrefix("#EXT-X-MAP:URI=\"") { bytes += try await curl(w.running.url(String(line.dropFirst(16).dropLast()))).body }
                else if !line.hasPrefix("#") { bytes += try await curl(w.running.url(line)).body }
            }
            let file = w.root.appendingPathComponent(name)
            try bytes.write(to: file)
            return file
        }
        let file = try await track(video, "cmaf-180p.mp4")
        let sound = try await track(audio, "cmaf-audio.mp4")
        let ff = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-xerror", "-i", file.path, "-f", "null", "-"])
        #expect(ff.status == 0, "\(ff.stderr)")
        let pts = try await runOffPool(try Tools.ffprobePath(), ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts", "-of", "csv=p=0", file.path])
        let times = String(decoding: pts.stdout, as: UTF8.self).split(separator: "\n").compactMap { Int64($0) }.sorted()
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 == 3000 }, "one picture every 1/30 s across the joins")
        let frames = try await offPool {
            try MediaVerifier.videoFrames(file, reader: IdentityReader(output: PixelSize(width: 320, height: 180), sources: [PixelSize(width: 240, height: 180)]))
        }
        let ids = frames.map(\.identity)
        #expect(ids.compactMap { $0 }.filter { $0.sourceID == 3 }.map(\.frameIndex) == Array(0..<StoreFixture.frames))
        let cutAt = try #require(ids.firstIndex { $0 == FrameIdentity(sourceID: 3, frameIndex: 47) })
        #expect(cutAt - 47 == 60 && ids[cutAt - 1]?.sourceID != 3, "the ad's 60 frames at the cut")
        // A/V from the break on, the audio playlist's track against the video's, both as sent
        let (adStart, worst, others) = try await ServeEndToEndTests.syncFromTheBreak(frames, sound: sound, ad: 7)
        print(String(format: "serve vod hls-cmaf: content %d frames once in order, the ad's 60 frames at the cut (frame 47 is the first >= 1.55 s); A/V worst %.3f ms over %d flashes after the ad's first (its first %.3f ms)",
                     ids.compactMap { $0 }.filter { $0.sourceID == 3 }.count, worst * 1000, others, adStart * 1000))

        // the field's HLS clients, from the implicit route (not VLC 3: its adaptive module starts a
        // new MP4 demuxer at each discontinuity without the initialization segment, "Failed to
        // create demuxer (nil) MP4", with one map or a map per run alike; docs/SERVE.md)
        let url = URL(string: w.running.url("/v1/master/c/index.m3u8?v=A&segments=cmaf"))!
        for client in [FieldCheck.Client.ffmpeg, .gstreamer3, .mpv, .chromium] {
            let v = try await offPool { try FieldCheck.check(url, with: client, timeout: 120) }
            #expect(v.clean, "\(client): \(v.report)")
        }
    }
}
