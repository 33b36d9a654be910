import Foundation
import Interlude
import Testing
import TestSupport

/// The getting-started guide's app (`ViewController`, unchanged) against every no-fill answer
/// (`NoFillServer`): IMA reports each as an ad-loading error, the app's `failedWith` plays the
/// content, and the output holds the content's frames once and in order, within 5 s of a plain run.
@MainActor @Suite(.serialized) struct NoFillGuideTests {
    static let contentFrames = 60

    /// Runs the app on `tag` as fast as possible into `out` until the content ended and `settled`
    /// holds for the app's log (an event that may come after the content's end, such as a break
    /// whose fetch still stalls completing the ads); the app's log.
    static func runApp(content: URL, tag: String, out: URL,
                       settled: ([String]) -> Bool = { _ in true }) async throws -> (log: [String], seconds: Double) {
        let started = monotonicSeconds()
        ViewController.ContentURLString = content.absoluteString
        ViewController.AdTagURLString = tag
        ViewController.clock = .asFastAsPossible
        let vc = ViewController()
        vc.viewDidLoad()
        vc.view.attach(try EncodedOutput(url: out.path, container: .mp4, format: vc.view.format, settings: EncoderSettings()))
        vc.viewDidAppear(true)
        let deadline = monotonicSeconds() + 60
        while !(vc.player.contentEnded && settled(vc.log)), monotonicSeconds() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(vc.player.contentEnded, "the content played to its end: \(vc.log)")
        try vc.player.close()
        return (vc.log, monotonicSeconds() - started)
    }

    @Test func everyNoFillAnswerIsALoadingErrorAndTheContentPlays() async throws {
        let server = try NoFillServer()
        defer { server.stop() }
        let content = try await TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 30, seconds: 2)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-nofill-guide-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // a plain run: a VMAP with no break at all plays the content
        server.server.route("/no-breaks.xml", body: #"<vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0"/>"#)
        let plain = try await Self.runApp(content: content, tag: server.server.url("/no-breaks.xml"), out: dir.appendingPathComponent("plain.mp4"))
        var table = [String(format: "guide plain: %.2f s", plain.seconds)]
        for answer in NoFillServer.Answer.allCases {
            let out = dir.appendingPathComponent("\(answer.rawValue).mp4")
            let (log, seconds) = try await Self.runApp(content: content, tag: server.tag(answer), out: out)
            table.append(String(format: "guide %@: %.2f s (+%.2f s)", answer.rawValue, seconds, seconds - plain.seconds))
            #expect(log == ["loader error \(answer.loaderCode)"], "\(answer): \(log)")
            let frames = try await MediaVerifier.videoFrames(out, reader: IdentityReader(output: PixelSize(width: 320, height: 180),
                                                                                    sources: [PixelSize(width: 320, height: 180)]))
            let segments = MediaVerifier.segments(frames)
            #expect(frames.count == Self.contentFrames, "\(answer): \(frames.count) frames")
            #expect(segments.count == 1 && segments[0].sourceID == 7 && segments[0].firstFrame == 0
                    && segments[0].lastFrame == Self.contentFrames - 1 && segments[0].skips == 0 && segments[0].repeats == 0,
                    "\(answer): \(segments)")
            // the stalled host costs the wrapper timeout (IMA's 4 s); nothing else waits. A shared
            // machine stalls now and then: over the bound, both are measured once more, side by side.
            var (s, p) = (seconds, plain.seconds)
            if s - p >= 5 {
                p = try await Self.runApp(content: content, tag: server.server.url("/no-breaks.xml"), out: dir.appendingPathComponent("plain2.mp4")).seconds
                s = try await Self.runApp(content: content, tag: server.tag(answer), out: dir.appendingPathComponent("again.mp4")).seconds
                table.append(String(format: "guide %@ again: %.2f s (plain %.2f s)", answer.rawValue, s, p))
            }
            #expect(s - p < 5, "\(answer): \(s) s against \(p) s plain")
        }
        // a VMAP whose four breaks all fail: ad rules load, each break fails on its own, content
        // plays through its cues without a pause, and the last failure completes the ads (the
        // stalled mid-roll's comes after its 4 s wrapper timeout, which can be after the 2 s
        // content has ended as fast as possible: the run waits for it, up to its deadline)
        let out = dir.appendingPathComponent("vmap.mp4")
        let (log, seconds) = try await Self.runApp(content: content, tag: server.allBreaksFailVMAP, out: out,
                                                   settled: { $0.contains("ALL_ADS_COMPLETED") })
        table.append(String(format: "guide VMAP, four failing breaks: %.2f s", seconds))
        #expect(log.contains("CUEPOINTS_CHANGED") && !log.contains { $0.hasPrefix("contentPause") || $0.hasPrefix("loader error") }, "\(log)")
        print("guide VMAP log: \(log)")
        #expect(log.contains("ALL_ADS_COMPLETED"), "\(log)")
        let frames = try await MediaVerifier.videoFrames(out, reader: IdentityReader(output: PixelSize(width: 320, height: 180),
                                                                                sources: [PixelSize(width: 320, height: 180)]))
        #expect(frames.count == Self.contentFrames && MediaVerifier.segments(frames).count == 1, "\(MediaVerifier.segments(frames))")
        print(table.joined(separator: "\n"))
    }
}
