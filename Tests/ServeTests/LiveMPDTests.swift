import Foundation
import Manifest
@testable import Playback
@testable import Serve
import TestSupport
import Testing
import Timing

/// `LiveMPD`: a live DASH origin's MPD read as the live channel's playlists, from MPDs written
/// here as packagers write them (SegmentTimeline with `$Time$` and `$Number$`, `@duration`
/// templates on the availability clock, several Periods, SCTE-35 Events in each scheme), and the
/// hostile ones refused in one line.
struct LiveMPDTests {
    static let ast = "2026-12-05T08:00:00Z"
    static let astDate = DASH.dateTime(parsing: ast)!

    /// A dynamic MPD of `period` (its inner XML) with `attributes` on the MPD.
    static func mpd(_ period: String, attributes: String = "timeShiftBufferDepth=\"PT30S\"", type: String = "dynamic") -> String {
        """
        <?xml version="1.0"?>
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="\(type)" availabilityStartTime="\(ast)" \(attributes) minBufferTime="PT2S" profiles="urn:mpeg:dash:profile:isoff-live:2011">
        <BaseURL>https://origin.example/live/</BaseURL>
        \(period)
        </MPD>
        """
    }

    static let video = """
        <AdaptationSet contentType="video" mimeType="video/mp4">
        <SegmentTemplate timescale="90000" initialization="$RepresentationID$/init.mp4" media="$RepresentationID$/t$Time$.m4s">
        <SegmentTimeline><S t="900000" d="180000" r="3"/><S d="90000"/></SegmentTimeline></SegmentTemplate>
        <Representation id="low" bandwidth="300000" width="320" height="180"/>
        <Representation id="high" bandwidth="900000" width="640" height="360"/>
        </AdaptationSet>
        """
    static let audio = """
        <AdaptationSet contentType="audio" mimeType="audio/mp4" lang="en">
        <SegmentTemplate timescale="48000" startNumber="7" initialization="a/init.mp4" media="a/$Number%05d$.m4s">
        <SegmentTimeline><S t="480000" d="96000" r="4"/></SegmentTimeline></SegmentTemplate>
        <Representation id="a" bandwidth="128000"/>
        </AdaptationSet>
        """

    @Test func aSegmentTimelineIsEachRepresentationsPlaylist() throws {
        let m = try LiveMPD(parsing: Self.mpd("<Period id=\"p\" start=\"PT0S\">\(Self.video)\(Self.audio)</Period>"), now: Self.astDate + 30)
        #expect(m.videos.map(\.id) == ["high", "low"], "the highest bandwidth first")
        let p = m.videos[0].playlist
        #expect(p.segments.map(\.uri) == (0..<4).map { "https://origin.example/live/high/t\(900_000 + $0 * 180_000).m4s" }
                    + ["https://origin.example/live/high/t1620000.m4s"])
        #expect(p.segments.map(\.duration) == [2, 2, 2, 2].map { MediaTime(seconds: $0) } + [MediaTime(seconds: 1)])
        #expect(p.segments.map(\.mediaStart) == [10, 12, 14, 16, 18].map { MediaTime(seconds: Int64($0)) })
        #expect(p.segments.allSatisfy { $0.map == "https://origin.example/live/high/init.mp4" && !$0.discontinuity && $0.markers.isEmpty })
        #expect(p.targetDuration == MediaTime(seconds: 2) && !p.ended)
        #expect(p.numbersImplied, "$Time$ without startNumber: found by URI")
        #expect(m.hasAudio && m.audio.map(\.uri) == (7...11).map { String(format: "https://origin.example/live/a/%05d.m4s", $0) })
        #expect(m.audio.first?.start == MediaTime(seconds: 10) && m.audio.last?.end == MediaTime(seconds: 20))
    }

    /// Text AdaptationSets: WebVTT or TTML in MP4 are subtitle tracks (their `lang`, `Label`, at
    /// most 4, the segments with their media-time shift onto the video's), other text a note.
    @Test func textInMP4IsASubtitleTrackAndOtherTextANote() throws {
        func text(_ lang: String, _ mime: String, _ codecs: String, pto: Int = 0) -> String {
            """
            <AdaptationSet contentType="text" mimeType="\(mime)" lang="\(lang)"><Label>\(lang.uppercased())</Label>
            <SegmentTemplate timescale="1000" presentationTimeOffset="\(pto)" startNumber="1" initialization="t-\(lang)/init.mp4" media="t-\(lang)/$Number$.m4s">
            <SegmentTimeline><S t="\(10_000 + pto)" d="2000" r="4"/></SegmentTimeline></SegmentTemplate>
            <Representation id="t-\(lang)" bandwidth="1000" codecs="\(codecs)"/>
            </AdaptationSet>
            """
        }
        let sets = text("en", "application/mp4", "wvtt") + text("fr", "application/mp4", "stpp.ttml.im1t", pto: 5_000)
            + text("de", "text/vtt", "") + text("es", "application/mp4", "wvtt") + text("it", "application/mp4", "wvtt") + text("nl", "application/mp4", "wvtt")
        let m = try LiveMPD(parsing: Self.mpd("<Period id=\"p\" start=\"PT0S\">\(Self.video)\(sets)</Period>"), now: Self.astDate + 30)
        #expect(m.texts.map(\.rendition.language) == ["en", "fr", "es", "it"] && m.texts.map(\.rendition.name) == ["EN", "FR", "ES", "IT"])
        #expect(m.texts.allSatisfy { $0.rendition.type == .subtitles && $0.segments.count == 5 })
        #expect(m.texts[0].segments.first?.uri == "https://origin.example/live/t-en/1.m4s" && m.texts[0].segments.first?.start == MediaTime(seconds: 10))
        #expect(m.texts[0].segments.first?.shift == .zero && m.texts[1].segments.first?.shift == MediaTime(seconds: -5), "onto the video's media time")
        #expect(m.notes.contains { $0.contains("'text/vtt'") } && m.notes.contains { $0.contains("more than 4 text") }, "\(m.notes)")
    }

    @Test func aDurationTemplateListsWhatHasEndedOnTheAvailabilityClock() throws {
        let period = """
            <Period id="p" start="PT10S"><AdaptationSet contentType="video" mimeType="video/mp4">
            <SegmentTemplate timescale="1000" duration="4000" startNumber="100" presentationTimeOffset="5000" initialization="i.mp4" media="s$Number$.m4s"/>
            <Representation id="v" bandwidth="1"/></AdaptationSet></Period>
            """
        // 10 s into the Period at now = AST + 20.5: segments 0 and 1 (4 s each) have ended, 2 has not
        let early = try LiveMPD(parsing: Self.mpd(period), now: Self.astDate + 20.5)
        #expect(early.videos[0].playlist.segments.map(\.sequence) == [100, 101])
        #expect(early.videos[0].playlist.segments.map(\.mediaStart) == [MediaTime(seconds: 5), MediaTime(seconds: 9)])
        #expect(!early.videos[0].playlist.numbersImplied)
        // an hour on: only the last 30 s (timeShiftBufferDepth)
        let later = try LiveMPD(parsing: Self.mpd(period), now: Self.astDate + 3610)
        let numbers = later.videos[0].playlist.segments.map(\.sequence)
        #expect(numbers.last == 100 + 900 - 1 && numbers.count == 8, "\(numbers)")
        #expect(later.videos[0].playlist.mediaSequence == numbers.first)
        // no availabilityStartTime: a duration template cannot be placed in time
        let noClock = Self.mpd(period).replacingOccurrences(of: "availabilityStartTime=\"\(Self.ast)\"", with: "")
        #expect(throws: StoreError.self) { try LiveMPD(parsing: noClock, now: Self.astDate) }
    }

    @Test func anOpenRepeatRunsToNow() throws {
        let period = """
            <Period id="p" start="PT0S"><AdaptationSet contentType="video" mimeType="video/mp4">
            <SegmentTemplate timescale="10" startNumber="1" initialization="i.mp4" media="$Number$.m4s"><SegmentTimeline><S t="0" d="20" r="-1"/></SegmentTimeline></SegmentTemplate>
            <Representation id="v" bandwidth="1"/></AdaptationSet></Period>
            """
        let m = try LiveMPD(parsing: Self.mpd(period), now: Self.astDate + 9)
        #expect(m.videos[0].playlist.segments.map(\.sequence) == [1, 2, 3, 4], "4 segments of 2 s have ended at 9 s")
    }

    @Test func aLaterPeriodsFirstSegmentIsADiscontinuity() throws {
        let p1 = "<Period id=\"a\" start=\"PT0S\">\(Self.video)</Period>"
        let p2 = """
            <Period id="b" start="PT100S"><AdaptationSet contentType="video" mimeType="video/mp4">
            <SegmentTemplate timescale="90000" initialization="b/$RepresentationID$/init.mp4" media="b/$RepresentationID$/$Time$.m4s">
            <SegmentTimeline><S t="0" d="180000" r="1"/></SegmentTimeline></SegmentTemplate>
            <Representation id="low" bandwidth="300000"/><Representation id="high" bandwidth="900000"/></AdaptationSet></Period>
            """
        let m = try LiveMPD(parsing: Self.mpd(p1 + p2, attributes: "timeShiftBufferDepth=\"PT300S\""), now: Self.astDate + 200)
        let s = m.videos[0].playlist.segments
        #expect(s.count == 7)
        #expect(s.map(\.discontinuity) == [false, false, false, false, false, true, false])
        #expect(s[5].map == "https://origin.example/live/b/high/init.mp4")
        #expect(m.videos[0].playlist.numbersImplied)
        // numbered by place, consecutive across the Period (its own numbers restart at 1: taken
        // as they are, the channel numbered two segments alike and folded the second's signals away)
        #expect(s.map(\.sequence) == Array(0..<7), "\(s.map(\.sequence))")
        // a later Period under the same initialization segments, its timeline running on: one stream
        let same = p2.replacingOccurrences(of: "initialization=\"b/$RepresentationID$/init.mp4\"", with: "initialization=\"$RepresentationID$/init.mp4\"")
        let continued = try LiveMPD(parsing: Self.mpd(p1 + same, attributes: "timeShiftBufferDepth=\"PT300S\""), now: Self.astDate + 200)
        #expect(continued.videos[0].playlist.segments.allSatisfy { !$0.discontinuity } && continued.videos[0].playlist.segments.count == 7)
    }

    /// Each SCTE-35 scheme: the Event on the segment holding its time, its splice PTS the
    /// Event's time on the media timeline (not the section's own `pts_time`).
    @Test func scte35EventsAreMarkersAtTheirTime() throws {
        // a splice_insert OUT, event 42, 30 s break, its own pts_time 1234 (ignored: the Event's time rules)
        let binary = Data(LiveOriginSCTE35.spliceInsert(eventID: 42, outOfNetwork: true, pts: 1234, breakDuration: 2_700_000)).base64EncodedString()
        let events = """
            <EventStream schemeIdUri="urn:scte:scte35:2014:xml+bin" timescale="90000">
              <Event presentationTime="1008000" duration="2700000" id="1"><Signal xmlns="http://www.scte.org/schemas/35/2016"><Binary>\(binary)</Binary></Signal></Event>
            </EventStream>
            <EventStream schemeIdUri="urn:scte:scte35:2013:xml" timescale="1000">
              <Event presentationTime="16500" id="2"><scte35:SpliceInfoSection xmlns:scte35="http://www.scte.org/schemas/35/2016" ptsAdjustment="0">
                <scte35:SpliceInsert spliceEventId="42" outOfNetworkIndicator="false"><scte35:Program><scte35:SpliceTime ptsTime="1"/></scte35:Program></scte35:SpliceInsert>
              </scte35:SpliceInfoSection></Event>
              <Event presentationTime="17000" id="3"><scte35:SpliceInfoSection xmlns:scte35="http://www.scte.org/schemas/35/2016">
                <scte35:TimeSignal><scte35:SpliceTime ptsTime="5"/></scte35:TimeSignal>
                <scte35:SegmentationDescriptor segmentationEventId="9" segmentationTypeId="52" segmentationDuration="180000"/>
              </scte35:SpliceInfoSection></Event>
              <Event presentationTime="500000" id="4"><scte35:SpliceInfoSection xmlns:scte35="http://www.scte.org/schemas/35/2016"><scte35:SpliceInsert spliceEventId="7" outOfNetworkIndicator="true"/></scte35:SpliceInfoSection></Event>
            </EventStream>
            <EventStream schemeIdUri="urn:example:other" timescale="1"><Event presentationTime="11" id="5">x</Event></EventStream>
            """
        let m = try LiveMPD(parsing: Self.mpd("<Period id=\"p\" start=\"PT0S\">\(events)\(Self.video)</Period>"), now: Self.astDate + 30)
        let s = m.videos[1].playlist.segments
        // media time = Period time (no presentationTimeOffset): 11.2 s in the segment at 10 s, 16.5 and 17 s in the one at 16 s
        func sections(_ i: Int) -> [SCTE35Section] { s[i].markers.compactMap { if case .splice(let x) = $0 { x.section } else { nil } } }
        #expect(sections(0).map(\.splicePTS) == [1_008_000])
        #expect(sections(0).first.map { LiveMPD.reach($0) } == MediaTime(seconds: 30))
        #expect(sections(1).isEmpty && sections(2).isEmpty && sections(4).isEmpty)
        #expect(sections(3).map(\.splicePTS) == [1_485_000, 1_530_000])
        if case .timeSignal = sections(3).last?.command {} else { Issue.record("the time_signal: \(sections(3))") }
        #expect(sections(3).last?.segmentation.first?.typeID == 0x34)
        // the tracker takes them as in-band sections: one break, 11.2 s to 16.5 s
        var tracker = LiveBreakTracker()
        for (n, seg) in s.enumerated() {
            tracker.add(sequence: n, firstPTS: seg.mediaStart!.mpegTicks, markers: seg.markers, cues: [])
        }
        #expect(tracker.breaks.first.map { [$0.startPTS, $0.endPTS ?? -1] } == [1_008_000, 1_485_000], "\(tracker.breaks)")
    }

    /// Sample-encrypted CMAF (`ContentProtection`): read as clear content is, its descriptors
    /// kept (checked as hostile values), its video segments marked `sampleEncrypted`, the main
    /// sound's descriptors kept, other languages left out with a note; video Representations
    /// some encrypted and some clear refused in one line.
    @Test func contentProtectionIsKeptAndItsSegmentsMarked() throws {
        let cbcs = "<ContentProtection xmlns:cenc=\"urn:mpeg:cenc:2013\" schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\" value=\"cbcs\" cenc:default_KID=\"05121f2c-3946-5360-6d7a-8794a1aebbc8\"/>"
        let clearKey = "<ContentProtection xmlns:cenc=\"urn:mpeg:cenc:2013\" schemeIdUri=\"urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e\"><cenc:pssh>AAAA</cenc:pssh></ContentProtection>"
        func protected(_ set: String) -> String { set.replacingOccurrences(of: "<SegmentTemplate", with: cbcs + clearKey + "<SegmentTemplate") }
        let german = Self.audio.replacingOccurrences(of: "lang=\"en\"", with: "lang=\"de\"").replacingOccurrences(of: "a/", with: "de/")
        let m = try LiveMPD(parsing: Self.mpd("<Period id=\"p\" start=\"PT0S\">\(protected(Self.video))\(protected(Self.audio))\(german)</Period>"), now: Self.astDate + 30)
        #expect(m.videoProtection.map(\.schemeIdUri) == ["urn:mpeg:dash:mp4protection:2011", "urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e"])
        #expect(m.videoProtection.first?.value == "cbcs" && m.videoProtection.first?.defaultKID == "05121f2c-3946-5360-6d7a-8794a1aebbc8"
                && m.videoProtection.last?.pssh == "AAAA")
        #expect(m.audioProtection == m.videoProtection, "the sound's own descriptors")
        #expect(m.videos.allSatisfy { $0.playlist.segments.allSatisfy { $0.sampleEncrypted && $0.isSampleEncryptedCMAF } } && !m.videos.isEmpty)
        // another language is carried, with its own descriptors (here clear; encrypted below)
        #expect(m.languages.map(\.rendition.language) == ["de"] && m.languages[0].audio.allSatisfy { $0.protection.isEmpty } && !m.languages[0].audio.isEmpty)
        #expect(m.audio.allSatisfy { $0.protection == m.audioProtection } && !m.audio.isEmpty)
        let sealed = try LiveMPD(parsing: Self.mpd("<Period id=\"p\" start=\"PT0S\">\(protected(Self.video))\(protected(Self.audio))\(protected(german))</Period>"), now: Self.astDate + 30)
        #expect(sealed.languages.first?.audio.allSatisfy { $0.protection.first?.defaultKID == "05121f2c-3946-5360-6d7a-8794a1aebbc8" } == true)
        // an encrypted language beside clear video is left out
        let clearVideo = try LiveMPD(parsing: Self.mpd("<Period id=\"p\" start=\"PT0S\">\(Self.video)\(Self.audio)\(protected(german))</Period>"), now: Self.astDate + 30)
        #expect(clearVideo.languages.allSatisfy { $0.audio.isEmpty })
        // a key rotated at a Period: each Period's segments said under its own descriptors, found by
        // the initialization segment they are under (the first Period's stay what the channel says first)
        let rotated = cbcs.replacingOccurrences(of: "05121f2c-3946-5360-6d7a-8794a1aebbc8", with: "5b6c7d8e-9fa0-b1c2-d3e4-f5061728394a")
        let p2 = """
            <Period id="b" start="PT100S"><AdaptationSet contentType="video" mimeType="video/mp4">\(rotated)\(clearKey)
            <SegmentTemplate timescale="90000" initialization="b/$RepresentationID$/init.mp4" media="b/$RepresentationID$/$Time$.m4s">
            <SegmentTimeline><S t="0" d="180000" r="1"/></SegmentTimeline></SegmentTemplate>
            <Representation id="low" bandwidth="300000"/><Representation id="high" bandwidth="900000"/></AdaptationSet></Period>
            """
        let two = try LiveMPD(parsing: Self.mpd("<Period id=\"a\" start=\"PT0S\">\(protected(Self.video))</Period>" + p2, attributes: "timeShiftBufferDepth=\"PT300S\""),
                              now: Self.astDate + 200)
        let maps = two.videos[0].playlist.segments.compactMap(\.map)
        #expect(Set(maps) == ["https://origin.example/live/high/init.mp4", "https://origin.example/live/b/high/init.mp4"], "\(maps)")
        #expect(two.protection(initialization: "https://origin.example/live/high/init.mp4")?.first?.defaultKID == "05121f2c-3946-5360-6d7a-8794a1aebbc8")
        #expect(two.protection(initialization: "https://origin.example/live/b/low/init.mp4")?.first?.defaultKID == "5b6c7d8e-9fa0-b1c2-d3e4-f5061728394a")
        #expect(two.protection(initialization: "https://origin.example/live/elsewhere/init.mp4") == nil && two.videoProtection.first?.defaultKID == "05121f2c-3946-5360-6d7a-8794a1aebbc8")
        // a clear MPD marks nothing
        let clear = try LiveMPD(parsing: Self.mpd("<Period id=\"p\" start=\"PT0S\">\(Self.video)\(Self.audio)</Period>"), now: Self.astDate + 30)
        #expect(clear.videoProtection.isEmpty && clear.videos.allSatisfy { $0.playlist.segments.allSatisfy { !$0.isSampleEncryptedCMAF } })
        // one video AdaptationSet encrypted, another clear
        let mixed = Self.mpd("<Period id=\"p\" start=\"PT0S\">\(protected(Self.video))\(Self.video.replacingOccurrences(of: "id=\"", with: "id=\"x"))</Period>")
        #expect(throws: StoreError.unsupported("live DASH source: some video Representations encrypted and some clear")) { try LiveMPD(parsing: mixed, now: Self.astDate + 30) }
    }

    @Test func hostileMPDsAreRefusedInOneLine() throws {
        let period = "<Period id=\"p\" start=\"PT0S\">\(Self.video)</Period>"
        let cases: [(String, String)] = [
            ("not XML", "not XML <"),
            ("entities", "<?xml version=\"1.0\"?><!DOCTYPE MPD [<!ENTITY x \"y\">]><MPD type=\"dynamic\">&x;</MPD>"),
            ("not an MPD", "<VAST/>"),
            ("a hostile ContentProtection", Self.mpd(period.replacingOccurrences(of: "<SegmentTemplate", with: "<ContentProtection schemeIdUri=\"javascript:alert(1)\"/><SegmentTemplate"))),
            ("a ContentProtection's key id", Self.mpd(period.replacingOccurrences(of: "<SegmentTemplate", with: "<ContentProtection xmlns:cenc=\"urn:mpeg:cenc:2013\" schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\" value=\"cbcs\" cenc:default_KID=\"not-a-uuid\"/><SegmentTemplate"))),
            ("SegmentList", Self.mpd(period.replacingOccurrences(of: "<SegmentTemplate", with: "<SegmentList/><SegmentTemplate"))),
            ("a huge repeat", Self.mpd(period.replacingOccurrences(of: "r=\"3\"", with: "r=\"99999999999\""))),
            ("a negative duration", Self.mpd(period.replacingOccurrences(of: "d=\"90000\"", with: "d=\"-5\""))),
            ("a two-minute segment", Self.mpd(period.replacingOccurrences(of: "d=\"90000\"", with: "d=\"10800000\""))),
            ("an undefined identifier", Self.mpd(period.replacingOccurrences(of: "$Time$", with: "$Evil$"))),
            ("a far time", Self.mpd(period.replacingOccurrences(of: "t=\"900000\"", with: "t=\"9223372036854775000\""))),
            ("audio on another timeline", Self.mpd(period.replacingOccurrences(of: "</Period>", with: Self.audio.replacingOccurrences(of: "startNumber", with: "presentationTimeOffset=\"4800000\" startNumber") + "</Period>"))),
        ]
        for (what, text) in cases {
            do {
                _ = try LiveMPD(parsing: text, now: Self.astDate + 30)
                Issue.record("\(what): read")
            } catch let e as StoreError {
                let line = "\(e)"
                #expect(line.contains("DASH source") && !line.contains("\n"), "\(what): \(line)")
            }
        }
    }

    /// An MPD flooding its Period with Events: at most `maxEvents` read, the segments listed all the same.
    @Test func aFloodOfEventsIsBounded() throws {
        let events = (0..<5_000).map { "<Event presentationTime=\"\(1_000_000 + $0)\" duration=\"90000\" id=\"\($0)\"/>" }.joined()
        let period = "<Period id=\"p\" start=\"PT0S\"><EventStream schemeIdUri=\"urn:scte:scte35:2013:xml\" timescale=\"90000\">\(events)</EventStream>\(Self.video)</Period>"
        let m = try LiveMPD(parsing: Self.mpd(period), now: Self.astDate + 30)
        let markers = m.videos[0].playlist.segments.map(\.markers.count).reduce(0, +)
        #expect(markers == LiveMPD.maxEvents && m.videos[0].playlist.segments.count == 5, "\(markers)")
    }

    @Test func aStaticMPDIsTheEnd() throws {
        let m = try LiveMPD(parsing: Self.mpd("<Period id=\"p\" start=\"PT0S\">\(Self.video)</Period>", type: "static"), now: Self.astDate + 30)
        #expect(m.ended && m.videos[0].playlist.ended && m.videos[0].playlist.segments.count == 5)
    }

}
