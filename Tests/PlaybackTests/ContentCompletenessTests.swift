import Foundation
import Interlude
import Testing
import Timing
import TestSupport
@testable import Playback

/// Issue 13, item 5: content that decodes well short of its declared duration is an error unless
/// allowed, cues past its real end are errors, content with no frames is an error, and ads
/// shorter than they declare are reported.
@Suite struct ContentCompletenessTests {
    let dir: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-complete-\(getpid())-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()

    /// A 10 s clip (index at the front) cut to `fraction` of its bytes, or just after the
    /// `mdat` header when `fraction` is nil: an index that promises frames the file lacks.
    func cut(_ fraction: Double?, name: String) throws -> String {
        let whole = try Data(contentsOf: TestMedia.clip(sourceID: 1, seconds: 10))
        var keep = Int(Double(whole.count) * (fraction ?? 0))
        if fraction == nil, let r = whole.range(of: Data("mdat".utf8)) { keep = r.upperBound }
        let url = dir.appendingPathComponent(name)
        try whole.prefix(keep).write(to: url)
        return url.path
    }

    func request(_ content: String, breaks: [AdBreakRequest] = [], allow: Bool = false) -> StitchRequest {
        var r = StitchRequest(content: content, breaks: breaks, output: dir.appendingPathComponent("out.mp4").path,
                              encoder: EncoderSettings(preset: "ultrafast", crf: 35), overwrite: true)
        r.allowTruncated = allow
        return r
    }

    func outputs() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasPrefix("out") || $0.hasPrefix(".out") }
    }

    @Test func theVerdictIsPure() {
        let ten = MediaTime(seconds: 10)
        #expect(ContentCompleteness.judge(declared: ten, real: MediaTime(value: 19, timescale: 2)) == .complete)
        #expect(ContentCompleteness.judge(declared: ten, real: MediaTime(value: 17, timescale: 2)) == .truncated(real: MediaTime(value: 17, timescale: 2)))
        #expect(ContentCompleteness.judge(declared: ten, real: MediaTime(value: 2, timescale: 5), guessed: true) == .complete)
        #expect(ContentCompleteness.judge(declared: ten, real: nil) == .empty)
    }

    @Test func truncatedContentIsAnErrorAndWritesNothing() async throws {
        let content = try cut(0.3, name: "cut.mp4")
        let req = request(content, breaks: [AdBreakRequest(id: "pre", position: .start, ads: [TestMedia.Sample.adMatching.url.path])])
        do {
            _ = try await offPool { try Stitcher(request: req).run() }
            Issue.record("a truncated content stitched")
        } catch let e as StitchFailure {
            guard case .contentTruncated(let m) = e else { Issue.record("wrong failure \(e)"); return }
            #expect(m.contains("decodes to") && m.contains("--allow-truncated") && !m.contains("\n"), "\(m)")
        }
        #expect(outputs().isEmpty)
    }

    @Test func aDamagedIndexIsAnError() async throws {
        // The index is whole in size but the second half of its chunk offsets point past the end
        // of the file: the frames it promises cannot be read.
        var data = try await Data(contentsOf: TestMedia.clip(sourceID: 1, seconds: 10))
        var from = data.startIndex
        var damaged = 0
        while let stco = data.range(of: Data("stco".utf8), in: from..<data.endIndex) {   // every track's table
            let countAt = stco.upperBound + 4
            let count = Int(data[countAt]) << 24 | Int(data[countAt + 1]) << 16 | Int(data[countAt + 2]) << 8 | Int(data[countAt + 3])
            for entry in (count / 2)..<count {
                let at = countAt + 4 + entry * 4
                data.replaceSubrange(at..<(at + 4), with: [0x7F, 0xFF, 0xFF, 0x00])
                damaged += 1
            }
            from = stco.upperBound
        }
        try #require(damaged >= 2, "\(damaged) chunk offsets damaged")
        let url = dir.appendingPathComponent("damaged.mp4")
        try data.write(to: url)
        do {
            _ = try await offPool { try Stitcher(request: request(url.path)).run() }
            Issue.record("a damaged index stitched")
        } catch let e as StitchFailure {
            guard case .contentTruncated(let m) = e else { Issue.record("wrong failure \(e)"); return }
            #expect(m.contains("decodes to"), "\(m)")
        }
        #expect(outputs().isEmpty)
    }

    @Test func allowTruncatedStitchesWhatThereIsAndSaysSo() async throws {
        let content = try cut(0.5, name: "half.mp4")
        let req = request(content, breaks: [AdBreakRequest(id: "mid", position: .time(MediaTime(seconds: 1)), ads: [TestMedia.Sample.adSilent.url.path])],
                          allow: true)
        let r = try await offPool { try Stitcher(request: req).run() }
        #expect(r.warnings.contains { $0.hasPrefix("content truncated") }, "\(r.warnings)")
        #expect(r.content.duration < MediaTime(seconds: 9) && r.content.duration > .zero)
        #expect(r.breaks.first?.contentTime == MediaTime(seconds: 1))
    }

    @Test func aCuePastTheRealEndIsAnError() async throws {
        let content = try cut(0.5, name: "half2.mp4")
        let req = request(content, breaks: [AdBreakRequest(id: "mid", position: .time(MediaTime(value: 19, timescale: 2)), ads: [TestMedia.Sample.adSilent.url.path])],
                          allow: true)
        do {
            _ = try await offPool { try Stitcher(request: req).run() }
            Issue.record("a break past the real end was placed")
        } catch let e as StitchFailure {
            guard case .cuePastEnd(let cue, let end) = e else { Issue.record("wrong failure \(e)"); return }
            #expect(cue == MediaTime(value: 19, timescale: 2) && end < MediaTime(seconds: 9))
        }
        #expect(outputs().isEmpty)
    }

    @Test func anIndexWithoutFramesIsAnErrorEvenWhenAllowed() async throws {
        let content = try cut(nil, name: "empty.mp4")
        for allow in [false, true] {
            let req = request(content, breaks: [AdBreakRequest(id: "pre", position: .start, ads: [TestMedia.Sample.adMatching.url.path])], allow: allow)
            do {
                _ = try await offPool { try Stitcher(request: req).run() }
                Issue.record("an output of ads only was written")
            } catch let e as StitchFailure {
                guard case .contentTruncated(let m) = e else { Issue.record("wrong failure \(e)"); return }
                #expect(m.contains("no decodable video frames"), "\(m)")
            }
            #expect(outputs().isEmpty)
        }
    }

    @Test func anAdShorterThanItDeclaresIsReported() async throws {
        let whole = try Data(contentsOf: TestMedia.Sample.adMatching.url)
        let ad = dir.appendingPathComponent("short-ad.mp4")
        try whole.prefix(whole.count * 3 / 4).write(to: ad)
        let media = try AdMediaProbe.measure(ad.path)
        #expect(media.declaredDuration != nil && media.duration < media.declaredDuration!)
        let req = request(TestMedia.Sample.content.url.path, breaks: [AdBreakRequest(id: "pre", position: .start, ads: [ad.path])])
        let r = try await offPool { try Stitcher(request: req).run() }
        #expect(r.breaks.first?.ads.count == 1, "played, not left out")
        #expect(r.warnings.contains { $0.contains("short-ad.mp4") && $0.contains("VAST 202") && $0.contains("played as measured") }, "\(r.warnings)")
    }
}
