import Foundation
import Interlude
import Testing
import Timing
import TestSupport
@testable import Playback

/// `--loudness`: each ad's EBU R128 integrated loudness in the output, measured independently by
/// ffmpeg's `ebur128` filter on the ad's span, is within ±1 LU of the target, its true peak at
/// most -1 dBTP, and the gain chain moves no sample (A/V sync unchanged).
@Suite(.serialized) struct LoudnessTests {
    /// A quiet ad whose audio is mostly a soft tone but with a near-full-scale click every second:
    /// gaining it to the target needs the true-peak limiter.
    static func spikyAd() throws -> URL {
        let e = "0.05*sin(2*PI*1000*t)*lt(mod(t,1),0.5)+if(lt(mod(n,48000),2),0.9,0)"
        return try TestMedia.derived(from: TestMedia.Sample.adMatching.url, name: "ad-spiky.mp4", arguments: [
            "-f", "lavfi", "-i", "aevalsrc=exprs='\(e)|\(e)':s=48000:d=6", "-map", "0:v", "-map", "1:a",
            "-c:v", "copy", "-c:a", "aac", "-b:a", "128k", "-shortest"])
    }

    /// The mismatched ad (44.1 kHz mono beeps) 15 dB quieter.
    static func quietAd() throws -> URL {
        try TestMedia.derived(from: TestMedia.Sample.adMismatched.url, name: "ad-quiet.mp4", arguments: [
            "-map", "0", "-c:v", "copy", "-af", "volume=-15dB", "-c:a", "aac", "-b:a", "96k"])
    }

    /// ffmpeg's own measurement of `[start, end)` seconds of `url`'s audio: (integrated LUFS, true peak dBTP).
    static func measure(_ url: URL, from start: Double, to end: Double) throws -> (Double, Double) {
        let out = try Tools.ffmpeg(["-i", url.path, "-vn", "-af", "atrim=start=\(start):end=\(end),ebur128=peak=true", "-f", "null", "-"])
        func value(_ label: String) -> Double? {
            let summary = out.stderr.components(separatedBy: "Summary:").last ?? ""
            return summary.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }
                .flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Double($0) }
        }
        return (value("I:") ?? .nan, value("Peak:") ?? .nan)
    }

    static func stitch(_ mode: LoudnessMode, ads: [URL], name: String) throws -> (URL, StitchResult) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-loudness-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let out = dir.appendingPathComponent(name)
        var request = StitchRequest(content: TestMedia.Sample.content.url.path,
                                    breaks: [AdBreakRequest(id: "mid", position: .time(MediaTime(seconds: 10)), ads: ads.map(\.path))],
                                    output: out.path, encoder: EncoderSettings(preset: "ultrafast", crf: 30), overwrite: true)
        request.loudness = mode
        return (out, try Stitcher(request: request).run())
    }

    @Test func adsReachTheTargetWithinOneLUAndStayUnderTheCeiling() async throws {
        let (out, result) = try await offPool { try Self.stitch(.target(-23), ads: [try Self.spikyAd(), try Self.quietAd()], name: "r128.mp4") }
        let ads = result.breaks[0].ads
        try #require(ads.count == 2)
        for ad in ads {
            let (i, tp) = try Self.measure(out, from: ad.streamTime.seconds, to: (ad.streamTime + ad.duration).seconds)
            print("loudness: \(ad.mediaFile): report \(ad.loudness.map { "\($0.input) -> \($0.output ?? .nan) LUFS, gain \($0.gain) dB" } ?? "none"); ffmpeg: I \(i) LUFS, true peak \(tp) dBTP")
            #expect(abs(i - -23) <= 1, "\(ad.mediaFile): \(i) LUFS")
            #expect(tp <= -1.0, "\(ad.mediaFile): true peak \(tp) dBTP")
            let l = try #require(ad.loudness)
            #expect(l.target == -23 && abs((l.output ?? 0) - i) <= 0.5, "the report's output level is what ffmpeg measures")
        }
        // The spiky ad's input as ffmpeg measures the file itself (48 kHz stereo, as spliced).
        let (spikyIn, spikyPeak) = try Self.measure(try Self.spikyAd(), from: 0, to: 6)
        #expect(abs((ads[0].loudness?.input ?? 0) - spikyIn) <= 0.3)
        let gain = try #require(ads[0].loudness?.gain)
        #expect(spikyPeak + gain > 3, "without the limiter this gain would put its peaks at \(spikyPeak + gain) dBTP")
        // Content is untouched: its first 10 s measure as in the source file.
        let (contentOut, _) = try Self.measure(out, from: 0, to: 10)
        let (contentIn, _) = try Self.measure(TestMedia.Sample.content.url, from: 0, to: 10)
        #expect(abs(contentOut - contentIn) <= 0.3)
        // The limiter's delay is compensated: beeps and clicks stay on their flashes.
        let frames = try await MediaVerifier.videoFrames(out)
        let audio = try await MediaVerifier.analyzeAudio(out)
        let offsets = MediaVerifier.syncOffsets(flashTimes: MediaVerifier.flashTimes(frames), beepOnsets: audio.onsets)
        let worst = offsets.compactMap { $0.map(abs) }.max() ?? 1
        #expect(offsets.compactMap { $0 }.count >= 45 && worst < 0.002, "worst A/V offset \(worst * 1000) ms")
    }

    @Test func autoGainsAdsToTheContentsLoudness() async throws {
        let (out, result) = try await offPool { try Self.stitch(.auto, ads: [try Self.quietAd()], name: "auto.mp4") }
        let (content, _) = try Self.measure(TestMedia.Sample.content.url, from: 0, to: 40)
        let ad = try #require(result.breaks.first?.ads.first)
        let (i, tp) = try Self.measure(out, from: ad.streamTime.seconds, to: (ad.streamTime + ad.duration).seconds)
        #expect(abs(i - content) <= 1, "ad \(i) LUFS vs content \(content) LUFS")
        #expect(tp <= -1.0)
        #expect(abs((ad.loudness?.target ?? 0) - content) <= 0.3)
    }

    @Test func modesParse() {
        #expect(LoudnessMode(parsing: "auto") == .auto && LoudnessMode(parsing: "off") == .off)
        #expect(LoudnessMode(parsing: "-23") == .target(-23) && LoudnessMode(parsing: "-24") == .target(-24))
        #expect(LoudnessMode(parsing: "-3") == nil && LoudnessMode(parsing: "loud") == nil)
    }
}
