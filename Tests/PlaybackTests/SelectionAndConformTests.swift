import Testing
import Timing
@testable import Playback

@Suite struct FrameSelectionTests {
    let p30 = Rational(30, 1).period

    /// Simulates the splicer's loop over source timestamps; returns the source index shown by each output frame.
    func select(_ pts: [MediaTime], end: MediaTime, period: MediaTime) -> [Int] {
        var shown: [Int] = []
        var k: Int64 = 0
        for i in pts.indices {
            let boundary = i + 1 < pts.count ? pts[i + 1] : end
            while FrameSelection.isDue(outputIndex: k, segmentStart: pts[0], period: period, before: boundary) {
                shown.append(i); k += 1
            }
        }
        return shown
    }

    @Test func equalRatesAreTheIdentity() {
        let pts = (0..<90).map { p30 * Int64($0) + MediaTime(value: 41, timescale: 2) }
        #expect(select(pts, end: pts.last! + p30, period: p30) == Array(0..<90))
        #expect(FrameSelection.frameCount(from: pts[0], to: pts.last! + p30, period: p30) == 90)
    }

    @Test func jitteredTimestampsStillMapOneToOne() {
        let pts = (0..<60).map { MediaTime(value: Int64($0) * 3000 + ($0 % 3 == 0 ? 7 : -5), timescale: 90000) }
        #expect(select(pts, end: MediaTime(value: 180000, timescale: 90000), period: p30) == Array(0..<60))
    }

    @Test func slowerSourceRepeatsFramesEvenly() {
        let p25 = Rational(25, 1).period
        let pts = (0..<25).map { p25 * Int64($0) }
        let shown = select(pts, end: MediaTime(seconds: 1), period: p30)
        #expect(shown.count == 30)
        #expect(Set(shown) == Set(0..<25))
        #expect(shown == shown.sorted())
    }

    @Test func fasterSourceDropsFramesEvenly() {
        let p60 = Rational(60, 1).period
        let pts = (0..<60).map { p60 * Int64($0) }
        #expect(select(pts, end: MediaTime(seconds: 1), period: p30) == (0..<30).map { $0 * 2 })
    }

    @Test func frameCountMatchesDuration() {
        #expect(FrameSelection.frameCount(from: .zero, to: MediaTime(seconds: 5), period: p30) == 150)
        #expect(FrameSelection.frameCount(from: .zero, to: MediaTime(value: 1, timescale: 100), period: p30) == 0)
        #expect(FrameSelection.frameCount(from: .zero, to: MediaTime(value: 1, timescale: 50), period: p30) == 1)
    }
}

@Suite struct ConformTests {
    let out = OutputFormat(width: 640, height: 360, frameRate: Rational(30, 1), sampleRate: 48000, channels: 2)

    @Test func fitsWithBarsNeverStretching() {
        #expect(FitRect.fitting(source: (480, 360), into: (640, 360)) == FitRect(x: 80, y: 0, width: 480, height: 360))
        #expect(FitRect.fitting(source: (1920, 800), into: (640, 360)) == FitRect(x: 0, y: 46, width: 640, height: 266))
        #expect(FitRect.fitting(source: (1280, 720), into: (640, 360)) == FitRect(x: 0, y: 0, width: 640, height: 360))
        #expect(FitRect.fitting(source: (360, 640), into: (640, 360)) == FitRect(x: 218, y: 0, width: 202, height: 360))
    }

    @Test func matchingFramesPassThrough() {
        #expect(ConformFilter.description(width: 640, height: 360, sar: Rational(1, 1), rotation: 0, mirrored: false,
                                          pixelFormat: "yuv420p", output: out) == nil)
    }

    @Test func mismatchedFramesAreScaledAndPadded() {
        #expect(ConformFilter.description(width: 480, height: 360, sar: Rational(1, 1), rotation: 0, mirrored: false,
                                          pixelFormat: "yuv420p", output: out)
                == "scale=480:360,setsar=1,pad=640:360:80:0:black,format=yuv420p")
    }

    @Test func sampleAspectRatioAndRotationAreHonoured() {
        // 720x576 anamorphic 16:9 (SAR 64:45) shows as 1024x576: fills a 16:9 output.
        #expect(ConformFilter.description(width: 720, height: 576, sar: Rational(64, 45), rotation: 0, mirrored: false,
                                          pixelFormat: "yuv420p", output: out) == "scale=640:360,setsar=1,format=yuv420p")
        // 1080x720 rotated 90° shows as 720x1080: pillarboxed.
        #expect(ConformFilter.description(width: 1080, height: 720, sar: Rational(1, 1), rotation: 90, mirrored: false,
                                          pixelFormat: "yuv420p", output: out)
                == "transpose=clock,scale=240:360,setsar=1,pad=640:360:200:0:black,format=yuv420p")
        #expect(ConformFilter.description(width: 640, height: 360, sar: Rational(1, 1), rotation: 180, mirrored: true,
                                          pixelFormat: "yuv420p", output: out)
                == "hflip,hflip,vflip,scale=640:360,setsar=1,format=yuv420p")
    }

    @Test func cuePositionsParse() {
        #expect(BreakCue(parsing: "start") == .start)
        #expect(BreakCue(parsing: "0") == .start)
        #expect(BreakCue(parsing: "end") == .end)
        #expect(BreakCue(parsing: "20.5") == .time(MediaTime(value: 41, timescale: 2)))
        #expect(BreakCue(parsing: "00:00:20.500") == .time(MediaTime(value: 41, timescale: 2)))
        #expect(BreakCue(parsing: "-3") == nil)
        #expect(BreakCue(parsing: "soon") == nil)
    }
}
