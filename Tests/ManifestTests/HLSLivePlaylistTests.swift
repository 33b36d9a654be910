import Foundation
import Manifest
import Testing
import Timing

/// The live playlist keeps RFC 8216 §6.2.1–6.2.2 across every version it is read in: read back
/// through the parser, each segment keeps its media sequence number, URI, duration, tags and
/// discontinuity sequence number; the window never drops under three target durations once it
/// has that much; the target never changes and a longer segment is refused.
@Suite struct HLSLivePlaylistTests {
    /// A segment seen in one version: its media sequence number → (URI, EXTINF, DSN).
    struct Seen: Equatable { var uri: String; var duration: MediaTime; var dsn: Int; var markers: [HLS.Marker] }

    func read(_ text: String) throws -> (HLS.MediaPlaylist, [Int: Seen]) {
        guard case .media(let p) = try HLS.parse(text) else { throw HLS.ParseError(line: 0, reason: "not media") }
        var seen: [Int: Seen] = [:]
        for (i, s) in p.segments.enumerated() {
            seen[p.mediaSequence + i] = Seen(uri: s.uri, duration: s.duration, dsn: p.discontinuitySequenceNumber(ofSegment: i), markers: s.markers)
        }
        return (p, seen)
    }

    @Test func everyVersionAgreesWithEveryEarlierOne() throws {
        var live = HLS.LivePlaylist(targetDuration: 6, keeping: MediaTime(seconds: 12))
        var history: [Int: Seen] = [:]
        var lastTarget: Int?
        var lastSequence = 0
        // content 2 s, then ads (6 s segments) and slate pieces (1 s) with discontinuities, over and over
        var pattern: [(String, MediaTime, Bool)] = []
        for b in 0..<6 {
            for c in 0..<5 { pattern.append(("c\(b)-\(c).ts", MediaTime(seconds: 2), c == 0 && b > 0)) }
            pattern.append(("ad\(b)-0.ts", MediaTime(seconds: 6), true))
            pattern.append(("ad\(b)-1.ts", MediaTime(value: 3003, timescale: 1000), false))
            pattern.append(("slate\(b).ts", MediaTime(seconds: 1), true))
        }
        for (i, (uri, d, disc)) in pattern.enumerated() {
            try live.append(HLS.Segment(uri: uri, duration: d, discontinuity: disc, markers: disc ? [.cueIn] : []))
            let (p, seen) = try read(live.text)
            #expect(p.targetDuration == 6)
            if let t = lastTarget { #expect(t == p.targetDuration) }
            lastTarget = p.targetDuration
            #expect(p.mediaSequence >= lastSequence)
            lastSequence = p.mediaSequence
            for (msn, s) in seen {
                if let before = history[msn] { #expect(before == s, "segment \(msn) changed in version \(i)") }
                history[msn] = s
            }
            #expect(p.mediaSequence + p.segments.count == i + 1, "segments only appended at the end")
            if i >= 10 { #expect(p.duration >= MediaTime(seconds: 18), "window under 3 target durations in version \(i)") }
        }
        #expect(live.window.first!.sequence > 20)   // it did slide
    }

    @Test func aSegmentOverTheTargetIsRefusedAndAnEndedPlaylistIsFrozen() throws {
        var live = HLS.LivePlaylist(targetDuration: 2)
        #expect(throws: HLS.LivePlaylist.AppendError.overTarget(uri: "long.ts", seconds: 2.5, target: 2)) {
            try live.append(HLS.Segment(uri: "long.ts", duration: MediaTime(value: 5, timescale: 2)))
        }
        try live.append(HLS.Segment(uri: "ok.ts", duration: MediaTime(value: 249, timescale: 100)))   // 2.49 rounds to 2
        live.end()
        #expect(live.text.hasSuffix("#EXT-X-ENDLIST\n"))
        #expect(throws: HLS.LivePlaylist.AppendError.ended) { try live.append(HLS.Segment(uri: "late.ts", duration: MediaTime(seconds: 1))) }
        #expect(throws: HLS.LivePlaylist.AppendError.badURI) {
            var other = HLS.LivePlaylist(targetDuration: 2)
            try other.append(HLS.Segment(uri: "a\nb", duration: MediaTime(seconds: 1)))
        }
    }

    @Test func theFirstSegmentKeepsItsDiscontinuityTagAndNumber() throws {
        var live = HLS.LivePlaylist(targetDuration: 1)
        for i in 0..<8 { try live.append(HLS.Segment(uri: "s\(i).ts", duration: MediaTime(seconds: 1), discontinuity: i % 2 == 1)) }
        // the window is the last three; s5 starts it with its tag
        let (p, _) = try read(live.text)
        #expect(p.segments.map(\.uri) == ["s5.ts", "s6.ts", "s7.ts"])
        #expect(p.mediaSequence == 5)
        #expect(p.discontinuitySequence == 2)   // s1, s3 slid out; s5's own tag stays
        #expect(p.discontinuitySequenceNumber(ofSegment: 0) == 3 && p.discontinuitySequenceNumber(ofSegment: 2) == 4)
    }

    @Test func aDateRangeStaysWhileItCoversAListedSegment() throws {
        var live = HLS.LivePlaylist(targetDuration: 2)
        let t0 = Date(timeIntervalSince1970: 1_000)
        let range = HLS.DateRange(id: "ad", startDate: t0.addingTimeInterval(2), duration: MediaTime(seconds: 6))
        for i in 0..<12 {
            try live.append(HLS.Segment(uri: "s\(i).ts", duration: MediaTime(seconds: 2), programDateTime: t0.addingTimeInterval(Double(2 * i)),
                                        markers: i == 1 ? [.dateRange(range)] : []))
            let (p, _) = try read(live.text)
            let listed = p.segments.flatMap(\.markers).contains(.dateRange(range))
            // the range runs from 2 s to 8 s: its dates map to s1…s3 and, its end instant, s4
            let covers = p.segments.contains { ["s1.ts", "s2.ts", "s3.ts", "s4.ts"].contains($0.uri) }
            if i >= 1 { #expect(listed == covers, "version \(i): listed \(listed), covers \(covers)") }
        }
    }

    /// RFC 8216 §6.2.3: the key in force at each listed segment never changes as the window
    /// slides: the `EXT-X-KEY` (or `METHOD=NONE`) of a segment slid out is written again before
    /// the first listed one; kept as JSON, it reads back the same.
    @Test func theKeyInForceStaysInForceAsTheWindowSlides() throws {
        var live = HLS.LivePlaylist(targetDuration: 2)
        let key = HLS.Key(method: .aes128, uri: "https://k.example/key", iv: [UInt8](repeating: 7, count: 16))
        var history: [Int: HLS.Key?] = [:]
        // two encrypted, three clear (an ad), two encrypted again: the tags where the key changes, over and over
        for i in 0..<21 {
            let phase = i % 7
            let tag: HLS.Key? = phase == 0 || phase == 5 ? key : phase == 2 ? HLS.Key.none : nil
            try live.append(HLS.Segment(uri: "s\(i).ts", duration: MediaTime(seconds: 1), key: tag))
            guard case .media(let p) = try HLS.parse(live.text) else { Issue.record("not media"); return }
            for (k, inForce) in p.keysInForce.enumerated() {
                let n = p.mediaSequence + k
                let want = (2..<5).contains(n % 7) ? nil : key
                #expect(inForce == want, "version \(i): segment \(n) under \(String(describing: inForce))")
                if let before = history[n] { #expect(before == inForce) }
                history[n] = inForce
            }
        }
        #expect(live.window.first!.sequence > 10)
        let back = try JSONDecoder().decode(HLS.LivePlaylist.self, from: try JSONEncoder().encode(live))
        #expect(back == live && back.text == live.text)
    }

    /// A live playlist kept as JSON (a fleet's live viewer in Redis) reads back as the same
    /// playlist and goes on the same way; a record that would break its rules is refused.
    @Test func aPlaylistKeptAsJSONReadsBackTheSameAndAPlantedOneIsRefused() throws {
        var live = HLS.LivePlaylist(targetDuration: 6, keeping: MediaTime(seconds: 12), firstSequence: 40)
        let range = HLS.DateRange(id: "b1", startDate: Date(timeIntervalSince1970: 1_000), duration: MediaTime(seconds: 30),
                                  scte35Out: [0xFC, 0x30])
        for i in 0..<9 {
            var seg = HLS.Segment(uri: "/s\(i).ts", duration: MediaTime(value: 6_006, timescale: 1_000), discontinuity: i % 3 == 0,
                                  programDateTime: Date(timeIntervalSince1970: 1_000 + Double(i) * 6.006))
            if i == 1 { seg.markers = [.dateRange(range), .cueOut(duration: MediaTime(seconds: 30))] }
            try live.append(seg)
        }
        let data = try JSONEncoder().encode(live)
        var back = try JSONDecoder().decode(HLS.LivePlaylist.self, from: data)
        #expect(back == live && back.text == live.text)
        let next = HLS.Segment(uri: "/s9.ts", duration: MediaTime(seconds: 4), programDateTime: Date(timeIntervalSince1970: 1_060))
        try live.append(next)
        try back.append(next)
        #expect(back.text == live.text, "the copy goes on as the original does")

        // planted: each change below makes a playlist `append` could never have made
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        func refused(_ change: (inout [String: Any]) -> Void) -> Bool {
            var o = object
            change(&o)
            guard let d = try? JSONSerialization.data(withJSONObject: o) else { return false }
            return (try? JSONDecoder().decode(HLS.LivePlaylist.self, from: d)) == nil
        }
        #expect(refused { $0["targetDuration"] = 0 })
        #expect(refused { $0["minimumDuration"] = [6, 1] })
        #expect(refused { $0["firstSequence"] = -1 })
        #expect(refused { $0["published"] = Int.max })
        #expect(refused { o in
            var w = o["window"] as! [[String: Any]]
            w[1]["sequence"] = 7
            o["window"] = w
        })
        #expect(refused { o in
            var w = o["window"] as! [[String: Any]]
            var seg = w[0]["segment"] as! [String: Any]
            seg["duration"] = [3600, 1]
            w[0]["segment"] = seg
            o["window"] = w
        })
        #expect(refused { o in
            var w = o["window"] as! [[String: Any]]
            var seg = w[0]["segment"] as! [String: Any]
            seg["duration"] = [1, 0]
            w[0]["segment"] = seg
            o["window"] = w
        })
        #expect(refused { o in
            var w = o["window"] as! [[String: Any]]
            var seg = w[0]["segment"] as! [String: Any]
            seg["uri"] = "a\nb"
            w[0]["segment"] = seg
            o["window"] = w
        })
    }
}
