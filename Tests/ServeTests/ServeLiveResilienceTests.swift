import Foundation
import Interlude
import Playback
@testable import Serve
import TestSupport
import Testing
import Timing

/// `interlude serve --live` over a hostile origin (`LiveOrigin` with `LiveOriginFault`s): its
/// media sequence goes back, resets, turns huge, negative, garbage or random; its PTS jump back,
/// reset, repeat or go random (with and without `EXT-X-DISCONTINUITY`); an `EXTINF` is 0 or over
/// the target, the target changes; segments 404 every other time or for good; in-band SCTE-35
/// sections are huge, far off or have `splice_command_length` 0xFFF. For each, stepped by hand:
/// the viewer's playlist keeps growing by at least 80 % of the origin's new seconds after the
/// fault, every segment it lists downloads, decoded frames rise in PTS and content frame, the
/// fault is logged exactly once, and every refresh passes the RFC 8216 checks (`curl`). And an
/// origin repeating its signals (every segment, in three forms at once) gets one ad request per
/// break.
@Suite(.serialized) struct ServeLiveResilienceTests {
    typealias Rig = ServeLiveSessionTests.Rig

    /// A service following a (hostile) origin, its log lines kept; the ad server has no fill
    /// (breaks are slate).
    static func rig(faults: [LiveOriginFault] = [], breaks: [LiveOriginBreak] = [], seconds: Int = 60) async throws -> Rig {
        try await Rig.start(breaks: breaks, seconds: seconds, vast: HTTPTestServer.Response(body: Data("<VAST version=\"4.1\"/>".utf8)), faults: faults)
    }

    typealias Entry = ServeLiveSessionTests.Entry

    /// What a viewer saw following the origin step by step.
    struct Followed {
        var entries: [Entry]
        var playlist: URL
        /// Seconds listed (distinct entries) after each step.
        var listed: [Double]
        /// Polls that threw (the channel could not read the origin).
        var failedPolls: Int
    }

    /// Follows `playlist` as a player does: at each of `steps`, the playlist and every new
    /// segment in it downloaded (each must answer 200); then the origin publishes one more
    /// segment and the channel polls. A poll that throws is counted, not fatal (the channel must
    /// go on by itself).
    static func follow(_ rig: Rig, playlist: String, steps: Int, into folder: URL) async throws -> Followed {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var seen: [Int: Entry] = [:]
        var listed: [Double] = []
        var failed = 0
        for _ in 0...steps {
            let text = try await curl(rig.url(playlist)).text
            for e in ServeLiveSessionTests.entries(text) {
                if let old = seen[e.sequence] { #expect(old.uri == e.uri, "media sequence \(e.sequence) changed between refreshes"); continue }
                seen[e.sequence] = e
                let r = try await curl(rig.url(e.uri))
                #expect(r.status == 200, "\(e.uri): \(r.status)")
                try r.body.write(to: folder.appendingPathComponent("s\(e.sequence).ts"))
            }
            listed.append(seen.values.reduce(0) { $0 + (Double($1.duration) ?? 0) })
            rig.origin.advance()
            do { try await rig.channel.poll() } catch { failed += 1 }
        }
        let ordered = seen.keys.sorted().map { seen[$0]! }
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:8", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD"]
        for (i, e) in ordered.enumerated() {
            if i > 0 && e.tags.contains("#EXT-X-DISCONTINUITY") { lines.append("#EXT-X-DISCONTINUITY") }
            lines += ["#EXTINF:\(e.duration),", "s\(e.sequence).ts"]
        }
        lines.append("#EXT-X-ENDLIST")
        let url = folder.appendingPathComponent("index.m3u8")
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        return Followed(entries: ordered, playlist: url, listed: listed, failedPolls: failed)
    }

    /// One hostile origin and what the service must make of it.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var fault: LiveOriginFault
        /// The `kind` of the one `live_origin_fault` line expected.
        var logged: String
        /// Breaks the origin signals (one ad request each).
        var breaks = 0
        /// Content frames the viewer does not see: a skipped segment's, a break's (slate).
        var missing: Range<Int> = 0..<0
        var testDescription: String { name }
    }

    /// The fault sits at content segment 8: published at step 4 (five segments at the start).
    static let at = 8
    static let steps = 18

    static let cases: [Case] = [
        Case(name: "media sequence back by 3", fault: LiveOriginFault(at: at, .sequenceBack(3)), logged: "media_sequence"),
        Case(name: "media sequence reset to 0 (origin restart)", fault: LiveOriginFault(at: at, .sequenceReset), logged: "media_sequence"),
        Case(name: "media sequence over 2^48", fault: LiveOriginFault(at: at, .sequenceHuge), logged: "media_sequence"),
        Case(name: "media sequence negative", fault: LiveOriginFault(at: at, .sequenceNegative), logged: "media_sequence"),
        Case(name: "media sequence garbage", fault: LiveOriginFault(at: at, .sequenceGarbage), logged: "media_sequence"),
        Case(name: "media sequence random", fault: LiveOriginFault(at: at, .sequenceRandom), logged: "media_sequence"),
        Case(name: "PTS back 10 s", fault: LiveOriginFault(at: at, .ptsBack(MediaTime(seconds: 10))), logged: "pts_jump"),
        Case(name: "PTS back 10 s at a discontinuity", fault: LiveOriginFault(at: at, .ptsBack(MediaTime(seconds: 10)), discontinuity: true), logged: "pts_jump"),
        Case(name: "PTS reset to 0", fault: LiveOriginFault(at: at, .ptsReset), logged: "pts_jump"),
        Case(name: "PTS reset to 0 at a discontinuity", fault: LiveOriginFault(at: at, .ptsReset, discontinuity: true), logged: "pts_jump"),
        Case(name: "PTS of the segment before repeated", fault: LiveOriginFault(at: at, .ptsRepeat), logged: "pts_jump"),
        Case(name: "PTS random", fault: LiveOriginFault(at: at, .ptsRandom), logged: "pts_jump"),
        Case(name: "PTS random at discontinuities", fault: LiveOriginFault(at: at, .ptsRandom, discontinuity: true), logged: "pts_jump"),
        Case(name: "EXTINF 0", fault: LiveOriginFault(at: at, .extinfZero), logged: "bad_extinf", missing: 480..<540),
        Case(name: "EXTINF over the target", fault: LiveOriginFault(at: at, .extinfOverTarget), logged: "bad_extinf", missing: 480..<540),
        Case(name: "target duration 2 -> 4", fault: LiveOriginFault(at: at, .targetDuration4), logged: "target_duration"),
        Case(name: "segments 404 every other time", fault: LiveOriginFault(at: at, .alternate404), logged: "segment_unavailable"),
        Case(name: "a segment 404 for good", fault: LiveOriginFault(at: at, .gone404), logged: "segment_unavailable", missing: 480..<540),
        Case(name: "playlist 503 for three polls", fault: LiveOriginFault(at: at, .playlistUnavailable(requests: 3)), logged: "playlist_unavailable"),
        Case(name: "huge SCTE-35 sections", fault: LiveOriginFault(at: at, .hugeSections), logged: "signal_ignored"),
        Case(name: "SCTE-35 splice PTS hours away", fault: LiveOriginFault(at: at, .farSplicePTS), logged: "signal_ignored"),
        Case(name: "SCTE-35 splice_command_length 0xFFF", fault: LiveOriginFault(at: at, .commandLengthFFF), logged: "signal_ignored",
             breaks: 1, missing: 510..<750),
    ]

    @Test(arguments: cases)
    func theViewerKeepsGoing(_ c: Case) async throws {
        let rig = try await Self.rig(faults: [c.fault])
        defer { rig.stop() }
        try await rig.channel.poll()
        guard let variant = try await ServeLiveSessionTests.startSession(rig) else { return }
        let f = try await Self.follow(rig, playlist: variant, steps: Self.steps, into: rig.root.appendingPathComponent("viewer"))
        // the origin published one 2 s segment a step; the fault's segment went out at step 4
        let faultStep = Self.at - 5 + 1
        let originNew = Double(Self.steps - faultStep) * 2
        let gained = f.listed[Self.steps] - f.listed[faultStep]
        print("resilience \(c.name): gained \(gained) s of \(originNew) s after the fault; failed polls \(f.failedPolls); logged \(rig.loggedFaults)")
        #expect(gained >= 0.8 * originNew, "\(c.name): the viewer gained \(gained) s while the origin published \(originNew) s (\(f.listed))")
        #expect(rig.loggedFaults[c.logged] == 1, "\(c.name): logged \(rig.loggedFaults)")
        let asked = rig.ads.requests.filter { $0.target.hasPrefix("/vast.xml") }.count
        #expect(asked == c.breaks, "\(c.name): \(asked) ad requests \(rig.ads.requests.map(\.target)) \(rig.log.all.filter { $0.contains("fault") })")
        let shown = try await ServeLiveSessionTests.shown(f.playlist, contentSource: rig.origin.media.sourceID)
        let content = shown.compactMap { if case .content(let n) = $0 { n } else { nil } }
        #expect(content.count > 30 * 20, "\(c.name): \(content.count) content frames decoded")
        // every content frame once, in order, but those the fault took away
        if let first = content.first, let last = content.last {
            let want = (first...last).filter { !c.missing.contains($0) }
            if let i = want.indices.first(where: { $0 >= content.count || content[$0] != want[$0] }) {
                Issue.record("\(c.name): frame \(i) shows content \(i < content.count ? content[i] : -1), expected \(want[i]) (\(content.count) of \(want.count))")
            } else {
                #expect(content.count == want.count, "\(c.name): \(content.count) content frames, expected \(want.count)")
            }
        }
        #expect((content.last ?? 0) >= rig.origin.publishedCount * 60 - 5 * 60, "\(c.name): the viewer reached content frame \(content.last ?? -1)")
    }

    /// An origin repeating its signals for 40 s: one break's DATERANGE (same ID) and in-band
    /// splice_insert (same event id) in front of / in every segment of it, with a CUE-OUT too
    /// (three forms at once); an in-band splice_insert repeated in every segment; a DATERANGE
    /// time_signal repeated. One ad request per break for the viewer, three breaks seen.
    @Test func repeatedSignalsAskTheAdServerOncePerBreak() async throws {
        let rig = try await Self.rig(breaks: [
            LiveOriginBreak(start: .segment(8), duration: MediaTime(seconds: 8), signal: .dateRange(.spliceInsert), eventID: 100,
                            repeated: true, alsoSignalled: [.inBand(.spliceInsert), .cueOut]),
            LiveOriginBreak(start: .frame(14 * 60 + 10), duration: MediaTime(seconds: 6), signal: .inBand(.spliceInsert), eventID: 101,
                            repeated: true),
            LiveOriginBreak(start: .frame(19 * 60 + 31), duration: MediaTime(seconds: 4), signal: .dateRange(.timeSignal), eventID: 102,
                            repeated: true),
        ])
        defer { rig.stop() }
        try await rig.channel.poll()
        guard let variant = try await ServeLiveSessionTests.startSession(rig) else { return }
        let f = try await Self.follow(rig, playlist: variant, steps: 20, into: rig.root.appendingPathComponent("viewer"))
        let asked = rig.ads.requests.filter { $0.target.hasPrefix("/vast.xml") }.count
        print("resilience repeated signals: \(asked) ad requests, \(await rig.channel.breaksSeen) breaks, \(f.listed.last ?? 0) s listed")
        #expect(asked == 3, "one ad request per break: \(rig.ads.requests.map(\.target))")
        #expect(await rig.channel.breaksSeen == 3)
        let tags = f.entries.flatMap(\.tags)
        #expect(tags.filter { $0.hasPrefix("#EXT-X-CUE-OUT:") }.count == 3, "three breaks in the viewer's playlist: \(tags.filter { $0.hasPrefix("#EXT-X-CUE") })")
    }

    /// A two-rung origin whose small rung loses a segment for good (404), whose PTS restart at 0
    /// and whose numbering goes back, with a break in band and one by DATERANGE after all that:
    /// both renditions stay on one channel clock (the same position for every segment both hold,
    /// the same breaks at the content frames' original PTS), each fault logged once.
    @Test func everyRenditionStaysOnOneClock() async throws {
        let m = try await offPool { try LiveOriginMedia.make(sizes: [PixelSize(width: 320, height: 180), PixelSize(width: 160, height: 90)]) }
        let origin = try LiveOrigin(media: m, breaks: [
            LiveOriginBreak(start: .frame(15 * 60 + 7), duration: MediaTime(seconds: 4), signal: .dateRange(.spliceInsert)),
            LiveOriginBreak(start: .frame(18 * 60 + 20), duration: MediaTime(seconds: 3), signal: .inBand(.spliceInsert)),
        ], faults: [
            LiveOriginFault(at: 6, .gone404, rendition: 1),
            LiveOriginFault(at: 9, .ptsReset, discontinuity: true),
            LiveOriginFault(at: 12, .sequenceBack(2)),
        ])
        defer { origin.stop() }
        let folder = ServeLiveOriginTests.temp("hostile-ladder")
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = LineBox()
        let channel = try LiveChannel(name: "ladder", source: origin.url("/master.m3u8"), folder: folder, log: ServeLog { log.append($0) })
        var seen: [String: [String: LiveBreak]] = [:]
        for _ in 0..<20 {
            try await channel.poll()
            let v0 = try #require(await channel.window(rendition: "v0")), v1 = try #require(await channel.window(rendition: "v1"))
            let small = Dictionary(uniqueKeysWithValues: v1.segments.map { ($0.sequence, $0.firstPTS) })
            for s in v0.segments {
                if let p = small[s.sequence] { #expect(p == s.firstPTS, "segment \(s.sequence): \(s.firstPTS) in v0, \(p) in v1") }
            }
            for (r, w) in [("v0", v0), ("v1", v1)] { for b in w.breaks { seen[r, default: [:]][b.id] = b } }
            origin.advance()
        }
        let want = origin.breaks.map { ($0.trackerID, $0.startPTS, $0.endPTS) }
        for r in ["v0", "v1"] {
            let got = (seen[r] ?? [:]).values.sorted { $0.startPTS < $1.startPTS }
            #expect(got.map(\.id) == want.map(\.0) && got.map(\.startPTS) == want.map(\.1) && got.map(\.endPTS) == want.map(\.2),
                    "\(r): \(got), want \(want)")
        }
        let kinds = log.all.compactMap { line -> String? in
            guard let o = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else { return nil }
            return o["kind"] as? String
        }
        #expect(kinds.sorted() == ["media_sequence", "pts_jump", "segment_unavailable"], "\(log.all)")
    }

    /// A break whose CUE-OUT is in front of a segment that cannot be had (404 for good) still
    /// happens: the marker goes with the next segment taken, its CUE-IN closes it.
    @Test func aBreakBeforeASkippedSegmentStillHappens() async throws {
        let m = try await offPool { try LiveOriginMedia.make(seconds: 60) }
        let origin = try LiveOrigin(media: m, breaks: [LiveOriginBreak(start: .segment(8), duration: MediaTime(seconds: 6), signal: .cueOut)],
                                    faults: [LiveOriginFault(at: 8, .gone404)])
        defer { origin.stop() }
        let folder = ServeLiveOriginTests.temp("hostile-cue")
        defer { try? FileManager.default.removeItem(at: folder) }
        let channel = try LiveChannel(name: "cue", source: origin.url("/live.m3u8"), folder: folder)
        for _ in 0..<12 { try await channel.poll(); origin.advance() }
        let w = try #require(await channel.window(rendition: "main"))
        #expect(!w.segments.contains { $0.sequence == 8 } && w.segments.first { $0.sequence == 9 }?.discontinuity == true)
        #expect(w.breaks.map(\.id) == ["cue-9"] && w.breaks.first?.startPTS == m.segments[9].firstPTS
                && w.breaks.first?.endPTS == m.segments[11].firstPTS, "\(w.breaks)")
    }

    /// A media playlist of `uris` (2 s each but `extinf`) numbered by the `sequence` tag text.
    static func playlist(sequence: String, _ uris: [String], extinf: [String: String] = [:], extra: String = "") -> String {
        var lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:\(sequence)"] + (extra.isEmpty ? [] : [extra])
        for u in uris { lines += ["#EXTINF:\(extinf[u] ?? "2.000"),", u] }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The origin playlist reader and the timeline alone: unreadable sequence tags are left out,
    /// bad EXTINFs listed with their problem; a stale playlist holds nothing new and is no fault;
    /// a renumbered one is followed by URI; a restart takes the live end (three target
    /// durations); a PTS jump re-anchors, a skipped segment's time stays on the clock.
    @Test func theTimelineNumbersAndPlacesWhateverTheOriginDoes() throws {
        let garbage = try LivePlaylist(parsing: Self.playlist(sequence: "-5", ["a.ts", "b.ts"], extinf: ["b.ts": "0"],
                                                              extra: "#EXT-X-DISCONTINUITY-SEQUENCE:x"))
        #expect(!garbage.sequenceReadable && garbage.segments.map(\.sequence) == [0, 1])
        #expect(garbage.segments[0].problem == nil && garbage.segments[1].problem?.contains("EXTINF 0") == true)
        #expect(try LivePlaylist(parsing: Self.playlist(sequence: "3", ["a.ts"], extinf: ["a.ts": "7"])).segments[0].problem != nil)
        #expect(try LivePlaylist(parsing: Self.playlist(sequence: "3", ["a.ts"], extinf: ["a.ts": "2.4"])).segments[0].problem == nil)

        var t = LiveTimeline()
        func take(_ text: String) throws -> (sequences: [Int], uris: [String], finding: String?) {
            let (new, finding) = t.newEntries(try LivePlaylist(parsing: text))
            for n in new { t.handled(n) }
            return (new.map(\.sequence), new.map(\.entry.uri), finding)
        }
        let uris = (0..<20).map { "s\($0).ts" }
        var r = try take(Self.playlist(sequence: "10", Array(uris[10..<15])))
        #expect(r.sequences == Array(10..<15) && r.finding == nil)
        r = try take(Self.playlist(sequence: "11", Array(uris[11..<16])))
        #expect(r.sequences == [15] && r.finding == nil)
        r = try take(Self.playlist(sequence: "8", Array(uris[8..<13])))   // a stale cache
        #expect(r.sequences.isEmpty && r.finding == nil)
        r = try take(Self.playlist(sequence: "2", Array(uris[13..<18])))   // renumbered lower
        #expect(r.uris == ["s16.ts", "s17.ts"] && r.sequences == [16, 17] && r.finding?.contains("found by URI") == true)
        r = try take(Self.playlist(sequence: "3", Array(uris[14..<19])))   // consistent again, in the new numbering
        #expect(r.uris == ["s18.ts"] && r.sequences == [18] && r.finding == nil)
        r = try take(Self.playlist(sequence: "0", (0..<5).map { "new\($0).ts" }))   // restarted: its last 6 s
        #expect(r.uris == ["new2.ts", "new3.ts", "new4.ts"] && r.sequences == [19, 20, 21] && r.finding?.contains("restarted") == true)

        var clock = LiveTimeline()
        let two = MediaTime(seconds: 2)
        let a = clock.place(raw: 900_000, duration: two, discontinuity: false)
        #expect(a == .init(filePTS: 900_000, clockOffset: 0, discontinuity: false, jumped: nil))
        let b = clock.place(raw: 1_080_000 + 45_000, duration: two, discontinuity: false)   // half a second late: the same stream
        #expect(b.channelPTS == 1_125_000 && !b.discontinuity && b.jumped == nil)
        let c = clock.place(raw: 90_000, duration: two, discontinuity: true)                 // reset: right after b
        #expect(c.channelPTS == 1_305_000 && c.clockOffset == 1_215_000 && c.discontinuity && c.jumped == -1_215_000)
        let entry = LivePlaylist.Segment(uri: "x.ts", duration: two, sequence: 3, discontinuity: false, markers: [])
        clock.skip(LiveTimeline.New(entry: entry, sequence: 3))
        let d = clock.place(raw: 90_000 + 360_000, duration: two, discontinuity: false)       // after the hole of the skipped one
        #expect(d.channelPTS == 1_305_000 + 360_000 && d.clockOffset == 1_215_000 && d.discontinuity && d.jumped == nil)
        let e = clock.place(raw: UInt64(LivePTS.wrap) - 90_000, duration: two, discontinuity: false)   // random: re-anchored
        #expect(e.channelPTS == d.channelPTS + 180_000 && e.discontinuity && e.jumped != nil)
    }

    /// The tracker alone: a break signalled in three forms at once, each repeated in every
    /// segment, is one break that every form's end closes; an SCTE-35 splice PTS hours from its
    /// segment is not a break.
    @Test func aBreakSignalledManyWaysIsOneBreak() throws {
        let out = try SCTE35Section(parsing: LiveOriginSCTE35.spliceInsert(eventID: 7, outOfNetwork: true, pts: 1_000_000, breakDuration: 720_000))
        let back = try SCTE35Section(parsing: LiveOriginSCTE35.spliceInsert(eventID: 7, outOfNetwork: false, pts: 1_720_000, breakDuration: nil))
        let range = LiveMarker.DateRange(id: "brk-7", startDate: Date(), plannedDuration: MediaTime(seconds: 8), duration: nil,
                                         out: out, in: nil, hasOut: true, hasIn: false)
        var tracker = LiveBreakTracker()
        tracker.add(sequence: 1, firstPTS: 820_000, markers: [], cues: [])
        for n in 2...5 {
            let first = 820_000 + Int64(n - 1) * 180_000
            tracker.add(sequence: n, firstPTS: first, markers: [.dateRange(range), .cueOut(duration: MediaTime(seconds: 8))], cues: [out])
        }
        tracker.add(sequence: 6, firstPTS: 1_720_000, markers: [.cueIn], cues: [back])
        #expect(tracker.breaks.count == 1, "\(tracker.breaks.map(\.id))")
        #expect(tracker.breaks.first?.startPTS == 1_000_000 && tracker.breaks.first?.endPTS == 1_720_000)
        let far = try SCTE35Section(parsing: LiveOriginSCTE35.spliceInsert(eventID: 8, outOfNetwork: true, pts: 1_000_000 + 5 * 3600 * 90_000,
                                                                           breakDuration: 720_000))
        let ignored = tracker.add(sequence: 7, firstPTS: 1_900_000, markers: [], cues: [far])
        #expect(tracker.breaks.count == 1 && ignored.count == 1, "\(ignored)")
    }
}

/// The SCTE-35 section parser and the transport scan over hostile sections: the longest section
/// there is, ones cut short, the legacy `splice_command_length` 0xFFF, and thousands of damaged
/// copies of real ones, alone and in TS packets: refused or read, never a crash or a hang.
@Suite struct ServeLiveHostileSectionTests {
    @Test func hostileSectionsAreReadOrRefused() throws {
        let huge = LiveOriginSCTE35.hugeSpliceNull()
        #expect(huge.count == 4_098)
        let read = try SCTE35Section(parsing: huge)
        #expect(read.command == .spliceNull && read.segmentation.isEmpty)
        #expect(throws: SCTE35Section.ParseError.truncated) { try SCTE35Section(parsing: LiveOriginSCTE35.truncated()) }
        #expect(throws: SCTE35Section.ParseError.badLength) { try SCTE35Section(parsing: LiveOriginSCTE35.privateCommandFFF()) }
        var legacy = LiveOriginSCTE35.spliceInsert(eventID: 900, outOfNetwork: true, pts: 90_000, breakDuration: 720_000)
        LiveOriginSCTE35.setCommandLength(&legacy, 0xFFF)
        guard case .spliceInsert(let i) = try SCTE35Section(parsing: legacy).command else { Issue.record("not a splice_insert"); return }
        #expect(i.eventID == 900 && i.breakDuration == 720_000)

        // damaged copies: random bytes changed (the CRC made right again half the time, so the
        // fields themselves are read), each parsed alone and scanned in TS packets
        var seed: UInt64 = 0x5EED
        func next() -> Int { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Int(seed >> 33) }
        let originals = [legacy, huge, LiveOriginSCTE35.timeSignal(pts: 1_000, eventID: 3, typeID: 0x34, duration: 900_000),
                         LiveOriginSCTE35.spliceInsert(eventID: 5, outOfNetwork: false, pts: 9_000, breakDuration: nil)]
        var parsed = 0, refused = 0
        for round in 0..<3_000 {
            var s = originals[round % originals.count]
            for _ in 0...(next() % 4) { s[next() % s.count] = UInt8(next() & 0xFF) }
            if round % 2 == 0 {
                s.removeLast(4)
                let crc = LiveOriginTS.crc32MPEG2(s)
                s += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
            }
            if (try? SCTE35Section(parsing: s)) != nil { parsed += 1 } else { refused += 1 }
            if round % 50 == 0 {
                var writer = TSSectionWriter()
                var ts = writer.programTables() + writer.scte35([s, originals[0], Array(s.prefix(next() % s.count))])
                ts[188 * 2 + 4 + next() % 100] ^= 0xFF
                let scan = SCTE35TransportScan(ts)
                #expect(scan.cues.count + scan.rejected >= 1)
            }
        }
        print("hostile sections: \(parsed) read, \(refused) refused")
        #expect(parsed > 100 && refused > 100)
    }
}
