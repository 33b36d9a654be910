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
                         endPTS: m.pts(ofFrame: r.2), source: r.5, kind: r.6, scte: SCTEValues.carried(by: r.0, kind: r.6))
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
                                          plannedDuration: MediaTime(value: 25, timescale: 2), endPTS: nil, source: .dateRange, kind: .spliceInsert,
                                          scte: .spliceInsert(102))])
    }
}

/// In-band SCTE-35 in the origin's rewritten segments, the origin followed by `LiveChannel`, and
/// the real-time origin played by ffmpeg's HLS reader.
@Suite struct ServeLiveOriginSignalTests {
    @Test func sectionsMatchTheEngineWriter() {
        let pts: Int64 = 8_589_934_000, d: Int64 = 1_125_000   // near the 33-bit wrap
        #expect(LiveOriginSCTE35.spliceInsert(eventID: 7, outOfNetwork: true, pts: pts, breakDuration: d)
                == SCTE35.spliceInsert(eventID: 7, outOfNetwork: true, at: MediaTime(value: pts, timescale: 90_000),
                                       breakDuration: MediaTime(value: d, timescale: 90_000)))
        #expect(LiveOriginSCTE35.spliceInsert(eventID: 7, outOfNetwork: false, pts: 1234, breakDuration: nil)
                == SCTE35.spliceInsert(eventID: 7, outOfNetwork: false, at: MediaTime(value: 1234, timescale: 90_000), breakDuration: nil))
        #expect(LiveOriginSCTE35.timeSignal(pts: pts, eventID: 9, typeID: 0x34, duration: d)
                == SCTE35.timeSignal(at: MediaTime(value: pts, timescale: 90_000),
                                     segmentation: [.init(eventID: 9, typeID: 0x34, duration: MediaTime(value: d, timescale: 90_000))]))
        #expect(LiveOriginSCTE35.timeSignal(pts: 5, eventID: 9, typeID: 0x35, duration: nil)
                == SCTE35.timeSignal(at: MediaTime(value: 5, timescale: 90_000), segmentation: [.init(eventID: 9, typeID: 0x35)]))
    }

    @Test func inBandCuesAreReadByTheScanThreefiveAndFFmpeg() async throws {
        let m = try await ServeLiveOriginTests.media()
        let origin = try LiveOrigin(media: m, breaks: ServeLiveOriginTests.schedule, initialSegments: 120)
        defer { origin.stop() }
        let dir = ServeLiveOriginTests.temp("inband")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // (segment, expected cues: event id, out of network / start, PTS frame)
        let cases: [(Int, [(UInt32, Bool, Int)])] = [(40, [(104, true, 2437)]), (45, [(104, false, 2737)]), (50, [(105, true, 3000)]),
                                                     (53, [(105, false, 3231)]), (55, [(106, true, 3310), (106, false, 3340)]), (41, [])]
        var tracker = LiveBreakTracker()
        for (n, want) in cases.sorted(by: { $0.0 < $1.0 }) {
            let data = try origin.segmentData(n)
            let original = try Data(contentsOf: m.renditions[0].file(n))
            let scan = SCTE35TransportScan([UInt8](data))
            #expect(scan.scte35PIDs == [LiveOriginTS.scte35PID] && scan.rejected == 0, "segment \(n)")
            #expect(data.count == original.count + 188 * want.count, "one packet per cue, nothing else added")
            #expect(LiveOriginTS.videoPTS([UInt8](data)) == LiveOriginTS.videoPTS([UInt8](original)))
            try #require(scan.cues.count == want.count, "segment \(n): \(scan.cues.count) cues")
            for (cue, w) in zip(scan.cues, want) {
                #expect(cue.section.splicePTS == UInt64(m.pts(ofFrame: w.2)), "segment \(n) cue \(w)")
                switch cue.section.command {
                case .spliceInsert(let i):
                    #expect(i.eventID == w.0 && i.outOfNetwork == w.1)
                    #expect(i.breakDuration == (w.1 ? UInt64(ServeLiveOriginTests.expected(m, Int(w.0) - 100).plannedDuration!.rescaled(to: 90_000).value) : nil))
                case .timeSignal:
                    #expect(cue.section.segmentation.map(\.eventID) == [w.0])
                    #expect(cue.section.segmentation.map(\.typeID) == [w.1 ? 0x34 : 0x35])
                default: Issue.record("segment \(n): unexpected command")
                }
            }
            tracker.add(sequence: n, firstPTS: m.segments[n].firstPTS, markers: [], cues: scan.cues.map(\.section))
            let file = dir.appendingPathComponent("\(n).ts")
            try data.write(to: file)
            // ffmpeg decodes the rewritten segment without an error and sees the SCTE-35 stream.
            let decoded = try await offPool { try Tools.ffmpeg(["-v", "error", "-xerror", "-i", file.path, "-f", "null", "-"]) }
            #expect(decoded.stderr.isEmpty, "segment \(n): \(decoded.stderr)")
            let probe = try await offPool { try Tools.ffprobe(["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", file.path]) }
            // (ffprobe lists each stream twice: under the program and on its own.)
            #expect(Set(String(decoding: probe.stdout, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init))
                    == ["aac", "h264", "scte_35"], "segment \(n)")
            if ThreeFive.available {
                let ref = try ThreeFive.streamCues(file.path)
                #expect(ref.count == want.count, "threefive in segment \(n): \(ref)")
                for (r, w) in zip(ref, want) {
                    let command = try #require(r["command"] as? [String: Any])
                    #expect(abs((command["pts_time"] as? Double ?? -1) - Double(m.pts(ofFrame: w.2)) / 90_000) < 0.000_01)
                }
            }
        }
        #expect(tracker.breaks == [ServeLiveOriginTests.expected(m, 4), ServeLiveOriginTests.expected(m, 5), ServeLiveOriginTests.expected(m, 6)])
        // Segments 38 ..< 58 back to back: continuity counters run on for every PID (the SCTE-35 one
        // too) and ffmpeg reads the whole stream without an error.
        var joined = Data()
        for n in 38..<58 { joined += try origin.segmentData(n) }
        let headers = try #require(TSPacketHeader.parse(joined))
        var last: [Int: Int] = [:], breaks = 0
        for h in headers where h.hasPayload {
            if let l = last[h.pid], h.continuityCounter != (l + 1) % 16 { breaks += 1 }
            last[h.pid] = h.continuityCounter
        }
        #expect(breaks == 0 && last[LiveOriginTS.scte35PID] != nil)
        let file = dir.appendingPathComponent("joined.ts")
        try joined.write(to: file)
        let out = try await offPool { try Tools.ffmpeg(["-v", "error", "-xerror", "-i", file.path, "-f", "null", "-"]) }
        #expect(out.stderr.isEmpty, "\(out.stderr)")
    }

    @Test func liveChannelFollowingTheOriginSeesEveryBreak() async throws {
        let m = try await ServeLiveOriginTests.media()
        let origin = try LiveOrigin(media: m, breaks: ServeLiveOriginTests.schedule, windowSize: 5)
        defer { origin.stop() }
        let folder = ServeLiveOriginTests.temp("channel")
        defer { try? FileManager.default.removeItem(at: folder) }
        let channel = try LiveChannel(name: "origin", source: origin.url("/live.m3u8"), folder: folder, history: MediaTime(seconds: 4))
        var seen: [String: LiveBreak] = [:]
        while true {
            try await channel.poll()
            let w = try #require(await channel.window(rendition: "main"))
            // the origin's window and the 4 s (two segments) before it the channel keeps
            let shown = Array(origin.window.segments)
            #expect(w.segments.map(\.sequence) == Array(max(0, (shown.first ?? 0) - 2)..<(shown.first ?? 0)) + shown)
            #expect(w.segments.allSatisfy { $0.firstPTS == m.segments[$0.sequence].firstPTS && $0.duration == MediaTime(seconds: 2) })
            for b in w.breaks { seen[b.id] = b }
            if origin.publishedCount >= 58 { break }
            origin.advance()
        }
        let want = (0..<7).map { ServeLiveOriginTests.expected(m, $0) }
        #expect(seen.values.sorted { $0.startPTS < $1.startPTS } == want)
        for (b, p) in zip(want, origin.breaks) {   // the origin says the same
            #expect(b.id == p.trackerID && b.startPTS == p.startPTS && b.endPTS == p.endPTS && b.startSequence == p.startSegment)
        }
    }

    @Test func ffmpegPlaysTheRealTimeOrigin() async throws {
        let m = try await ServeLiveOriginTests.media()
        // An in-band cue in segment 5 (published 2 s after the start) and a DATERANGE in 6.
        let origin = try LiveOrigin(media: m, breaks: [
            LiveOriginBreak(start: .frame(310), duration: MediaTime(seconds: 1), signal: .inBand(.spliceInsert)),
            LiveOriginBreak(start: .frame(365), duration: MediaTime(seconds: 1), signal: .dateRange(.timeSignal)),
        ], windowSize: 5, clock: .realTime)
        defer { origin.stop() }
        let dir = ServeLiveOriginTests.temp("play")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("played.ts")
        let started = ContinuousClock.now
        // From the live edge (segment 4), 5 s: segments 4, 5, 6 as they get published (5 and 6 carry cues).
        let r = try await offPool { try Tools.ffmpeg(["-v", "error", "-xerror", "-live_start_index", "-1", "-i", origin.url("/live.m3u8"),
                                                      "-map", "0:v", "-t", "5", "-c", "copy", "-f", "mpegts", out.path]) }
        let took = ContinuousClock.now - started
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        #expect(took >= .seconds(2), "ffmpeg waited for segments being published (\(took))")
        let pictures = try await offPool { try DecodedPictures.decode(out) }
        let reader = IdentityReader(output: PixelSize(width: pictures.width, height: pictures.height))
        let ids = pictures.frames.map { reader.read($0, width: pictures.width, height: pictures.height).identity?.frameIndex }
        // It starts at the live edge when it read the playlist: segment 4, or a later one on a machine
        // slow to start ffmpeg; then 150 content frames in order.
        let first = try #require(ids.first ?? nil)
        #expect(first % 60 == 0 && first >= 240, "first frame \(first)")
        #expect(ids == (first..<(first + 150)).map { Optional($0) }, "content frames from \(first) in order")
        #expect(origin.requests.contains { $0.path == "/seg/\(first / 60 + 2).ts" })
    }
}

/// A schedule that does not fit is refused with one line; a two-rung origin serves a
/// multivariant playlist whose renditions share frames, boundaries and signals.
@Suite struct ServeLiveOriginLadderTests {
    @Test func badSchedulesAreRefused() async throws {
        let m = try await ServeLiveOriginTests.media()
        let bad: [([LiveOriginBreak], String)] = [
            ([LiveOriginBreak(start: .frame(365), duration: MediaTime(seconds: 4), signal: .cueOut)], "segment boundary"),
            ([LiveOriginBreak(start: .segment(118), duration: MediaTime(seconds: 10), signal: .dateRange(.spliceInsert))], "past the content's end"),
            ([LiveOriginBreak(start: .segment(3), duration: MediaTime(seconds: 10), signal: .inBand(.spliceInsert)),
              LiveOriginBreak(start: .frame(400), duration: MediaTime(seconds: 2), signal: .inBand(.timeSignal))], "before break 0 ends"),
            ([LiveOriginBreak(start: .segment(3), duration: MediaTime(seconds: 4), endsAfter: MediaTime(seconds: 5), signal: .cueOut)], "within the duration"),
            ([LiveOriginBreak(start: .segment(200), duration: MediaTime(seconds: 4), signal: .cueOut)], "no segment 200"),
        ]
        for (schedule, why) in bad {
            do {
                _ = try LiveOrigin(media: m, breaks: schedule)
                Issue.record("accepted: \(why)")
            } catch let e as LiveOriginError {
                #expect("\(e)".contains(why) && !"\(e)".contains("\n"), "\(e)")
            }
        }
        // An early CUE-IN inside a segment is rounded up to the next boundary (markers sit between segments).
        let o = try LiveOrigin(media: m, breaks: [LiveOriginBreak(start: .segment(3), duration: MediaTime(seconds: 9), signal: .cueOut)])
        defer { o.stop() }
        #expect(o.breaks.first?.endFrame == 480 && o.breaks.first?.endSegment == 8, "frame 180 + 270 = 450 lies in segment 7")
    }

    @Test func twoRungsShareFramesAndSignals() async throws {
        let clock = ContinuousClock(), began = clock.now
        let m = try await offPool { try LiveOriginMedia.make(sizes: [PixelSize(width: 320, height: 180), PixelSize(width: 160, height: 90)]) }
        print("LiveOriginMedia.make (two rungs): \(clock.now - began)")
        #expect(m.renditions.map(\.size) == [PixelSize(width: 320, height: 180), PixelSize(width: 160, height: 90)])
        #expect(m.renditions[1].segments == m.renditions[0].segments && m.renditions[0].peakBitRate > m.renditions[1].peakBitRate)
        let origin = try LiveOrigin(media: m, breaks: [
            LiveOriginBreak(start: .frame(437), duration: MediaTime(seconds: 3), signal: .inBand(.spliceInsert)),
            LiveOriginBreak(start: .frame(620), duration: MediaTime(seconds: 2), signal: .dateRange(.spliceInsert)),
        ])
        defer { origin.stop() }
        let master = try await curl(origin.url("/master.m3u8")).text
        #expect(master.contains("RESOLUTION=320x180") && master.contains("r1/live.m3u8"))
        let folder = ServeLiveOriginTests.temp("ladder")
        defer { try? FileManager.default.removeItem(at: folder) }
        let channel = try LiveChannel(name: "ladder", source: origin.url("/master.m3u8"), folder: folder)
        var seen: [String: [String: LiveBreak]] = [:]
        for _ in 0..<10 {
            try await channel.poll()
            for r in ["v0", "v1"] {
                let w = try #require(await channel.window(rendition: r))
                // the origin's window, after what the channel keeps of its history (60 s: all of it here)
                #expect(w.segments.map(\.sequence) == Array(0...(origin.window.segments.last ?? 0)))
                for b in w.breaks { seen[r, default: [:]][b.id] = b }
            }
            origin.advance()
        }
        #expect(await channel.renditionNames == ["v0", "v1"])
        let want = [
            LiveBreak(id: "splice-100", startPTS: m.pts(ofFrame: 437), startSequence: 7, plannedDuration: MediaTime(seconds: 3),
                      endPTS: m.pts(ofFrame: 527), source: .inBand, kind: .spliceInsert, scte: .spliceInsert(100)),
            LiveBreak(id: "daterange-brk-101", startPTS: m.pts(ofFrame: 620), startSequence: 10, plannedDuration: MediaTime(seconds: 2),
                      endPTS: m.pts(ofFrame: 680), source: .dateRange, kind: .spliceInsert, scte: .spliceInsert(101)),
        ]
        for r in ["v0", "v1"] { #expect(seen[r]?.values.sorted { $0.startPTS < $1.startPTS } == want, "\(r)") }
        // The small rung's segment 7 (rewritten: it holds the cue) shows content frames 420 ..< 480.
        let file = folder.appendingPathComponent("r1-7.ts")
        let small = try await curl(origin.url("/r1/seg/7.ts"))
        try small.body.write(to: file)
        let pictures = try await offPool { try DecodedPictures.decode(file) }
        let reader = IdentityReader(output: PixelSize(width: 160, height: 90))
        #expect(pictures.frames.map { reader.read($0, width: 160, height: 90).identity?.frameIndex } == (420..<480).map { Optional($0) })
        #expect(SCTE35TransportScan([UInt8](small.body)).cues.count == 1)
    }
}

extension LiveOrigin {
    /// An origin (manual clock, window 5) with `published` segments; crashes the test on a bad schedule.
    convenience init(unsafeMedia media: LiveOriginMedia, schedule: [LiveOriginBreak], published: Int) {
        try! self.init(media: media, breaks: schedule, windowSize: 5, initialSegments: published)
    }
}

extension SCTEValues {
    /// What a `splice_insert` of the test origins carries (`avail_num` and `avails_expected` 0).
    static func spliceInsert(_ eventID: UInt32) -> SCTEValues {
        var v = SCTEValues()
        v.eventID = eventID; v.availNum = 0; v.availsExpected = 0
        return v
    }

    /// What a segmentation descriptor of the test origins carries (no UPID, segment 0 of 0).
    static func segmentation(_ eventID: UInt32, typeID: UInt8) -> SCTEValues {
        var v = SCTEValues()
        v.segmentationEventID = eventID; v.segmentationTypeID = Int(typeID); v.segmentNum = 0; v.segmentsExpected = 0
        return v
    }

    /// The values the test origin's break `id` (`…-<event id>`) carries for its `kind`; nil for a marker.
    static func carried(by id: String, kind: LiveBreak.Kind) -> SCTEValues? {
        guard let eventID = id.split(separator: "-").last.flatMap({ UInt32($0) }) else { return nil }
        switch kind {
        case .marker: return nil
        case .spliceInsert: return .spliceInsert(eventID)
        case .segmentation(let typeID): return .segmentation(eventID, typeID: typeID)
        }
    }
}
