import Foundation
import Playback
@testable import Serve
import TestSupport
import Testing
import Timing

/// The live origin tests play against (`LiveOrigin` over `LiveOriginMedia`): exact 2 s segments made
/// by the ffmpeg CLI whose frames say which content frame they are, a sliding playlist on a manual
/// or real-time clock, and ad-break signals in the three forms, read back by the project's own
/// parsers (`LivePlaylist`, `LiveBreakTracker`, `SCTE35TransportScan`, `LiveChannel`), by
/// threefive and by ffmpeg.
@Suite struct ServeLiveOriginTests {
    static func media() async throws -> LiveOriginMedia { try await offPool { try LiveOriginMedia.make() } }

    /// Frame numbers below are on 60-frame (2 s) segments: segment s holds frames 60s ..< 60s + 60.
    static let schedule: [LiveOriginBreak] = [
        LiveOriginBreak(start: .segment(6), duration: MediaTime(seconds: 10), signal: .cueOut),                    // 100: frames 360..<660
        LiveOriginBreak(start: .segment(14), duration: MediaTime(seconds: 20), endsAfter: MediaTime(seconds: 6), signal: .cueOut), // 101: 840..<1020
        LiveOriginBreak(start: .frame(1234), duration: MediaTime(value: 25, timescale: 2), signal: .dateRange(.spliceInsert)),    // 102: 1234..<1609
        LiveOriginBreak(start: .frame(1815), duration: MediaTime(seconds: 8), endsAfter: MediaTime(value: 51, timescale: 10),
                        signal: .dateRange(.timeSignal)),                                                           // 103: 1815..<1968
        LiveOriginBreak(start: .frame(2437), duration: MediaTime(seconds: 10), signal: .inBand(.spliceInsert)),      // 104: 2437..<2737
        LiveOriginBreak(start: .segment(50), duration: MediaTime(value: 77, timescale: 10), signal: .inBand(.timeSignal)), // 105: 3000..<3231
        LiveOriginBreak(start: .frame(3310), duration: MediaTime(seconds: 1), signal: .inBand(.spliceInsert)),       // 106: 3310..<3340
    ]

    /// What `LiveBreakTracker` should make of break `i` of `schedule`, written out by hand.
    static func expected(_ m: LiveOriginMedia, _ i: Int, startSequence: Int? = nil) -> LiveBreak {
        let rows: [(String, Int, Int, Int, MediaTime, LiveBreak.Source, LiveBreak.Kind)] = [
            ("cue-6", 360, 660, 6, MediaTime(seconds: 10), .cueMarkers, .marker),
            ("cue-14", 840, 1020, 14, MediaTime(seconds: 20), .cueMarkers, .marker),
            ("daterange-brk-102", 1234, 1609, 20, MediaTime(value: 25, timescale: 2), .dateRange, .spliceInsert),
            ("daterange-brk-103", 1815, 1968, 30, MediaTime(seconds: 8), .dateRange, .segmentation(typeID: 0x34)),
            ("splice-104", 2437, 2737, 40, MediaTime(seconds: 10), .inBand, .spliceInsert),
            ("segmentation-105", 3000, 3231, 50, MediaTime(value: 77, timescale: 10), .inBand, .segmentation(typeID: 0x34)),
            ("splice-106", 3310, 3340, 55, MediaTime(seconds: 1), .inBand, .spliceInsert),
        ]
        let r = rows[i]
        return LiveBreak(id: r.0, startPTS: m.pts(ofFrame: r.1), startSequence: startSequence ?? r.3, plannedDuration: r.4,
                         endPTS: m.pts(ofFrame: r.2), source: r.5, kind: r.6)
    }

    static func temp(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("live-origin-\(UUID().uuidString)-\(name)")
    }

    /// Feeds the origin's current playlist to `tracker` (segments already taken are skipped by it).
    static func take(_ origin: LiveOrigin, into tracker: inout LiveBreakTracker, cues: Bool = false) throws -> LivePlaylist {
        let p = try LivePlaylist(parsing: origin.playlist())
        for s in p.segments {
            let found = cues ? SCTE35TransportScan([UInt8](try origin.segmentData(s.sequence))).cues.map(\.section) : []
            tracker.add(sequence: s.sequence, firstPTS: origin.media.segments[s.sequence].firstPTS, markers: s.markers, cues: found)
        }
        return p
    }

    @Test func mediaIsExactTwoSecondSegmentsThatNameTheirFrames() async throws {
        let clock = ContinuousClock(), began = clock.now
        let m = try await Self.media()
        print("LiveOriginMedia.make: \(clock.now - began) (cached after the first run)")
        #expect(m.segments.count == 120 && m.frameCount == 7200 && m.fps == 30 && m.ticksPerFrame == 3000)
        #expect(m.segments.allSatisfy { $0.frameCount == 60 && $0.duration == MediaTime(seconds: 2) })
        #expect(m.segments.allSatisfy { $0.firstPTS == m.firstPTS + Int64($0.index) * 180_000 && $0.firstFrame == 60 * $0.index })
        #expect(m.frame(atPTS: m.pts(ofFrame: 1234) + 2999) == 1234 && m.frame(atPTS: m.firstPTS - 1) == nil)
        #expect(m.firstFrame(atOrAfter: m.pts(ofFrame: 1234) + 1) == 1235 && m.segmentIndex(holdingFrame: 1234) == 20)
        // ffprobe's packets agree with the segment table.
        for i in [0, 37, 119] {
            let out = try await offPool { try Tools.ffprobe(["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts",
                                                             "-of", "csv=p=0", m.renditions[0].file(i).path]) }
            let pts = String(decoding: out.stdout, as: UTF8.self).split(whereSeparator: \.isNewline)
                .compactMap { Int64($0.trimmingCharacters(in: CharacterSet(charactersIn: " ,"))) }
            #expect(pts.count == 60 && pts.min() == m.segments[i].firstPTS, "segment \(i): \(pts.count) packets from \(pts.min() ?? -1)")
        }
        // The pictures of segment 37 are content frames 2220 ..< 2280 (identity mod 4096), in order.
        let pictures = try await offPool { try DecodedPictures.decode(m.renditions[0].file(37)) }
        let reader = IdentityReader(output: PixelSize(width: pictures.width, height: pictures.height))
        let ids = pictures.frames.map { reader.read($0, width: pictures.width, height: pictures.height).identity }
        #expect(ids == (2220..<2280).map { FrameIdentity(sourceID: 9, frameIndex: $0 % 4096) })
    }

    @Test func playlistSlidesOnTheManualClock() async throws {
        let m = try await Self.media()
        let origin = try LiveOrigin(media: m, windowSize: 5)
        defer { origin.stop() }
        var p = try LivePlaylist(parsing: try await curl(origin.url("/live.m3u8")).text)
        #expect(p.mediaSequence == 0 && p.segments.map(\.sequence) == Array(0..<5) && !p.ended)
        #expect(p.targetDuration == MediaTime(seconds: 2) && p.segments.allSatisfy { $0.duration == MediaTime(seconds: 2) && $0.markers.isEmpty })
        let unpublished = try await curl(origin.url("/seg/5.ts"))
        #expect(unpublished.status == 404)
        origin.advance()
        p = try LivePlaylist(parsing: try await curl(origin.url("/live.m3u8")).text)
        #expect(p.mediaSequence == 1 && p.segments.map(\.sequence) == Array(1..<6))
        #expect(origin.window == LiveOrigin.Window(mediaSequence: 1, segments: 1..<6, ended: false))
        let seg = try await curl(origin.url("/seg/5.ts"))
        let made = try Data(contentsOf: m.renditions[0].file(5))
        #expect(seg.status == 200 && seg.body == made, "bytes as made")
        let old = try await curl(origin.url("/seg/0.ts"))
        #expect(old.status == 200, "a segment that left the window is still served")
        let text = origin.playlist()
        #expect(text.contains("#EXT-X-PROGRAM-DATE-TIME:2026-12-01T00:00:02.000Z\n#EXTINF:2,\nseg/1.ts"))
        origin.advance(segments: 500)
        p = try LivePlaylist(parsing: origin.playlist())
        #expect(p.ended && p.mediaSequence == 115 && p.segments.map(\.sequence) == Array(115..<120))
        let missing = try await curl(origin.url("/nothing")), bad = try await curl(origin.url("/seg/x.ts"))
        #expect(missing.status == 404 && bad.status == 404)
    }

    @Test func realTimeClockPublishesAsAnEncoderWould() async throws {
        let m = try await Self.media()
        let before = ContinuousClock.now
        let origin = try LiveOrigin(media: m, windowSize: 3, clock: .realTime, initialSegments: 2)
        defer { origin.stop() }
        let after = ContinuousClock.now
        #expect(origin.publishTime(ofSegment: 1) == 0 && origin.publishTime(ofSegment: 2) == 2 && origin.publishTime(ofSegment: 4) == 6)
        // Segment n ≥ 2 is published 2 (n − 1) s after the start: the count is bounded by the clock
        // read before the request (from the end of init) and after it (from before init).
        for _ in 0..<3 {
            let t0 = ContinuousClock.now
            let text = try await curl(origin.url("/live.m3u8")).text
            let t1 = ContinuousClock.now
            let p = try LivePlaylist(parsing: text)
            let low = 2 + Int(((t0 - after) / .milliseconds(1)) / 2000), high = 2 + Int(((t1 - before) / .milliseconds(1)) / 2000)
            let count = (p.segments.last?.sequence ?? -1) + 1
            #expect(count >= low && count <= high, "published \(count), expected \(low)...\(high)")
            #expect(p.segments.count == min(3, count) && p.mediaSequence == max(0, count - 3))
            try await Task.sleep(nanoseconds: 1_500_000_000)
        }
    }

    @Test func cueMarkersFoldIntoBreaksAlsoForViewersJoiningMidBreak() async throws {
        let m = try await Self.media()
        let origin = try LiveOrigin(media: m, breaks: Self.schedule, windowSize: 5)
        defer { origin.stop() }
        #expect(origin.breaks.map(\.startFrame) == [360, 840, 1234, 1815, 2437, 3000, 3310])
        #expect(origin.breaks.map(\.endFrame) == [660, 1020, 1609, 1968, 2737, 3231, 3340])
        #expect(origin.breaks.map(\.startSegment) == [6, 14, 20, 30, 40, 50, 55] && origin.breaks.map(\.endSegment) == [11, 17, 26, 32, 45, 53, 55])
        var tracker = LiveBreakTracker()
        var markers: [Int: [LiveMarker]] = [:]
        while origin.publishedCount < 20 {
            for s in try Self.take(origin, into: &tracker).segments { markers[s.sequence] = s.markers }
            origin.advance()
        }
        #expect(tracker.breaks == [Self.expected(m, 0), Self.expected(m, 1)])
        #expect(markers[6] == [.cueOut(duration: MediaTime(seconds: 10))] && markers[11] == [.cueIn])
        for n in 7..<11 {   // CONT on every segment inside
            #expect(markers[n] == [.cueOutCont(elapsed: MediaTime(seconds: Int64(2 * (n - 6))), duration: MediaTime(seconds: 10))])
        }
        #expect(markers[14] == [.cueOut(duration: MediaTime(seconds: 20))] && markers[17] == [.cueIn], "CUE-IN 6 s into 20")
        #expect(markers[15]?.count == 1 && markers[16]?.count == 1 && markers[18] == [])

        // A viewer whose first playlist (3 segments) starts at segment 7, inside break 100, sees it
        // from its CONT (ElapsedTime=2).
        let joiner = try LiveOrigin(media: m, breaks: Self.schedule, windowSize: 3, initialSegments: 10)
        defer { joiner.stop() }
        var late = LiveBreakTracker()
        #expect(try Self.take(joiner, into: &late).mediaSequence == 7)
        #expect(late.breaks.map(\.startPTS) == [m.pts(ofFrame: 360)] && late.breaks.first?.endPTS == nil)
        #expect(late.breaks.first?.plannedDuration == MediaTime(seconds: 10) && late.breaks.first?.id == "cue-joined-7")
        joiner.advance(segments: 2)
        _ = try Self.take(joiner, into: &late)
        #expect(late.breaks.first?.endPTS == m.pts(ofFrame: 660))
    }

    @Test func dateRangesCarryTheExactFramePTS() async throws {
        let m = try await Self.media()
        let origin = try LiveOrigin(media: m, breaks: Self.schedule, windowSize: 5, initialSegments: 18)
        defer { origin.stop() }
        var tracker = LiveBreakTracker()
        while origin.publishedCount < 36 {
            _ = try Self.take(origin, into: &tracker)
            origin.advance()
        }
        #expect(tracker.breaks.filter { $0.source == .dateRange } == [Self.expected(m, 2), Self.expected(m, 3)])
        // The SCTE35-OUT hex as threefive reads it.
        let text = LiveOrigin(unsafeMedia: m, schedule: Self.schedule, published: 22).playlist()
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("#EXT-X-DATERANGE:") && $0.contains("SCTE35-OUT") })
        #expect(line.contains("ID=\"brk-102\"") && line.contains("PLANNED-DURATION=12.5") && line.contains("START-DATE=\"2026-12-01T00:00:41.133Z\""))
        if ThreeFive.available {
            let hex = String(line.split(separator: "SCTE35-OUT=").last ?? "")
            let ref = try SCTE35Reading.decode(hex)
            #expect(ref.eventID == 102 && ref.outOfNetwork && ref.splicePTS == m.pts(ofFrame: 1234) && ref.breakDuration == 12.5)
        }
        // Joining at segment 21 (the break started in 20, which left the window): the OUT stays on top.
        let joiner = LiveOrigin(unsafeMedia: m, schedule: Self.schedule, published: 26)
        var late = LiveBreakTracker()
        let p = try LivePlaylist(parsing: joiner.playlist())
        #expect(p.mediaSequence == 21)
        for s in p.segments { late.add(sequence: s.sequence, firstPTS: m.segments[s.sequence].firstPTS, markers: s.markers, cues: []) }
        #expect(late.breaks == [LiveBreak(id: "daterange-brk-102", startPTS: m.pts(ofFrame: 1234), startSequence: 21,
                                          plannedDuration: MediaTime(value: 25, timescale: 2), endPTS: nil, source: .dateRange, kind: .spliceInsert)])
    }
}

extension LiveOrigin {
    /// An origin (manual clock, window 5) with `published` segments; crashes the test on a bad schedule.
    convenience init(unsafeMedia media: LiveOriginMedia, schedule: [LiveOriginBreak], published: Int) {
        try! self.init(media: media, breaks: schedule, windowSize: 5, initialSegments: published)
    }
}
