import Foundation
@testable import Serve
import TestSupport
import Testing
import Timing

/// Per-session playlists over the fixture store (6 s content segments, a mid-roll at 10 s):
/// parsed by PyPI's m3u8 and checked line by line; ads not ready left out (or filled with slate,
/// as configured) and the session's playlists never changing afterwards; Apple HLS
/// Interstitials with their asset lists per rendition.
@Suite struct ServePlaylistTests {
    static let adURL = "https://cdn.example/a1.mp4"

    func world(_ ready: Bool, configure: (inout ServeConfig) -> Void = { _ in }) async throws -> (HTTPTestServer, FixtureMedia, RunningService, String) {
        let ads = try HTTPTestServer()
        ads.route("/vmap", body: vmap(midroll: "00:00:10.000", vast(id: "a1", media: Self.adURL, tracker: ads.url("/t"), seconds: 6)))
        let media = try FixtureMedia()
        if ready { media.setAd(Self.adURL, .ready(FixtureMedia.adSegments("a1", rendition: "R", seconds: MediaTime(value: 5_005, timescale: 1000)), duration: MediaTime(value: 5_005, timescale: 1000))) }
        else { media.setAd(Self.adURL, .pending) }
        let s = try RunningService(media: media, adsTemplate: ads.url("/vmap"), configure: { $0.clock = .shared; configure(&$0) })
        let j = try #require(try await curl(s.url("/v1/session/main"), method: "POST", body: "{}").json)
        let id = String((j["manifestUrl"] as! String).dropFirst("/v1/sessions/".count).prefix { $0 != "/" })
        return (ads, media, s, id)
    }

    static let parse = """
        import sys, json, m3u8
        p = m3u8.loads(sys.stdin.read())
        print(json.dumps({"target": p.target_duration, "vod": p.playlist_type, "endlist": p.is_endlist,
          "segments": [{"uri": s.uri, "duration": s.duration, "discontinuity": s.discontinuity,
                        "cue_out": s.cue_out_start, "cue_in": s.cue_in} for s in p.segments],
          "variants": [{"uri": v.uri, "bw": v.stream_info.bandwidth, "res": list(v.stream_info.resolution or []),
                        "codecs": v.stream_info.codecs} for v in p.playlists]}))
        """

    func parsed(_ text: String) throws -> [String: Any]? {
        guard let out = try venvPython(Self.parse, stdin: text) else { return nil }
        return try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]
    }

    @Test func aSessionsMediaPlaylistCutsTheContentAndCarriesTheAd() async throws {
        let (ads, _, s, id) = try await world(true)
        defer { ads.stop() }
        let text = try await curl(s.url("/v1/sessions/\(id)/720p.m3u8")).text
        let lines = text.split(separator: "\n").map(String.init)
        #expect(Array(lines.prefix(6)).dropLast() == ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:6", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD"])
        #expect(lines.last == "#EXT-X-ENDLIST")
        let uris = lines.filter { !$0.hasPrefix("#") }
        #expect(uris.map { String($0.split(separator: "?")[0]) } == [
            "/v1/segments/content/720p/seg0.ts", "/v1/segments/content/720p/cut1-6-1.ts",
            "/v1/segments/ads/a1/720p/seg0.ts", "/v1/segments/ads/a1/720p/seg1.ts", "/v1/segments/ads/a1/720p/seg2.ts",
            "/v1/segments/content/720p/cut1-10-1.ts", "/v1/segments/content/720p/seg2.ts", "/v1/segments/content/720p/seg3.ts",
            "/v1/segments/content/720p/seg4.ts"])
        #expect(uris[2].hasPrefix("/v1/segments/ads/a1/720p/seg0.ts?s=\(id)&r=720p&b=0&a=0&k=0&t="))
        #expect(uris[2].split(separator: "=").last?.count == 16, "the beacon place signed")
        #expect(lines.filter { $0.hasPrefix("#EXTINF:") } == ["#EXTINF:6.000,", "#EXTINF:4.000,", "#EXTINF:2.000,", "#EXTINF:2.000,", "#EXTINF:1.005,",
                                                              "#EXTINF:2.000,", "#EXTINF:6.000,", "#EXTINF:6.000,", "#EXTINF:6.000,"])
        #expect(lines.filter { $0 == "#EXT-X-DISCONTINUITY" }.count == 2)
        #expect(lines.contains("#EXT-X-CUE-OUT:DURATION=5.005") && lines.contains("#EXT-X-CUE-IN"))
        let out = try #require(lines.first { $0.hasPrefix("#EXT-X-DATERANGE:ID=\"mid1\",START-DATE=") && $0.contains("SCTE35-OUT=0x") })
        #expect(out.contains("PLANNED-DURATION=5.005"))
        #expect(lines.contains { $0.hasPrefix("#EXT-X-DATERANGE:ID=\"mid1-ad-1\",CLASS=\"com.interlude.ad\"") && $0.contains("X-AD-ID=\"a1\"") })
        // The SCTE-35 splice time is the content's clock at the cut on the wire (shared clock):
        // the fixture's segments carry no timestamps to read, so it is the cut's content time
        // plus the packager's offset (10 + 1.4 s), decoded by threefive. (ServeEndToEndTests
        // compares it with the PTS the real segments carry.)
        let hex = String(out.split(separator: "=").last!)
        let reading = try SCTE35Reading.decode(hex)
        #expect(abs(reading.ptsTime - (10 + TSTimestamps.muxerOffset.seconds)) < 0.0001)
        if let p = try parsed(text) {
            let segs = try #require(p["segments"] as? [[String: Any]])
            #expect(segs.count == 9)
            #expect(segs.map { $0["discontinuity"] as? Bool } == [false, false, true, false, false, true, false, false, false])
            #expect(segs[2]["cue_out"] as? Bool == true)
            #expect(p["endlist"] as? Bool == true && p["vod"] as? String == "vod" && p["target"] as? Int == 6)
            let total = segs.compactMap { $0["duration"] as? Double }.reduce(0, +)
            #expect(abs(total - 35.005) < 0.0001)
        } else {
            Issue.record("no .build/pyenv with m3u8 (run `make setup`): the playlist was checked line by line only")
        }
        let master = try await curl(s.url("/v1/sessions/\(id)/master.m3u8")).text
        if let p = try parsed(master) {
            let v = try #require(p["variants"] as? [[String: Any]])
            #expect(v.count == 2)
            #expect(v[0]["uri"] as? String == "/v1/sessions/\(id)/720p.m3u8" && (v[0]["bw"] as? Int ?? 0) > 0)
            #expect(v[0]["res"] as? [Int] == [1280, 720] && v[0]["codecs"] as? String == "avc1.64001f,mp4a.40.2")
        }
    }

    @Test func anAdNotReadyIsLeftOutOrSlateAndTheSessionNeverChanges() async throws {
        // the default: left out of the session (MediaTailor's VOD behaviour); the cut stays
        let (ads, media, s, id) = try await world(false)
        defer { ads.stop() }
        let bare = try await curl(s.url("/v1/sessions/\(id)/360p.m3u8")).text
        #expect(!bare.contains("CUE-OUT") && !bare.contains("slate") && !bare.contains("/ads/"))
        #expect(bare.contains("cut1-10-1.ts"), "the content is cut at the cue all the same: one join, no break")
        // Ready now: this session's playlists do not change (RFC 8216 §6.2.1, VOD), in any
        // variant; the next session has the ad.
        media.setAd(Self.adURL, .ready(FixtureMedia.adSegments("a1", rendition: "R", seconds: MediaTime(seconds: 6)), duration: MediaTime(seconds: 6)))
        #expect(try await curl(s.url("/v1/sessions/\(id)/360p.m3u8")).text == bare)
        #expect(!(try await curl(s.url("/v1/sessions/\(id)/720p.m3u8")).text.contains("/ads/")))
        let next = try #require(try await curl(s.url("/v1/session/main"), method: "POST", body: "{}").json?["manifestUrl"] as? String)
        #expect(try await curl(s.url(next.replacingOccurrences(of: "master", with: "360p"))).text.contains("/v1/segments/ads/a1/360p/seg0.ts"))
        #expect(try await curl(s.url("/v1/sessions/\(id)/999p.m3u8")).status == 404)

        // configured: slate for the ad's declared duration
        let (ads2, _, s2, id2) = try await world(false) { $0.fill = .slate }
        defer { ads2.stop() }
        let text = try await curl(s2.url("/v1/sessions/\(id2)/360p.m3u8")).text
        #expect(!text.contains("/ads/"))
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("/v1/segments/slate/360p/") }.count == 3)
        #expect(text.contains("#EXT-X-CUE-OUT:DURATION=6.000"))
    }

    @Test func interstitialsLeaveTheContentUncutAndAnswerAnAssetList() async throws {
        let (ads, _, s, id) = try await world(true)
        defer { ads.stop() }
        let master = try await curl(s.url("/v1/sessions/\(id)/master.m3u8?mode=interstitials")).text
        #expect(master.contains("/v1/sessions/\(id)/720p.m3u8?mode=interstitials"))
        let text = try await curl(s.url("/v1/sessions/\(id)/720p.m3u8?mode=interstitials")).text
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.filter { !$0.hasPrefix("#") } == (0..<5).map { "/v1/segments/content/720p/seg\($0).ts" })
        let dr = try #require(lines.first { $0.hasPrefix("#EXT-X-DATERANGE:") })
        #expect(dr.contains("CLASS=\"com.apple.hls.interstitial\"") && dr.contains("X-ASSET-LIST=\"/v1/sessions/\(id)/assets/720p/0.json\""))
        #expect(lines.contains { $0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") })
        // each variant names its own rendition's asset list: a 360p viewer gets the 360p ad
        let low = try await curl(s.url("/v1/sessions/\(id)/360p.m3u8?mode=interstitials")).text
        #expect(low.contains("X-ASSET-LIST=\"/v1/sessions/\(id)/assets/360p/0.json\""))
        let lowList = try #require(try await curl(s.url("/v1/sessions/\(id)/assets/360p/0.json")).json?["ASSETS"] as? [[String: Any]])
        #expect(lowList.first?["URI"] as? String == "/v1/sessions/\(id)/ads/0/0/360p.m3u8")
        let list = try #require(try await curl(s.url("/v1/sessions/\(id)/assets/720p/0.json")).json)
        let assets = try #require(list["ASSETS"] as? [[String: Any]])
        #expect(assets.count == 1)
        #expect(assets[0]["URI"] as? String == "/v1/sessions/\(id)/ads/0/0/720p.m3u8" && assets[0]["DURATION"] as? Double == 5.005)
        let asset = try await curl(s.url("/v1/sessions/\(id)/ads/0/0/720p.m3u8")).text
        #expect(asset.contains("/v1/segments/ads/a1/720p/seg2.ts?s=\(id)&r=720p&b=0&a=0&k=2&t=") && asset.hasSuffix("#EXT-X-ENDLIST\n"))
        #expect(try await curl(s.url("/v1/sessions/\(id)/assets/7.json")).status == 404)
    }

    @Test func segmentPathsAreValidated() async throws {
        #expect(SegmentPath.isValid("content/720p/seg0.ts"))
        for bad in ["", "/etc/passwd", "../x", "a/../b", "a//b", "a/./b", "a\\b", "a b"] { #expect(!SegmentPath.isValid(bad), "\(bad)") }
        let (ads, _, s, _) = try await world(true)
        defer { ads.stop() }
        #expect(try await curl(s.url("/v1/segments/content/720p/seg0.ts")).text == "bytes of content/720p/seg0.ts")
        #expect(try await curl(s.url("/v1/segments/content/../../etc/passwd")).status == 404)
        #expect(try await curl(s.url("/v1/segments/%2Fetc/passwd")).status == 404)
        #expect(try await curl(s.url("/v1/segments/other/x.ts")).status == 404)
        #expect(try await curl(s.url("/v1/segments/content/720p/seg0.ts?o=abc")).status == 400)
        // issue 33's report: these numbers trapped the process (checked arithmetic on a shift)
        for query in ["o=-9223372036854775808", "o=-9223372036854775808&d=1", "o=9223372036854775807", "o=99999999999999999999",
                      "o=4294967296", "o=-4294967296", "o=0", "d=2", "c=99999.1", "c=" + String(repeating: "1.1,", count: 40)] {
            #expect(try await curl(s.url("/v1/segments/content/720p/seg0.ts?" + query)).status == 400, "\(query)")
        }
        #expect(try await curl(s.url("/v1/segments/content/720p/seg0.ts?o=-4294967295")).status == 200, "the largest shift back")
        #expect(try await curl(s.url("/health")).status == 200, "still up")
    }
}
