import Foundation
import Testing
import Timing
import TestSupport
import Media
@testable import Playback

/// `AdMediaProbe` measures ads from their packets and decodes only the first frame. Its figures
/// must equal what decoding every frame gives (the way ads were measured before), on the sample
/// ads and, when present, on the real files of ../shared/media (edit lists, fragmented MP4, VFR,
/// HEVC, MPEG-TS); damaged files are rejected before anything is spliced.
@Suite struct AdMediaProbeTests {
    /// The reference: decode every video frame, first frame's time to the end of the last.
    static func decodedMeasure(_ url: String) throws -> (frames: Int, duration: MediaTime) {
        let reader = try SourceReader(url: url, wantAudio: false)
        let decoder = try #require(reader.video)
        let tb = decoder.timeBase
        let fallback = (decoder.stream.frameRate ?? Rational(25, 1)).period
        let frame = try Frame()
        var first: MediaTime?, end: MediaTime?, count = 0
        while try reader.nextVideoFrame(into: frame) {
            count += 1
            guard let ticks = frame.bestEffortTicks else { continue }
            let pts = MediaTime(value: ticks * tb.numerator, timescale: tb.denominator)
            first = first.map { MediaTime.min($0, pts) } ?? pts
            let d = frame.durationTicks.map { MediaTime(value: $0 * tb.numerator, timescale: tb.denominator) } ?? fallback
            end = MediaTime.max(end ?? pts + d, pts + d)
        }
        return (count, (end! - first!).reduced)
    }

    static var files: [String] {
        var urls = TestMedia.Sample.allCases.filter { $0.sourceID != nil && $0 != .badTruncated }.map(\.url.path)
        if let shared = TestMedia.sharedMediaDirectory {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: shared.path)) ?? []
            // sample_fragmented declares 143165 s for its 1 s of frames: rejected as truncated (below).
            urls += names.filter { ($0.hasSuffix(".mp4") || $0.hasSuffix(".ts")) && !$0.contains("audio_only") && !$0.contains("fragmented") }
                .sorted().map { shared.appendingPathComponent($0).path }
        }
        return urls
    }

    @Test(arguments: files)
    func packetScanAgreesWithDecodingEveryFrame(url: String) async throws {
        let (scanned, decoded) = try await offPool { (try AdMediaProbe.measure(url), try Self.decodedMeasure(url)) }
        #expect(scanned.frames == decoded.frames, "\(url)")
        #expect(scanned.duration == decoded.duration, "\(url): \(scanned.duration) vs \(decoded.duration)")
    }

    @Test func damagedFilesAreRejectedWithTheirCodes() throws {
        func code(_ url: String) -> Int? {
            do { _ = try AdMediaProbe.measure(url); return nil } catch let r as AdMediaProbe.Rejection { return r.code } catch { return -1 }
        }
        #expect(code("/nonexistent/ad.mp4") == 401)
        #expect(code(TestMedia.Sample.badGarbage.url.path) == 405)
        #expect(code(TestMedia.Sample.badTruncated.url.path) == 405)
        #expect(code(TestMedia.Sample.audioOnly.url.path) == 403)
        if let shared = TestMedia.sharedMediaDirectory {
            #expect(code(shared.appendingPathComponent("androidx__sample_fragmented.mp4").path) == 405)
        }
    }

    @Test func aFileCutShortIsMeasuredAsItIsOrRejectedUnderHalf() throws {
        // Cut ad-matching.mp4 (index at the front; 6 s declared) at 30 %, 70 % and 95 % of its
        // bytes: the index still promises every frame, the data is missing. Under half the declared
        // duration the ad is refused (405); otherwise it is measured as far as it goes, shorter than
        // declared, and the stitch plays it as measured with a VAST 202 warning (README, Safety).
        let source = try Data(contentsOf: TestMedia.Sample.adMatching.url)
        for fraction in [0.3, 0.7, 0.95] {
            let cut = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-cut-\(getpid())-\(fraction).mp4")
            try source.prefix(Int(Double(source.count) * fraction)).write(to: cut)
            defer { try? FileManager.default.removeItem(at: cut) }
            if fraction < 0.5 {
                #expect(throws: AdMediaProbe.Rejection.self, "cut at \(fraction)") { try AdMediaProbe.measure(cut.path) }
            } else {
                let m = try AdMediaProbe.measure(cut.path)
                #expect(m.declaredDuration == MediaTime(seconds: 6) && m.duration < MediaTime(seconds: 6), "cut at \(fraction): \(m)")
                #expect(m.duration * 2 >= MediaTime(seconds: 6))
            }
        }
    }
}
