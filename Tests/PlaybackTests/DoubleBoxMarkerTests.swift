import Foundation
import Manifest
import Testing
import Timing
@testable import Playback

/// Where double boxes go in an output's markers, as pure tables: HLS (a date range per ad, no
/// cue-out/in, no segment cut, no discontinuity) beside a standard break, and MP4 chapters (one
/// flat list: the content chapter cut around the double-box ad).
@Suite struct DoubleBoxMarkerTests {
    static func t(_ s: Double) -> MediaTime { MediaTime(seconds: s, timescale: 1000) }

    @Test func hlsMarksADoubleBoxWithADateRangeOnlyAndAStandardBreakAsBefore() throws {
        let box = PackagedBreak(id: "box", start: Self.t(2), end: Self.t(5), ads: [
            PackagedAd(id: "a1", mediaFile: "a1.mp4", start: Self.t(2), end: Self.t(3.5)),
            PackagedAd(id: "a2", mediaFile: "a2.mp4", start: Self.t(3.5), end: Self.t(5)),
        ], doubleBox: try DoubleBoxStyle(parsing: "doublebox-reverse:mute"))
        let standard = PackagedBreak(id: "mid", start: Self.t(8), end: Self.t(10), ads: [
            PackagedAd(id: "m1", mediaFile: "m1.mp4", start: Self.t(8), end: Self.t(10)),
        ])
        let keys = stride(from: 0.0, to: 14, by: 1).map { Self.t($0) }
        let segments = HLSPlan.segments(keyframes: keys, duration: Self.t(14), breaks: [box, standard], target: Self.t(4))
        // content 0-8 is cut by the target only (not at 2, 3.5 or 5); the standard ad is its own span
        #expect(segments.map { [$0.start.seconds, $0.end.seconds] } == [[0, 4], [4, 8], [8, 10], [10, 14]])
        #expect(segments.map(\.breakIndex) == [nil, nil, 1, nil])
        let playlist = HLS.write(HLSPlan.playlist(segments: segments, breaks: [box, standard], programDate: Date(timeIntervalSince1970: 0)))
        let lines = playlist.split(separator: "\n").map(String.init)
        let ranges = lines.filter { $0.contains("com.interlude.doublebox") }
        #expect(ranges == [
            #"#EXT-X-DATERANGE:ID="box-ad-1",CLASS="com.interlude.doublebox",START-DATE="1970-01-01T00:00:02.000Z",DURATION=1.500,X-AD-ID="a1",X-MODE="doublebox-reverse:mute""#,
            #"#EXT-X-DATERANGE:ID="box-ad-2",CLASS="com.interlude.doublebox",START-DATE="1970-01-01T00:00:03.500Z",DURATION=1.500,X-AD-ID="a2",X-MODE="doublebox-reverse:mute""#,
        ])
        // both come before the first segment (the one they start in), in order
        let first = try #require(lines.firstIndex(of: "segment00000.ts"))
        #expect(lines.firstIndex(of: ranges[0])! < first && lines.firstIndex(of: ranges[1])! < first)
        // the standard break keeps its markers; the double box has none of them
        #expect(lines.filter { $0.hasPrefix("#EXT-X-CUE-OUT") }.count == 1 && lines.filter { $0 == "#EXT-X-CUE-IN" }.count == 1)
        #expect(lines.filter { $0 == "#EXT-X-DISCONTINUITY" }.count == 2, "into and out of the standard ad only")
        #expect(!lines.contains { $0.contains("ID=\"box\"") })
    }

    @Test func mp4ChaptersStayOneFlatListAroundADoubleBoxAd() {
        let chapters = [
            OutputChapter(title: "Content 1", start: Self.t(0), end: Self.t(10)),
            OutputChapter(title: "Ad mid 1/1: m.mp4", start: Self.t(10), end: Self.t(12)),
            OutputChapter(title: "Content 2", start: Self.t(12), end: Self.t(20)),
            OutputChapter(title: "Ad box 1/2 (double box): a.mp4", start: Self.t(3), end: Self.t(5), overlapsContent: true),
            OutputChapter(title: "Ad box 2/2 (double box): b.mp4", start: Self.t(5), end: Self.t(8), overlapsContent: true),
        ]
        let flat = OutputChapter.flattened(chapters)
        #expect(flat.map(\.title) == ["Content 1", "Ad box 1/2 (double box): a.mp4", "Ad box 2/2 (double box): b.mp4",
                                      "Content 1 (continued)", "Ad mid 1/1: m.mp4", "Content 2"])
        #expect(flat.map { [$0.start.seconds, $0.end.seconds] } == [[0, 3], [3, 5], [5, 8], [8, 10], [10, 12], [12, 20]])
        #expect(OutputChapter.flattened(Array(chapters.prefix(3))) == Array(chapters.prefix(3)), "no double box: unchanged")
    }
}

/// The live player's way of running a double box: callbacks handed over (`deferCall`) and run
/// after each frame, an ad's end reported right after its last frame, and `endNow` when the
/// content ends under the break.
@Suite struct DoubleBoxDeferredTests {
    @Test func deferredCallbacksReportEachFrameAndEndNowClosesEveryAd() throws {
        let (content, ad) = try DoubleBoxTests.media()
        let format = OutputFormat(width: 320, height: 180, frameRate: Rational(30, 1), sampleRate: 48000, channels: 2)
        let media = try AdMediaProbe.measure(ad.path)
        let layer = DoubleBoxLayer(breakId: "b", cue: .zero, style: DoubleBoxStyle())
        layer.beginStreaming(format: format)
        var later: [() -> Void] = []
        layer.deferCall = { later.append($0) }
        var adTimes: [MediaTime] = [], ends: [Int64] = []
        layer.enqueue(media, onFrame: { t, _ in adTimes.append(t); return true }, completion: { ends.append($0.frames) })
        layer.enqueue(media, onFrame: nil, completion: { ends.append($0.frames) })
        let stack = LayerStack()
        stack.add(layer)
        let source = try MediaSource(url: content.path, output: format, threads: 0)
        for i in 0..<10 {
            let f = try #require(try source.nextFrame())
            _ = try stack.compose(f.frame, index: Int64(i), streamTime: format.time(ofFrame: Int64(i)), isAd: false, sourceTime: f.pts)
            #expect(adTimes.count == i, "nothing is called while the frame is composed (inside the surface lock)")
            later.forEach { $0() }
            later = []
        }
        #expect(adTimes == (0..<10).map { format.time(ofFrame: Int64($0)) } && ends.isEmpty)
        layer.endNow(frameIndex: 10, streamTime: format.time(ofFrame: 10))
        #expect(ends == [10, 0], "the ad showing ends with its 10 frames, the queued one with none")
        #expect(layer.finished && layer.packagedBreak?.ads.map(\.end) == [format.time(ofFrame: 10)])
        let f = try #require(try source.nextFrame())
        let info = SurfaceFrameInfo(index: 10, streamTime: format.time(ofFrame: 10), isAd: false, sourceTime: f.pts, original: f.frame)
        #expect(!layer.isVisible(info))
    }

    /// An ad with no frame ends while the layer composes (inside the surface's lock): its end
    /// handler is handed over too, and the next ad it queues still plays (one frame later), as a
    /// pod goes on past a failed ad.
    @Test func anAdWithNoFrameEndsOutsideTheLockAndTheNextAdItQueuesPlays() throws {
        let (content, ad) = try DoubleBoxTests.media()
        let format = OutputFormat(width: 320, height: 180, frameRate: Rational(30, 1), sampleRate: 48000, channels: 2)
        let media = try AdMediaProbe.measure(ad.path)
        var empty = media
        empty.duration = .zero
        let layer = DoubleBoxLayer(breakId: "b", cue: .zero, style: DoubleBoxStyle())
        layer.beginStreaming(format: format)
        var later: [() -> Void] = []
        layer.deferCall = { later.append($0) }
        var log: [String] = []
        var composing = false
        layer.enqueue(empty, onFrame: nil, completion: { placed in
            log.append(composing ? "ended inside compose" : "empty ended with \(placed.frames)")
            layer.enqueue(media, onFrame: { _, _ in true }, completion: { log.append("second ended with \($0.frames)") })
        })
        let stack = LayerStack()
        stack.add(layer)
        let source = try MediaSource(url: content.path, output: format, threads: 0)
        var shown: [Bool] = []
        for i in 0..<40 {
            let f = try #require(try source.nextFrame())
            composing = true
            let out = try stack.compose(f.frame, index: Int64(i), streamTime: format.time(ofFrame: Int64(i)), isAd: false, sourceTime: f.pts)
            composing = false
            shown.append(out !== f.frame)
            later.forEach { $0() }
            later = []
        }
        #expect(log == ["empty ended with 0", "second ended with 30"], "\(log)")
        #expect(shown == [false] + Array(repeating: true, count: 30) + Array(repeating: false, count: 9), "\(shown)")
        #expect(layer.packagedBreak?.ads.map(\.start) == [format.time(ofFrame: 1)])
    }
}
