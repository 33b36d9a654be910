import Foundation
@testable import Serve
import TestSupport
import Testing
import Threads
import Timing

/// A live HLS origin of demuxed CMAF whose audio rendition misbehaves, followed by a
/// `LiveChannel`: the master served here (the test origin's `/demuxed/` one, its URIs made
/// absolute, the audio rendition's playlist switched by `mode`), everything else from the test
/// origin (`LiveOrigin(dash: true)`). A video segment waits for its sound; a rendition that is
/// gone is logged once and, after `fetchAttempts` × 2 polls, the video goes on without it; the
/// sound that comes back is muxed in again; an MPEG-TS audio rendition is said once.
@Suite(.serialized) struct ServeLiveAudioRenditionTests {
    @Test func videoWaitsForItsSoundAndGoesOnWithoutARenditionThatIsGone() async throws {
        let media = try await offPool { try LiveOriginMedia.make(seconds: 30) }
        let origin = try LiveOrigin(media: media, windowSize: 6, initialSegments: 4, dash: true)
        defer { origin.stop() }
        let server = try HTTPTestServer()
        defer { server.stop() }
        let mode = Locked("gone")
        server.setHandler { request in
            let m = mode.withLock { $0 }
            switch request.path {
            case "/master.m3u8":
                let master = origin.demuxedMaster()
                    .replacingOccurrences(of: "URI=\"a.m3u8\"", with: "URI=\"\(server.url("/a.m3u8"))\"")
                    .replacingOccurrences(of: "\nv0.m3u8", with: "\n" + origin.url("/demuxed/v0.m3u8"))
                return HTTPTestServer.Response(body: master, contentType: "application/vnd.apple.mpegurl")
            case "/a.m3u8" where m == "whole":
                let text = origin.demuxedAudioPlaylist()
                    .replacingOccurrences(of: "../dash/", with: origin.url("/dash/"))
                return HTTPTestServer.Response(body: text, contentType: "application/vnd.apple.mpegurl")
            case "/a.m3u8" where m == "ts":
                return HTTPTestServer.Response(body: "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\n\(origin.url("/r0/seg/0.ts"))\n",
                                               contentType: "application/vnd.apple.mpegurl")
            default:
                return HTTPTestServer.Response(status: 404, body: "gone", contentType: "text/plain")
            }
        }
        let folder = StoreFixture.folder("live-audio-rendition")
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = LineBox()
        let channel = try LiveChannel(name: "d", source: server.url("/master.m3u8"), folder: folder, log: ServeLog { log.append($0) })
        func taken() async -> [LiveSegment] { await channel.window(rendition: "v0")?.segments ?? [] }
        func faults(_ kind: String) -> [String] { log.all.filter { $0.contains("\"live_origin_fault\"") && $0.contains("\"kind\":\"\(kind)\"") } }
        func sound(_ s: LiveSegment) async throws -> Int {
            let out = try await Tools.ffprobe(["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pts", "-of", "csv=p=0",
                                               folder.appendingPathComponent(s.storePath).path])
            return String(decoding: out.stdout, as: UTF8.self).split(separator: "\n").count
        }

        // the rendition gone: the video waits, the fault said once
        try? await channel.poll()
        #expect(await taken().isEmpty)
        #expect(faults("playlist_unavailable").count == 1 && faults("playlist_unavailable")[0].contains("\"rendition\":\"audio\""), "\(log.all)")
        // … and after fetchAttempts × 2 polls goes on without it, said once
        for _ in 0..<(LiveChannel.fetchAttempts * 2) { try? await channel.poll() }
        let alone = await taken()
        #expect(!alone.isEmpty, "\(log.all)")
        #expect(log.all.filter { $0.contains("taken with the sound there is") }.count == 1, "\(log.all)")
        if let first = alone.first { #expect(try await sound(first) == 0, "no sound to mux") }
        // the sound back: the next segments carry it
        mode.withLock { $0 = "whole" }
        origin.advance(segments: 2)
        for _ in 0..<3 { try? await channel.poll() }
        let after = await taken().filter { s in !alone.contains { $0.sequence == s.sequence } }
        #expect(!after.isEmpty, "\(log.all)")
        for s in after { #expect(try await sound(s) > 80, "segment \(s.sequence) carries the rendition's sound") }
        // an MPEG-TS rendition is not read live: said once
        mode.withLock { $0 = "ts" }
        origin.advance(segments: 1)
        for _ in 0..<2 { try? await channel.poll() }
        #expect(faults("segment_unreadable").filter { $0.contains("MPEG-TS audio rendition") }.count == 1, "\(log.all)")
    }

    /// MPEG-TS variants (their own sound muxed) with an `AUDIO` group of CMAF renditions: the
    /// other language cannot be muxed into them, so it is said once and not offered, and the
    /// variant's segments go on; the group's renditions are never followed (nothing would mux
    /// them: none of their playlists or segments is read, said once).
    @Test func otherLanguagesOfMPEGTSVariantsAreSaidOnceAndNotOffered() async throws {
        let media = try await offPool { try LiveOriginMedia.make(seconds: 30) }
        let origin = try LiveOrigin(media: media, windowSize: 6, initialSegments: 4, dash: true, secondLanguage: true)
        defer { origin.stop() }
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.route("/master.m3u8", body: """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="\(origin.url("/demuxed/a.m3u8"))"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="Deutsch",LANGUAGE="de",AUTOSELECT=YES,URI="\(origin.url("/demuxed/a2.m3u8"))"
            #EXT-X-STREAM-INF:BANDWIDTH=400000,RESOLUTION=320x180,CODECS="avc1.64000d,mp4a.40.2",AUDIO="aud"
            \(origin.url("/live.m3u8"))

            """)
        let folder = StoreFixture.folder("live-ts-languages")
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = LineBox()
        let channel = try LiveChannel(name: "t", source: server.url("/master.m3u8"), folder: folder, log: ServeLog { log.append($0) })
        for _ in 0..<3 {
            try? await channel.poll()
            origin.advance()
        }
        #expect(await channel.languages.isEmpty)
        #expect(await channel.renditionNames == ["v0"])
        #expect(await (channel.window(rendition: "v0")?.segments.count ?? 0) >= 4, "\(log.all)")
        let said = log.all.filter { $0.contains("\"live_origin_fault\"") && $0.contains("the variants are MPEG-TS") }
        #expect(said.count == 1 && said[0].contains("\"rendition\":\"a1\""), "\(log.all)")
        let notFollowed = log.all.filter { $0.contains("\"live_origin_note\"") && $0.contains("renditions are not followed") }
        #expect(notFollowed.count == 1, "\(log.all)")
        let audio = origin.requests.filter { $0.path.hasPrefix("/demuxed/") || $0.path.hasPrefix("/dash/a") }
        #expect(audio.isEmpty, "no audio rendition read: \(audio.map(\.path))")
        let kept = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("live/\(channel.storeName)/.audio").path)) ?? []
        #expect(kept.isEmpty, "audio files left: \(kept)")
    }
}
