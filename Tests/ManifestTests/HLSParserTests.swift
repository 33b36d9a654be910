import Foundation
import Manifest
import Testing
import TestSupport
import Timing

/// The one parser: what the writer writes reads back as the same value; what origins write
/// (the ffmpeg CLI's muxer, the cue tags in their several spellings) is read; hostile text is
/// refused in one line, never trapped on.
@Suite struct HLSParserTests {
    let date = Date(timeIntervalSince1970: 1_764_780_811.25)

    func media(_ text: String, warnings: inout [HLS.ParseError]) throws -> HLS.MediaPlaylist {
        var w: [HLS.ParseError] = []
        defer { warnings = w }
        guard case .media(let p) = try HLS.parse(text, warn: { w.append($0) }) else { throw HLS.ParseError(line: 0, reason: "not media") }
        return p
    }

    func media(_ text: String) throws -> HLS.MediaPlaylist {
        var w: [HLS.ParseError] = []
        return try media(text, warnings: &w)
    }

    @Test func whatTheWriterWritesReadsBackTheSame() throws {
        let key = HLS.Key(method: .aes128, uri: "https://k/1", iv: Array(0..<16))
        let segments = [
            HLS.Segment(uri: "s0.ts", duration: MediaTime(value: 6006, timescale: 1000), title: "first", programDateTime: date, key: key),
            HLS.Segment(uri: "s1.ts", duration: MediaTime(seconds: 4), discontinuity: true, programDateTime: date, key: nil,
                        byteRange: HLS.ByteRange(length: 1000, offset: 188), gap: true,
                        markers: [.cueIn, .dateRange(HLS.DateRange(id: "r", rangeClass: "c", startDate: date, endDate: date.addingTimeInterval(2),
                                                                   duration: MediaTime(seconds: 2), scte35In: [1, 2, 3],
                                                                   clientAttributes: [.init("X-A", .string("v")), .init("X-B", .hex([9])),
                                                                                      .init("X-C", .number(MediaTime(value: 3, timescale: 2)))])),
                                  .cueOut(duration: MediaTime(seconds: 30)), .cueOutCont(elapsed: MediaTime(seconds: 4), duration: MediaTime(seconds: 30))]),
        ]
        var p = HLS.MediaPlaylist(targetDuration: 6, mediaSequence: 1234, discontinuitySequence: 7, independentSegments: true,
                                  segments: segments, trailingMarkers: [.cueIn], endList: true)
        p.segments[1].map = HLS.Map(uri: "init.mp4", byteRange: HLS.ByteRange(length: 720, offset: 0))
        #expect(try media(HLS.write(p)) == p)

        let m = HLS.MultivariantPlaylist(
            renditions: [HLS.Rendition(type: .subtitles, groupID: "subs", name: "English", language: "en", isDefault: false, autoselect: true,
                                       forced: true, uri: "subs/en.m3u8"),
                         HLS.Rendition(type: .closedCaptions, groupID: "cc", name: "CC1", instreamID: "CC1")],
            variants: [HLS.Variant(uri: "a.m3u8", bandwidth: 100, codecs: "avc1.4d401e", resolution: HLS.Resolution(width: 2, height: 4),
                                   frameRate: Rational(25, 1), subtitles: "subs", closedCaptions: .group("cc"))],
            iFrameVariants: [HLS.IFrameVariant(uri: "i.m3u8", bandwidth: 10, codecs: "avc1.4d401e", resolution: HLS.Resolution(width: 2, height: 4))])
        #expect(try HLS.parse(HLS.write(m)) == .multivariant(m))
    }

    @Test func theCueTagsAreReadInEverySpelling() throws {
        let p = try media("""
        #EXTM3U
        #EXT-X-TARGETDURATION:2
        #EXT-X-CUE-OUT:30
        #EXTINF:2.0,
        a.ts
        #EXT-X-CUE-OUT-CONT:2/30
        #EXT-X-CUE-OUT:DURATION=15.5
        #EXTINF:2,
        b.ts
        #EXT-X-CUE-OUT-CONT:ElapsedTime=4.000,Duration=30,SCTE35=/DA
        #EXT-X-CUE-OUT
        #EXT-X-CUE-IN
        #EXTINF:2,
        c.ts
        """)
        #expect(p.segments.map(\.markers) == [
            [.cueOut(duration: MediaTime(seconds: 30))],
            [.cueOutCont(elapsed: MediaTime(seconds: 2), duration: MediaTime(seconds: 30)), .cueOut(duration: MediaTime(value: 31, timescale: 2))],
            [.cueOutCont(elapsed: MediaTime(seconds: 4), duration: MediaTime(seconds: 30)), .cueOut(duration: nil), .cueIn],
        ])
        #expect(p.segments.map(\.duration) == [MediaTime(seconds: 2), MediaTime(seconds: 2), MediaTime(seconds: 2)])
    }

    @Test func hostileTextIsRefusedInOneLine() {
        func refusal(_ text: String) -> String? {
            do { _ = try HLS.parse(text); return nil } catch { return "\(error)" }
        }
        #expect(refusal("<html>")?.contains("#EXTM3U") == true)
        #expect(refusal("#EXTM3U\n#EXT-X-TARGETDURATION:2\na.ts\n")?.contains("without EXTINF") == true)
        #expect(refusal("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:9223372036854775807\n#EXTINF:2,\na.ts\n")?.contains("MEDIA-SEQUENCE out of range") == true)
        #expect(refusal("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:-5\n")?.contains("MEDIA-SEQUENCE") == true)
        #expect(refusal("#EXTM3U\n#EXT-X-TARGETDURATION:99999999999999999999\n")?.contains("TARGETDURATION") == true)
        #expect(refusal("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:-1,\na.ts\n")?.contains("not a duration") == true)
        #expect(refusal("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:1e9,\na.ts\n")?.contains("not a duration") == true)
        #expect(refusal("#EXTM3U\n#EXTINF:2,\na.ts\n")?.contains("without EXT-X-TARGETDURATION") == true)
        #expect(refusal("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n#EXTINF:2,\n")?.contains("media playlist tag") == true)
        #expect(refusal("#EXTM3U\n#EXT-X-STREAM-INF:RESOLUTION=1x1\nv.m3u8\n")?.contains("BANDWIDTH") == true)
        #expect(refusal("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-ENDLIST\n#EXTINF:2,\na.ts\n")?.contains("after EXT-X-ENDLIST") == true)
        let many = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n" + String(repeating: "#EXTINF:1,\na.ts\n", count: 20_001)
        #expect(refusal(many)?.contains("over 20000 segments") == true)
        #expect(refusal("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#" + String(repeating: "x", count: 70_000) + "\n")?.contains("a line of over") == true)
    }

    @Test func aMalformedMarkerIsLeftOutWithAWarning() throws {
        var warnings: [HLS.ParseError] = []
        let p = try media("""
        #EXTM3U
        #EXT-X-TARGETDURATION:2
        #EXT-X-DATERANGE:ID="x",SCTE35-OUT=0xZZ,START-DATE="2026-01-01T00:00:00Z"
        #EXT-X-DATERANGE:ID=unquoted,START-DATE="2026-01-01T00:00:00Z"
        #EXT-X-DATERANGE:ID="ok",START-DATE="2026-01-01T00:00:00+01:00",PLANNED-DURATION=30,SCTE35-OUT=0xfc30
        #EXT-X-PROGRAM-DATE-TIME:yesterday
        #EXTINF:2,
        a.ts
        """, warnings: &warnings)
        #expect(warnings.map(\.line) == [3, 4, 6])
        guard case .dateRange(let r) = try #require(p.segments.first?.markers.first) else { Issue.record("no date range"); return }
        #expect(r.id == "ok" && r.scte35Out == [0xFC, 0x30] && r.plannedDuration == MediaTime(seconds: 30))
        #expect(r.startDate == Date(timeIntervalSince1970: 1_767_222_000))   // 2025-12-31T23:00:00Z
    }

    /// The ffmpeg CLI's HLS muxer, VOD and live-style: real origin text.
    @Test func theFFmpegMuxersPlaylistsAreRead() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-ffmpeg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = try Tools.ffmpeg(["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=d=5:s=64x48:r=10",
                                                         "-c:v", "libx264", "-g", "10", "-f", "hls", "-hls_time", "1",
                                                         "-hls_playlist_type", "vod", "-hls_flags", "program_date_time",
                                                         dir.appendingPathComponent("v.m3u8").path])
        #expect(out.status == 0)
        let p = try media(String(contentsOf: dir.appendingPathComponent("v.m3u8"), encoding: .utf8))
        #expect(p.playlistType == .vod && p.endList && p.segments.count == 5)
        #expect(p.duration == MediaTime(seconds: 5))
        #expect(p.segments.allSatisfy { $0.programDateTime != nil })
        #expect(p.validate() == nil)
    }
}
