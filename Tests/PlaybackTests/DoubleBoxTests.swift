import Draw
import Foundation
import Interlude
import Media
import Testing
import Timing
import TestSupport
@testable import Playback

/// Double-box breaks in a stitch, checked by decoding the output with the ffmpeg CLI: content
/// frames all there once and in order (in the window during the break), ad frames full size (or in
/// the window, reversed), the ad's audio at full level and the content's ducked by the chosen
/// amount, and the timeline mapping consistent with the frames.
@Suite(.serialized) struct DoubleBoxTests {
    static let fps = 30
    static let full = TestSupport.PixelRect(x: 0, y: 0, width: 320, height: 180)

    /// Content: source 1, 3 s, with its 1 kHz burst (amplitude 0.5) in the first 1/30 s of each
    /// second. Ad: source 5, 1 s, with a steady 300 Hz tone of amplitude 0.25 instead.
    static func media() throws -> (content: URL, ad: URL) {
        let content = try TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: fps, seconds: 3)
        let picture = try TestMedia.clip(sourceID: 5, width: 320, height: 180, fps: fps, seconds: 1, audio: false)
        let ad = try TestMedia.derived(from: picture, name: "doublebox-ad-s5-300hz.mp4", arguments: [
            "-f", "lavfi", "-i", "aevalsrc=0.25*sin(2*PI*300*t):s=48000:d=1", "-map", "0:v", "-map", "1:a",
            "-c:v", "copy", "-c:a", "aac", "-b:a", "128k", "-ac", "2", "-shortest"])
        return (content, ad)
    }

    final class Events: @unchecked Sendable {
        // @unchecked Sendable: written by the stitch's thread, read after it returned.
        var all: [SpliceEvent] = []
    }

    static func stitch(_ style: DoubleBoxStyle, at cue: MediaTime = MediaTime(value: 1, timescale: 2), name: String,
                       events: Events = Events()) throws -> (StitchResult, URL) {
        let (content, ad) = try media()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-doublebox-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let out = dir.appendingPathComponent(name + ".nut")
        var b = AdBreakRequest(id: "box", position: .time(cue), ads: [ad.path])
        b.doubleBox = style
        var req = StitchRequest(content: content.path, breaks: [b], output: out.path, container: .nut)
        req.overwrite = true
        let stitcher = Stitcher(request: req)
        stitcher.onEvent = { events.all.append($0) }
        return (try stitcher.run(), out)
    }

    /// Mono float samples of a file's first audio stream, decoded by the ffmpeg CLI.
    static func audio(_ url: URL) throws -> [Float] {
        let out = try Tools.ffmpeg(["-v", "error", "-i", url.path, "-map", "0:a:0", "-ac", "1", "-ar", "48000", "-f", "f32le", "-"])
        return out.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Amplitude of the `hz` component of `x[from..<from+n]` (Goertzel, Hann window).
    static func level(_ x: [Float], hz: Double, from: Int, count n: Int) -> Double {
        let w = 2 * Double.pi * hz / 48000
        var s1 = 0.0, s2 = 0.0, wsum = 0.0
        for i in 0..<n {
            let hann = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n - 1))
            wsum += hann
            let s = Double(x[from + i]) * hann + 2 * cos(w) * s1 - s2
            s2 = s1; s1 = s
        }
        let power = s1 * s1 + s2 * s2 - 2 * cos(w) * s1 * s2
        return 2 * sqrt(max(0, power)) / wsum
    }

    static func rms(_ x: [Float], from: Int, count n: Int) -> Double {
        sqrt(x[from..<(from + n)].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(n))
    }

    static func dB(_ a: Double, _ b: Double) -> Double { 20 * log10(a / b) }

    static func ids(_ p: DecodedPictures, _ rect: TestSupport.PixelRect) -> [Int] {
        let reader = IdentityReader(candidates: [rect])
        return p.frames.map { reader.read($0, width: p.width, height: p.height).identity.map { $0.sourceID * 1000 + $0.frameIndex } ?? -1 }
    }

    @Test func contentGoesOnInTheWindowWhileTheAdPlaysFullSizeAndItsSoundIsDucked() throws {
        let style = try DoubleBoxStyle(parsing: "doublebox:-12dB")
        let events = Events()
        let (result, out) = try Self.stitch(style, name: "box", events: events)
        let boxEvents = events.all.compactMap { e -> String? in
            switch e {
            case let .doubleBoxStarted(id, s, contentTime, streamTime): return "start \(id) \(s) \(contentTime.seconds) \(streamTime.seconds)"
            case let .doubleBoxEnded(id, streamTime): return "end \(id) \(streamTime.seconds)"
            default: return nil
            }
        }
        #expect(boxEvents == ["start box doublebox:-12dB 0.5 0.5", "end box 1.5"], "the events say the break's mode")
        let p = try DecodedPictures.decode(out)
        // no frame added: the break overlaps content; stream frames 15-44 hold the ad
        #expect(p.frames.count == 90 && result.videoFrames == 90)
        let w = DoubleBoxLayer(breakId: "x", cue: .zero, ads: [], style: style, format: result.format).windowRect
        let window = TestSupport.PixelRect(x: w.x, y: w.y, width: w.width, height: w.height)
        let fullIds = Self.ids(p, Self.full), windowIds = Self.ids(p, window)
        var contentSeen: [Int] = []
        for n in 0..<90 {
            if (15..<45).contains(n) {
                #expect(fullIds[n] == 5000 + n - 15, "frame \(n): ad frame \(n - 15) full size")
                #expect(windowIds[n] == 1000 + n, "frame \(n): content frame \(n) in the window")
                contentSeen.append(windowIds[n])
            } else {
                #expect(fullIds[n] == 1000 + n, "frame \(n): content full size")
                contentSeen.append(fullIds[n])
            }
        }
        #expect(contentSeen == Array(1000..<1090), "every content frame once, in order")

        // the timeline: one segment through the break, the break overlapping it
        let tl = result.timeline
        #expect(tl.segments.count == 1)
        let brk = try #require(tl.breaks.first)
        #expect(brk.overlapsContent && brk.contentTime == MediaTime(value: 1, timescale: 2))
        #expect(brk.streamStart == MediaTime(value: 1, timescale: 2) && brk.streamEnd == MediaTime(value: 3, timescale: 2))
        for n in 0..<90 {
            let t = MediaTime(value: Int64(n), timescale: 30)
            let at = tl.streamTime(forContentTime: t)
            let frame = Int(at.rescaled(to: 30, rounding: .nearest).value)
            #expect(contentSeen[frame] == 1000 + n, "streamTime(forContentTime: frame \(n)) points at the frame showing it")
            #expect(tl.contentTime(forStreamTime: t) == t, "content time advances through the break")
        }
        #expect(tl.previousCuePoint(forStreamTime: MediaTime(value: 1, timescale: 1))?.id == "box")
        let placed = try #require(result.breaks.first)
        #expect(placed.doubleBox == style && placed.ads.count == 1 && placed.ads[0].frames == 30 && placed.duration == MediaTime(value: 1, timescale: 1))
        let report = StitchReport(result)
        #expect(report.breaks.first?.mode == "doublebox" && report.breaks.first?.contentGainDB == -12)

        // audio: the ad at full level, the content 12 dB down during the break, untouched outside
        let (contentURL, adURL) = try Self.media()
        let o = try Self.audio(out), c = try Self.audio(contentURL), a = try Self.audio(adURL)
        let burst = 48000, n = 1600   // content's 1 kHz burst at content 1.0 s = stream 1.0 s
        let ducked = Self.dB(Self.level(o, hz: 1000, from: burst, count: n), Self.level(c, hz: 1000, from: burst, count: n))
        #expect(abs(ducked - -12) < 0.5, "content ducked by \(ducked) dB")
        let after = 2 * 48000   // the burst at 2.0 s, after the break
        let untouched = Self.dB(Self.level(o, hz: 1000, from: after, count: n), Self.level(c, hz: 1000, from: after, count: n))
        #expect(abs(untouched) < 0.3, "content after the break at \(untouched) dB")
        // ad time 0.2-0.45 s is stream 0.7-0.95 s, no content sound there
        let adLevel = Self.dB(Self.level(o, hz: 300, from: 33600, count: 12000), Self.level(a, hz: 300, from: 9600, count: 12000))
        #expect(abs(adLevel) < 0.3, "ad at \(adLevel) dB of its own level")
        let adRMS = Self.dB(Self.rms(o, from: 33600, count: 12000), Self.rms(a, from: 9600, count: 12000))
        #expect(abs(adRMS) < 0.3, "ad RMS at \(adRMS) dB")
        #expect(Self.level(o, hz: 300, from: 2 * 48000 + 4800, count: 12000) < 0.002, "no ad sound after the break")
    }

    @Test func reversedTheAdPlaysInTheWindowOverFullSizeContent() throws {
        let style = try DoubleBoxStyle(parsing: "doublebox-reverse:-6dB")
        let (result, out) = try Self.stitch(style, name: "box-reverse")
        let p = try DecodedPictures.decode(out)
        #expect(p.frames.count == 90)
        let w = DoubleBoxLayer(breakId: "x", cue: .zero, ads: [], style: style, format: result.format).windowRect
        let windowIds = Self.ids(p, TestSupport.PixelRect(x: w.x, y: w.y, width: w.width, height: w.height))
        let fullIds = Self.ids(p, Self.full)
        #expect(fullIds == Array(1000..<1090), "content full size, every frame once, in order")
        #expect(Array(windowIds[15..<45]) == Array(5000..<5030), "the ad in the window")
        let (contentURL, _) = try Self.media()
        let o = try Self.audio(out), c = try Self.audio(contentURL)
        let ducked = Self.dB(Self.level(o, hz: 1000, from: 48000, count: 1600), Self.level(c, hz: 1000, from: 48000, count: 1600))
        #expect(abs(ducked - -6) < 0.5, "content ducked by \(ducked) dB")
        #expect(StitchReport(result).breaks.first?.mode == "doublebox-reverse")
    }

    @Test func stylesParseAndBadOnesAreRefused() throws {
        #expect(try DoubleBoxStyle(parsing: "doublebox") == DoubleBoxStyle())
        #expect(try DoubleBoxStyle(parsing: "doublebox:mute").contentGain == 0)
        #expect(try DoubleBoxStyle(parsing: "DoubleBox-Reverse:-3.5db") == DoubleBoxStyle(adInWindow: true, contentGainDB: -3.5))
        #expect(try DoubleBoxStyle(parsing: "doublebox:-6dB").description == "doublebox:-6dB")
        for bad in ["doublebox:+3dB", "doublebox:-99dB", "doublebox:loud", "triplebox"] {
            #expect(throws: DoubleBoxStyle.Invalid.self) { try DoubleBoxStyle(parsing: bad) }
        }
    }

    @Test func aBreakThatOutlastsTheContentOrHoldsAnotherIsRefused() throws {
        // 1 s ad at 2.5 s of 3 s content
        #expect(throws: StitchFailure.self) { try Self.stitch(DoubleBoxStyle(), at: MediaTime(value: 5, timescale: 2), name: "late") }
        let (content, ad) = try Self.media()
        var box = AdBreakRequest(id: "box", position: .time(MediaTime(value: 1, timescale: 2)), ads: [ad.path])
        box.doubleBox = DoubleBoxStyle()
        let inside = AdBreakRequest(id: "mid", position: .time(MediaTime(value: 1, timescale: 1)), ads: [ad.path])
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-doublebox-\(getpid())/inside.nut")
        var req = StitchRequest(content: content.path, breaks: [box, inside], output: out.path, container: .nut)
        req.overwrite = true
        #expect(throws: StitchFailure.self) { try Stitcher(request: req).run() }
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
