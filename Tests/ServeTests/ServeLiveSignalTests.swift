import Foundation
import Playback
@testable import Serve
import TestSupport
import Testing
import Timing

/// SCTE-35 from every carrier a live origin uses, read by the production parser
/// (`SCTE35Section`, `SCTE35TransportScan`, `LiveMarker`) and checked against PyPI's threefive;
/// signals folded into `LiveBreak`s by `LiveBreakTracker`.
@Suite struct ServeLiveSignalTests {
    static let sample = "/work/shared/media/androidx__sample_scte35.ts"

    func seconds(_ ticks: UInt64?) -> Double? { ticks.map { Double($0) / 90_000 } }

    @Test(.enabled(if: ThreeFive.available && FileManager.default.fileExists(atPath: sample), "needs threefive (make setup) and the shared sample TS"))
    func inBandSampleMatchesThreefive() throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.sample)))
        let scan = SCTE35TransportScan(bytes)
        let reference = try ThreeFive.streamCues(Self.sample)
        #expect(scan.rejected == 0)
        #expect(scan.scte35PIDs == [600])
        try #require(scan.cues.count == reference.count && !reference.isEmpty, "ours \(scan.cues.count), threefive \(reference.count)")
        for (cue, ref) in zip(scan.cues, reference) {
            let info = try #require(ref["info"] as? [String: Any]), command = try #require(ref["command"] as? [String: Any])
            #expect(seconds(cue.section.ptsAdjustment) == info["pts_adjustment"] as? Double)
            guard case .spliceInsert(let s) = cue.section.command else { Issue.record("not a splice_insert"); continue }
            #expect(command["command_type"] as? Int == 5)
            #expect(Int(s.eventID) == command["splice_event_id"] as? Int)
            #expect(s.outOfNetwork == command["out_of_network_indicator"] as? Bool)
            #expect(abs(seconds(s.ptsTime)! - (command["pts_time"] as? Double ?? -1)) < 0.000_01)
            #expect(Int(s.uniqueProgramID) == command["unique_program_id"] as? Int)
            #expect(SCTE35.hex(cue.bytes).lowercased().hasSuffix(String((info["crc"] as? String ?? "").dropFirst(2))))
        }
        // The sample: event 100 out at 2.222222 s, back in at 3.333333 s (each sent twice).
        var tracker = LiveBreakTracker()
        tracker.add(sequence: 0, firstPTS: 0, markers: [], cues: scan.cues.map(\.section))
        #expect(tracker.breaks == [LiveBreak(id: "splice-100", startPTS: 200_000, startSequence: 0, plannedDuration: nil,
                                             endPTS: 300_000, source: .inBand, kind: .spliceInsert, scte: .spliceInsert(100))])
    }

    @Test(.enabled(if: ThreeFive.available, "needs threefive (make setup)"))
    func generatedSpliceInsertsMatchThreefive() throws {
        let cases: [(UInt32, Bool, MediaTime, MediaTime?, MediaTime)] = [
            (1, true, MediaTime(value: 95_000_000, timescale: 90_000), MediaTime(seconds: 30), .zero),
            (77, false, MediaTime(value: 1, timescale: 3), nil, MediaTime(value: 8_000_000_000, timescale: 90_000)),
            (0xFFFF_FFF0, true, MediaTime(seconds: 95_000), MediaTime(value: 15_015, timescale: 1000), MediaTime(seconds: 10)),
        ]
        for (id, out, at, duration, adjustment) in cases {
            let bytes = SCTE35.spliceInsert(eventID: id, outOfNetwork: out, at: at, breakDuration: duration, ptsAdjustment: adjustment)
            let ours = try SCTE35Section(hex: SCTE35.hex(bytes))
            let ref = try SCTE35Reading.decode(SCTE35.hex(bytes))
            guard case .spliceInsert(let s) = ours.command else { Issue.record("not a splice_insert"); continue }
            #expect(Int(s.eventID) == ref.eventID && s.outOfNetwork == ref.outOfNetwork)
            #expect(abs(seconds(s.ptsTime)! - ref.ptsTime) < 0.000_01)
            #expect(abs(seconds(ours.ptsAdjustment)! - ref.ptsAdjustment) < 0.000_01)
            #expect(seconds(s.breakDuration).map { abs($0 - ref.breakDuration!) < 0.000_01 } ?? (ref.breakDuration == nil))
            #expect(s.autoReturn == (out && duration != nil))
            #expect(Int64(ours.splicePTS!) == ref.splicePTS % (1 << 33))
        }
    }

    @Test(.enabled(if: ThreeFive.available, "needs threefive (make setup)"))
    func generatedTimeSignalsMatchThreefive() throws {
        let bytes = SCTE35.timeSignal(at: MediaTime(value: 450_450, timescale: 90_000),
                                      segmentation: [.init(eventID: 9, typeID: 0x34, duration: MediaTime(seconds: 60)),
                                                     .init(eventID: 10, typeID: 0x30, duration: MediaTime(value: 30_030, timescale: 1000))],
                                      ptsAdjustment: MediaTime(seconds: 2))
        let ours = try SCTE35Section(parsing: bytes)
        let ref = try ThreeFive.cue(SCTE35.hex(bytes))
        let command = try #require(ref["command"] as? [String: Any])
        let descriptors = try #require(ref["descriptors"] as? [[String: Any]])
        #expect(command["command_type"] as? Int == 6)
        #expect(ours.command == .timeSignal(ptsTime: 450_450))
        #expect(abs(seconds(450_450)! - (command["pts_time"] as? Double ?? -1)) < 0.000_01)
        #expect(ours.splicePTS == 450_450 + 180_000)
        try #require(ours.segmentation.count == descriptors.count && descriptors.count == 2)
        for (d, r) in zip(ours.segmentation, descriptors) {
            #expect(Int(d.eventID) == Self.int(r["segmentation_event_id"]))
            #expect(Int(d.typeID) == Self.int(r["segmentation_type_id"]))
            #expect(abs(seconds(d.duration)! - (r["segmentation_duration"] as? Double ?? -1)) < 0.000_01)
        }
        #expect(ours.segmentation.map(\.kind) == [.providerPlacementOpportunityStart, .providerAdStart])
    }

    /// threefive writes ids as ints or "0x…" strings depending on the field.
    static func int(_ v: Any?) -> Int? {
        if let i = v as? Int { return i }
        if let s = v as? String, s.hasPrefix("0x") { return Int(s.dropFirst(2), radix: 16) }
        return nil
    }

    @Test func damagedSectionsAreRefused() throws {
        var bytes = SCTE35.spliceInsert(eventID: 5, outOfNetwork: true, at: MediaTime(seconds: 1), breakDuration: nil)
        #expect(throws: SCTE35Section.ParseError.truncated) { try SCTE35Section(parsing: Array(bytes.dropLast(3))) }
        bytes[10] ^= 0x40
        #expect(throws: SCTE35Section.ParseError.badCRC) { try SCTE35Section(parsing: bytes) }
        #expect(throws: (any Error).self) { try SCTE35Section(hex: "0xZZ") }
        #expect(throws: SCTE35Section.ParseError.notSpliceInfo(tableID: 0)) { try SCTE35Section(parsing: [0, 0, 0, 0]) }
    }

    @Test func playlistMarkersInAllThreeForms() throws {
        let out = SCTE35.hex(SCTE35.spliceInsert(eventID: 42, outOfNetwork: true, at: MediaTime(seconds: 40),
                                                 breakDuration: MediaTime(seconds: 12)))
        let back = SCTE35.hex(SCTE35.spliceInsert(eventID: 42, outOfNetwork: false, at: MediaTime(seconds: 52), breakDuration: nil))
        let text = """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:100
            #EXTINF:2.000,
            s100.ts
            #EXT-X-CUE-OUT:DURATION=4
            #EXTINF:2.000,
            s101.ts
            #EXT-X-CUE-OUT-CONT:ElapsedTime=2,Duration=4
            #EXTINF:2.000,
            s102.ts
            #EXT-X-CUE-IN
            #EXTINF:1.5015,
            s103.ts
            #EXT-X-DISCONTINUITY
            #EXT-X-DATERANGE:ID="b42",START-DATE="2026-12-01T00:00:40Z",PLANNED-DURATION=12,SCTE35-OUT=\(out)
            #EXTINF:2.000,
            s104.ts
            #EXT-X-DATERANGE:ID="b42",START-DATE="2026-12-01T00:00:40Z",SCTE35-IN=\(back)
            #EXTINF:2.000,
            s105.ts
            #EXT-X-CUE-OUT:30
            #EXTINF:2.000,
            s106.ts
            """
        let p = try LivePlaylist(parsing: text)
        #expect(p.targetDuration == MediaTime(seconds: 2) && p.mediaSequence == 100 && !p.ended)
        #expect(p.segments.map(\.sequence) == Array(100...106))
        #expect(p.segments[3].duration == MediaTime(value: 15_015, timescale: 10_000))
        #expect(p.segments.map(\.discontinuity) == [false, false, false, false, true, false, false])
        #expect(p.segments[1].markers == [.cueOut(duration: MediaTime(seconds: 4))])
        #expect(p.segments[2].markers == [.cueOutCont(elapsed: MediaTime(seconds: 2), duration: MediaTime(seconds: 4))])
        #expect(p.segments[3].markers == [.cueIn])
        #expect(p.segments[6].markers == [.cueOut(duration: MediaTime(seconds: 30))])
        guard case .dateRange(let r) = p.segments[4].markers.first else { Issue.record("no DATERANGE"); return }
        #expect(r.id == "b42" && r.plannedDuration == MediaTime(seconds: 12) && r.hasOut && r.out != nil)

        // Segment first PTS: 10 s + 2 s per segment (s103 is 1.5015 s).
        let starts: [Int64] = [900_000, 1_080_000, 1_260_000, 1_440_000, 1_575_135, 1_755_135, 1_935_135]
        var tracker = LiveBreakTracker()
        for (s, pts) in zip(p.segments, starts) { tracker.add(sequence: s.sequence, firstPTS: pts, markers: s.markers, cues: []) }
        // A second poll of the same playlist changes nothing.
        for (s, pts) in zip(p.segments, starts) { tracker.add(sequence: s.sequence, firstPTS: pts, markers: s.markers, cues: []) }
        #expect(tracker.breaks == [
            LiveBreak(id: "cue-101", startPTS: 1_080_000, startSequence: 101, plannedDuration: MediaTime(seconds: 4),
                      endPTS: 1_440_000, source: .cueMarkers, kind: .marker),
            LiveBreak(id: "daterange-b42", startPTS: 3_600_000, startSequence: 104, plannedDuration: MediaTime(seconds: 12),
                      endPTS: 4_680_000, source: .dateRange, kind: .spliceInsert, scte: .spliceInsert(42)),
            LiveBreak(id: "cue-106", startPTS: 1_935_135, startSequence: 106, plannedDuration: MediaTime(seconds: 30),
                      endPTS: nil, source: .cueMarkers, kind: .marker),
        ])
        let expectedEnd: Int64? = 1_935_135 + 2_700_000
        #expect(tracker.breaks[2].expectedEndPTS == expectedEnd)
    }

    @Test func joiningMidBreakAndSegmentationEnds() throws {
        var tracker = LiveBreakTracker()
        tracker.add(sequence: 7, firstPTS: 900_000, markers: [.cueOutCont(elapsed: MediaTime(seconds: 6), duration: MediaTime(seconds: 20))], cues: [])
        tracker.add(sequence: 8, firstPTS: 1_080_000, markers: [.cueIn], cues: [])
        #expect(tracker.breaks.map(\.startPTS) == [360_000] && tracker.breaks[0].endPTS == 1_080_000)
        let start = try SCTE35Section(parsing: SCTE35.timeSignal(at: MediaTime(seconds: 13), segmentation: [.init(eventID: 3, typeID: 0x36, duration: MediaTime(seconds: 8))]))
        let end = try SCTE35Section(parsing: SCTE35.timeSignal(at: MediaTime(seconds: 21), segmentation: [.init(eventID: 3, typeID: 0x37)]))
        tracker.add(sequence: 9, firstPTS: 1_170_000, markers: [], cues: [start, start])
        tracker.add(sequence: 10, firstPTS: 1_890_000, markers: [], cues: [end])
        #expect(tracker.breaks.last == LiveBreak(id: "segmentation-3", startPTS: 1_170_000, startSequence: 9,
                                                 plannedDuration: MediaTime(seconds: 8), endPTS: 1_890_000,
                                                 source: .inBand, kind: .segmentation(typeID: 0x36), scte: .segmentation(3, typeID: 0x36)))
        // PTS near the 33-bit wrap unwraps onto the channel's clock.
        #expect(LivePTS.unwrap(100, near: LivePTS.wrap - 50) == LivePTS.wrap + 100)
        #expect(LivePTS.unwrap(UInt64(LivePTS.wrap - 10), near: LivePTS.wrap + 5) == LivePTS.wrap - 10)
    }
}

/// Sections written into TS packets (a long time_signal spanning packets, two cues sharing a
/// packet, a damaged one) come back whole from `SCTE35TransportScan`, as threefive reads them.
@Suite struct ServeLiveInBandTests {
    @Test(.enabled(if: ThreeFive.available, "needs threefive (make setup)"))
    func sectionsAcrossPacketsMatchThreefive() throws {
        var descriptors: [SCTE35.Segmentation] = []
        for i in 0..<12 {
            let type: UInt8 = i % 2 == 0 ? 0x34 : 0x35
            descriptors.append(SCTE35.Segmentation(eventID: UInt32(1000 + i), typeID: type, duration: MediaTime(seconds: Int64(10 + i))))
        }
        let long = SCTE35.timeSignal(at: MediaTime(seconds: 20), segmentation: descriptors)
        #expect(long.count > 184)
        let a = SCTE35.spliceInsert(eventID: 1, outOfNetwork: true, at: MediaTime(seconds: 30), breakDuration: MediaTime(seconds: 15),
                                    ptsAdjustment: MediaTime(seconds: 1))
        let b = SCTE35.spliceInsert(eventID: 1, outOfNetwork: false, at: MediaTime(seconds: 45), breakDuration: nil)
        var bad = b; bad[12] ^= 1
        var w = TSSectionWriter()
        let ts = w.programTables() + w.scte35([long, a, b]) + w.scte35([bad])
        let scan = SCTE35TransportScan(ts)
        #expect(scan.scte35PIDs == [500] && scan.rejected == 1)
        let found: [[UInt8]] = scan.cues.map { $0.bytes }
        #expect(found == [long, a, b])
        // Each section as threefive's Cue reads it.
        for cue in scan.cues {
            let ref = try ThreeFive.cue(SCTE35.hex(cue.bytes))
            let command = try #require(ref["command"] as? [String: Any])
            #expect(abs(Double(cue.section.splicePTS! - cue.section.ptsAdjustment) / 90_000 - (command["pts_time"] as? Double ?? -1)) < 0.000_01)
            #expect(cue.section.segmentation.count == (ref["descriptors"] as? [Any])?.count)
        }
        // threefive's Stream (3.1.5) fails with a UnicodeDecodeError on a section that spans
        // packets after a pointer field and reads only the first section of a packet, so its
        // stream reading is checked on short cues, each in its own packet (as encoders send them).
        var w2 = TSSectionWriter()
        let short = w2.programTables() + w2.scte35([a]) + w2.scte35([b]) + w2.scte35([a])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("scte35-\(UUID().uuidString).ts")
        try Data(short).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let streamed = try ThreeFive.streamCues(file.path)
        let ours = SCTE35TransportScan(short).cues
        #expect(streamed.count == ours.count && ours.count == 3, "threefive \(streamed.count): \(streamed)")
        for (cue, ref) in zip(ours, streamed) {
            let command = try #require(ref["command"] as? [String: Any])
            #expect(abs(Double(cue.section.splicePTS! - cue.section.ptsAdjustment) / 90_000 - (command["pts_time"] as? Double ?? -1)) < 0.000_01)
            #expect(command["out_of_network_indicator"] as? Bool == (cue.section.command == (try SCTE35Section(parsing: a)).command))
        }
        let ids: [UInt32] = scan.cues[0].section.segmentation.map { $0.eventID }
        #expect(ids == Array(UInt32(1000)..<UInt32(1012)))
        #expect(scan.cues[1].section.splicePTS == 2_790_000)
    }
}

/// One origin segment taken in: first video PTS as ffprobe reads it, unwrapped past 2^33, and
/// its in-band cues.
@Suite struct ServeLiveIntakeTests {
    @Test(.enabled(if: FileManager.default.fileExists(atPath: ServeLiveSignalTests.sample), "needs the shared sample TS"))
    func sampleSegment() throws {
        let url = URL(fileURLWithPath: ServeLiveSignalTests.sample)
        let data = try Data(contentsOf: url)
        let entry = LivePlaylist.Segment(uri: "s.ts", duration: MediaTime(seconds: 2), sequence: 12, discontinuity: false, markers: [])
        let first = try #require(LiveSegmentIntake.take(data, entry: entry, channel: "c", rendition: "r", expectedPTS: nil))
        #expect(first.segment.storePath == "live/c/r/12.ts")
        #expect(first.cues.count == 3)
        // Near the wrap: the same segment one wrap later stays on the unwrapped clock.
        let later = try #require(LiveSegmentIntake.take(data, entry: entry, channel: "c", rendition: "r",
                                                        expectedPTS: LivePTS.wrap + first.segment.firstPTS - 900))
        #expect(later.segment.firstPTS == LivePTS.wrap + first.segment.firstPTS)
        #expect(LiveSegmentIntake.take(Data("#EXTM3U".utf8), entry: entry, channel: "c", rendition: "r", expectedPTS: nil) == nil)
        // ffprobe's first video packet PTS (decode order), independent of TSTimestamps.
        let out = Process()
        out.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        out.arguments = ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts",
                         "-read_intervals", "%+#1", "-of", "csv=p=0", url.path]
        let pipe = Pipe(); out.standardOutput = pipe
        try out.run(); out.waitUntilExit()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let probed = try #require(Int64(text.split(separator: "\n").first.map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: " ,")) } ?? ""))
        #expect(first.segment.firstPTS == probed)
    }

    /// SCTE-35 in a CMAF segment's `emsg` boxes (versions 0 and 1): the sections of the SCTE-35
    /// scheme read, other schemes passed over, a damaged section counted; hostile box sizes
    /// (past the end, under the header, a 64-bit size past the end, a string with no end) stop
    /// the scan without a trap.
    @Test func cmafEventMessagesCarrySCTE35() throws {
        func u32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] { u32(UInt32(8 + body.count)) + Array(type.utf8) + body }
        func v0(_ scheme: String, _ data: [UInt8]) -> [UInt8] {
            box("emsg", [0, 0, 0, 0] + Array(scheme.utf8) + [0] + Array("1".utf8) + [0] + u32(90_000) + u32(0) + u32(0) + u32(7) + data)
        }
        func v1(_ scheme: String, _ data: [UInt8]) -> [UInt8] {
            box("emsg", [1, 0, 0, 0] + u32(90_000) + u32(0) + u32(450_450) + u32(0) + u32(8) + Array(scheme.utf8) + [0] + [0] + data)
        }
        let out = SCTE35.spliceInsert(eventID: 5, outOfNetwork: true, at: MediaTime(value: 900_000, timescale: 90_000),
                                      breakDuration: MediaTime(seconds: 30))
        let signal = SCTE35.timeSignal(at: MediaTime(value: 450_450, timescale: 90_000), segmentation: [])
        var damaged = out
        damaged[damaged.count - 1] ^= 0xFF
        let segment = box("styp", Array("msdh".utf8) + u32(0)) + v0(SCTE35EventMessageScan.scheme, out)
            + v0("urn:example:other", out) + v1(SCTE35EventMessageScan.scheme, signal) + v0(SCTE35EventMessageScan.scheme, damaged)
            + box("moof", [UInt8](repeating: 0, count: 16))
        let scan = SCTE35EventMessageScan(segment)
        #expect(scan.sections == [try SCTE35Section(parsing: out), try SCTE35Section(parsing: signal)])
        #expect(scan.rejected == 1)
        // hostile sizes: each ends the scan (what came before it still read), never a trap
        let good = v0(SCTE35EventMessageScan.scheme, out)
        for tail: [UInt8] in [u32(1 << 30) + Array("emsg".utf8), u32(4) + Array("emsg".utf8), u32(1) + Array("emsg".utf8) + u32(0xFFFF) + u32(0),
                              box("emsg", [0, 0, 0, 0] + Array("urn:scte:scte35".utf8)), box("emsg", [1, 0, 0]), [0, 0, 0]] {
            let s = SCTE35EventMessageScan(good + tail)
            #expect(s.sections.count == 1)
        }
    }
}
