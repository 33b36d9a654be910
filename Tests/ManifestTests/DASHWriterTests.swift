import Foundation
import Manifest
import Testing
import Timing
import TestSupport

/// The DASH writer: escaping, folded timelines, the timing rules `validate` keeps, and its
/// output as the DASH schema reads it (and a broken one refused, so the check can fail).
struct DASHWriterTests {
    static func mpd() -> DASH.MPD {
        let template = DASH.SegmentTemplate(timescale: 1000, initialization: "i&1.mp4", media: "s$Number$.m4s", startNumber: 0,
                                            timeline: DASH.SegmentTemplate.timeline([(0, 2000), (2000, 2000), (4000, 1000)]))
        let set = DASH.AdaptationSet(id: 1, contentType: "video", mimeType: "video/mp4", segmentTemplate: template,
                                     representations: [DASH.Representation(id: "v\"1", bandwidth: 1, codecs: "avc1.64001F", width: 640, height: 360)])
        let events = DASH.EventStream(schemeIdUri: DASH.scte35Scheme, timescale: 1000,
                                      events: [DASH.Event(id: 1, presentationTime: 2000, duration: 1000, payload: .scte35([0xFC, 0x30, 0x11]))])
        return DASH.MPD(mediaPresentationDuration: MediaTime(value: 5, timescale: 1), minBufferTime: MediaTime(seconds: 2),
                        periods: [DASH.Period(id: "0", start: .zero, eventStreams: [events], adaptationSets: [set])])
    }

    @Test func escapesFoldsAndChecksItsTimeline() {
        let template = DASH.SegmentTemplate(timescale: 1000, initialization: "i&1.mp4", media: "s$Number$.m4s", startNumber: 0,
                                            timeline: DASH.SegmentTemplate.timeline([(0, 2000), (2000, 2000), (4000, 1000)]))
        #expect(template.timeline == [DASH.TimelineEntry(start: 0, duration: 2000, repeats: 1), DASH.TimelineEntry(start: 4000, duration: 1000)])
        let set = DASH.AdaptationSet(id: 1, contentType: "video", mimeType: "video/mp4", segmentTemplate: template,
                                     representations: [DASH.Representation(id: "v\"1", bandwidth: 1, codecs: "avc1.64001F")])
        var mpd = DASH.MPD(mediaPresentationDuration: MediaTime(value: 5, timescale: 1), minBufferTime: MediaTime(seconds: 2),
                           periods: [DASH.Period(id: "0", start: .zero, adaptationSets: [set])])
        #expect(mpd.validate() == nil)
        let text = DASH.write(mpd)
        #expect(text.contains("initialization=\"i&amp;1.mp4\"") && text.contains("id=\"v&quot;1\"") && text.contains("<S t=\"0\" d=\"2000\" r=\"1\"/>"))
        #expect(text.contains("mediaPresentationDuration=\"PT5S\""))
        // a gap in the timeline, periods out of order: refused with the reason
        mpd.periods[0].adaptationSets[0].segmentTemplate?.timeline.append(DASH.TimelineEntry(start: 6000, duration: 1000))
        #expect(mpd.validate()?.contains("does not start where the one before it ends") == true)
        mpd = DASH.MPD(mediaPresentationDuration: nil, minBufferTime: .zero, periods: [])
        #expect(mpd.validate() == "an MPD has at least one Period")
    }

    @Test func theSchemaAcceptsWhatItWritesAndRefusesABrokenMPD() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dash-writer-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("good.mpd"), bad = dir.appendingPathComponent("bad.mpd")
        let text = DASH.write(Self.mpd())
        try Data(text.utf8).write(to: good)
        #expect(try await DASHSchema.problems(good) == [])
        #expect(text.contains("<scte35:Binary>/DAR</scte35:Binary>"), "base64 of the section")
        // an S without its duration, an unknown attribute on the MPD
        try Data(text.replacingOccurrences(of: " d=\"2000\"", with: "").replacingOccurrences(of: "<MPD ", with: "<MPD bogus=\"1\" ").utf8).write(to: bad)
        #expect(try await DASHSchema.problems(bad).count >= 2)
    }

    /// Multi-period with segment lists (what a session's MPD is): the schema takes it, the
    /// durations are written to the microsecond (a 90 kHz tick reads back as itself), and
    /// `validate` refuses Periods that do not meet and lists whose URLs do not match their timeline.
    @Test func periodsOfSegmentListsMeetExactly() async throws {
        func period(_ id: String, start: MediaTime, ticks: [Int64], urls: Int, asset: String? = nil) -> DASH.Period {
            var at: Int64 = 1_000
            let timeline = DASH.SegmentTemplate.timeline(ticks.map { d in defer { at += d }; return (at, d) })
            var rep = DASH.Representation(id: "180p", bandwidth: 1, codecs: "avc3.64000D")
            rep.segmentList = DASH.SegmentList(timescale: 90_000, presentationTimeOffset: 1_000, initialization: "\(id).mp4", timeline: timeline,
                                               media: (0..<urls).map { "\(id)-\($0).m4s?a=1&b=2" })
            let set = DASH.AdaptationSet(id: 1, contentType: "video", mimeType: "video/mp4", segmentTemplate: nil, representations: [rep])
            return DASH.Period(id: id, start: start, duration: MediaTime(value: ticks.reduce(0, +), timescale: 90_000),
                               assetIdentifier: asset.map { DASH.Descriptor(schemeIdUri: DASH.assetIdentifierScheme, value: $0) }, adaptationSets: [set])
        }
        let first = MediaTime(value: 139_500, timescale: 90_000)   // 1.55 s: 46.5 frames' worth, not a whole millisecond of frames
        let p0 = period("c0", start: .zero, ticks: [90_000, 49_500], urls: 2)
        let p1 = period("ad", start: first, ticks: [180_000], urls: 1, asset: "ad-1")
        let p2 = period("c1", start: first + MediaTime(value: 2, timescale: 1), ticks: [39_000, 180_000], urls: 2)
        let total = MediaTime(value: 139_500 + 180_000 + 219_000, timescale: 90_000)
        let mpd = DASH.MPD(profiles: [DASH.mainProfile], mediaPresentationDuration: total, minBufferTime: MediaTime(seconds: 2), periods: [p0, p1, p2])
        #expect(mpd.validate() == nil)
        let text = DASH.write(mpd)
        #expect(text.contains(#"start="PT1.55S""#) && text.contains(#"<AssetIdentifier schemeIdUri="urn:org:dashif:asset-id:2013" value="ad-1"/>"#))
        #expect(DASH.duration(MediaTime(value: 1, timescale: 30)) == "PT0.033333S")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("lists-\(getpid()).mpd")
        try text.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try await DASHSchema.problems(file) == [])
        let read = try DASHPeriods.read(file)
        #expect(zip(read.periods, read.periods.dropFirst()).allSatisfy { $0.start + ($0.duration ?? 0) == $1.start })
        #expect(read.periods.last.map { $0.start + ($0.duration ?? 0) } == read.duration)

        var gap = mpd
        gap.periods[1].start = gap.periods[1].start + MediaTime(value: 1, timescale: 90_000)
        #expect(gap.validate()?.contains("not where Period ad starts") == true)
        var short = mpd
        short.periods[0].adaptationSets[0].representations[0].segmentList!.media.removeLast()
        #expect(short.validate()?.contains("1 SegmentURLs for 2 segments") == true)
    }
}
