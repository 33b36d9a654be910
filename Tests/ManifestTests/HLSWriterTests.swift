import Foundation
import Manifest
import Testing
import Timing

/// The one writer: the text of each tag and attribute, the tag order before a segment, the
/// version derived from the features used.
@Suite struct HLSWriterTests {
    let date = Date(timeIntervalSince1970: 1_764_780_811.25)   // 2025-12-03T16:53:31.250Z

    @Test func aVODPlaylistIsWrittenTagByTag() {
        let out = HLS.DateRange(id: "b1", startDate: date, plannedDuration: MediaTime(value: 15, timescale: 2), scte35Out: [0xFC, 0x30, 0x11])
        let ad = HLS.DateRange(id: "b1-ad-1", rangeClass: "com.interlude.ad", startDate: date, duration: MediaTime(seconds: 5),
                               clientAttributes: [HLS.ClientAttribute("X-AD-ID", .string("a\"d\n1"))])
        let back = HLS.DateRange(id: "b1", startDate: date, duration: MediaTime(value: 15, timescale: 2), scte35In: [0xFC, 0x30])
        let segments = [
            HLS.Segment(uri: "c0.ts", duration: MediaTime(value: 6006, timescale: 1000), programDateTime: date),
            HLS.Segment(uri: "a0.ts?s=1&b=0", duration: MediaTime(seconds: 5), discontinuity: true, programDateTime: date,
                        markers: [.dateRange(out), .cueOut(duration: MediaTime(value: 15, timescale: 2)), .dateRange(ad)]),
            HLS.Segment(uri: "c1.ts", duration: MediaTime(value: 2, timescale: 3), discontinuity: true, programDateTime: date,
                        markers: [.cueIn, .dateRange(back)]),
        ]
        let text = HLS.write(HLS.MediaPlaylist.vod(segments))
        #expect(text == """
        #EXTM3U
        #EXT-X-VERSION:3
        #EXT-X-TARGETDURATION:6
        #EXT-X-MEDIA-SEQUENCE:0
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-PROGRAM-DATE-TIME:2025-12-03T16:53:31.250Z
        #EXTINF:6.006,
        c0.ts
        #EXT-X-DISCONTINUITY
        #EXT-X-PROGRAM-DATE-TIME:2025-12-03T16:53:31.250Z
        #EXT-X-DATERANGE:ID="b1",START-DATE="2025-12-03T16:53:31.250Z",PLANNED-DURATION=7.500,SCTE35-OUT=0xFC3011
        #EXT-X-CUE-OUT:DURATION=7.500
        #EXT-X-DATERANGE:ID="b1-ad-1",CLASS="com.interlude.ad",START-DATE="2025-12-03T16:53:31.250Z",DURATION=5.000,X-AD-ID="a'd 1"
        #EXTINF:5.000,
        a0.ts?s=1&b=0
        #EXT-X-CUE-IN
        #EXT-X-DATERANGE:ID="b1",START-DATE="2025-12-03T16:53:31.250Z",DURATION=7.500,SCTE35-IN=0xFC30
        #EXT-X-DISCONTINUITY
        #EXT-X-PROGRAM-DATE-TIME:2025-12-03T16:53:31.250Z
        #EXTINF:0.667,
        c1.ts
        #EXT-X-ENDLIST

        """)
    }

    @Test func theVersionIsTheLeastTheFeaturesNeed() {
        let plain = HLS.Segment(uri: "a.ts", duration: MediaTime(seconds: 2))
        #expect(HLS.version(of: .vod([plain])) == 3)
        var ranged = plain; ranged.byteRange = HLS.ByteRange(length: 100, offset: 0)
        #expect(HLS.version(of: .vod([ranged])) == 4)
        var keyed = plain; keyed.key = HLS.Key(method: .sampleAES, uri: "k", keyFormat: "identity")
        #expect(HLS.version(of: .vod([keyed])) == 5)
        var mapped = plain; mapped.map = HLS.Map(uri: "init.mp4")
        #expect(HLS.version(of: .vod([mapped])) == 6)
        #expect(HLS.write(.vod([mapped])).contains("#EXT-X-MAP:URI=\"init.mp4\"\n"))
    }

    @Test func aMultivariantPlaylistIsWrittenWithItsGroups() {
        let p = HLS.MultivariantPlaylist(
            renditions: [HLS.Rendition(type: .audio, groupID: "aud", name: "English", language: "en", isDefault: true, autoselect: true,
                                       channels: "2", uri: "en.m3u8")],
            variants: [HLS.Variant(uri: "720p.m3u8", bandwidth: 4_760_000, averageBandwidth: 4_340_000, codecs: "avc1.64001f,mp4a.40.2",
                                   resolution: HLS.Resolution(width: 1280, height: 720), frameRate: Rational(30000, 1001), audio: "aud",
                                   closedCaptions: HLS.ClosedCaptions.none)])
        #expect(p.validate() == nil)
        #expect(HLS.write(p) == """
        #EXTM3U
        #EXT-X-VERSION:3
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="en.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=4760000,AVERAGE-BANDWIDTH=4340000,RESOLUTION=1280x720,CODECS="avc1.64001f,mp4a.40.2",FRAME-RATE=29.970,AUDIO="aud",CLOSED-CAPTIONS=NONE
        720p.m3u8

        """)
    }

    @Test func validationNamesWhatBreaksTheRules() {
        let long = HLS.Segment(uri: "a.ts", duration: MediaTime(value: 65, timescale: 10))
        #expect(HLS.MediaPlaylist(targetDuration: 6, segments: [long]).validate()?.contains("over EXT-X-TARGETDURATION 6") == true)
        #expect(HLS.MediaPlaylist.vod([long]).targetDuration == 7)   // 6.5 rounds to 7
        let range = HLS.Segment(uri: "a.ts", duration: MediaTime(seconds: 1), markers: [.dateRange(HLS.DateRange(id: "x", startDate: date))])
        #expect(HLS.MediaPlaylist.vod([range]).validate()?.contains("PROGRAM-DATE-TIME") == true)
        let orphan = HLS.MultivariantPlaylist(variants: [HLS.Variant(uri: "v.m3u8", bandwidth: 1, audio: "nope")])
        #expect(orphan.validate()?.contains("audio group nope") == true || orphan.validate()?.contains("AUDIO group nope") == true)
    }

    @Test func datesAreUTCWithMilliseconds() {
        let cases: [(Double, String)] = [
            (0, "1970-01-01T00:00:00.000Z"), (951_782_400.5, "2000-02-29T00:00:00.500Z"), (-1, "1969-12-31T23:59:59.000Z"),
            (4_102_444_799.999, "2099-12-31T23:59:59.999Z"),
        ]
        for (seconds, text) in cases {
            let s = HLS.DateRange(id: "d", startDate: Date(timeIntervalSince1970: seconds))
            #expect(HLS.write(.vod([HLS.Segment(uri: "a", duration: .zero, programDateTime: Date(timeIntervalSince1970: seconds),
                                                markers: [.dateRange(s)])])).contains("START-DATE=\"\(text)\""))
        }
    }
}
