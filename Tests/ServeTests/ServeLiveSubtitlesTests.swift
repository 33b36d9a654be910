import Foundation
import Manifest
@testable import Serve
import TestSupport
import Testing
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
