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
}
