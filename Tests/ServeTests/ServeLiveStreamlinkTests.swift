import Foundation
import Testing
import TestSupport

/// A live session's DASH played by a client we did not write: Streamlink (PyPI, maintained; a
/// DASH client that reads one Period), on the one-Period MPD (`?periods=single`).
struct ServeLiveStreamlinkTests {
    typealias Live = ServeLiveSessionTests

    /// Streamlink plays a live session's one-Period MPD in real time, told to stop after 30 s of
    /// stream (`--stream-segmented-duration`), and writes what it played (the DASH video and sound
    /// muxed into MPEG-TS by its ffmpeg, timestamps kept): it ends by itself (exit 0, after at
    /// least 20 s of wall time: it followed the live edge), with no warning or error; the file
    /// decodes clean in `ffmpeg -xerror`; its pictures are at least 30 s of the content's frames
    /// once each in order with each break inside the play replaced by ad 7 (120 frames) and
    /// slate, frame-exact.
    @Test func streamlinkPlaysTheOnePeriodLiveMPDFrameExact() async throws {
        let rig = try await Live.Rig.start(breaks: Live.twoBreaks, seconds: 60, clock: .realTime)
        defer { rig.stop() }
        try await rig.warm()
        let created = try await curl(rig.url("/v1/session/ch"), method: "POST", body: "{}")
        let mpd = rig.url(try #require(created.json?["dashManifestUrl"] as? String, "\(created.text)") + "?periods=single")
        let played = rig.root.appendingPathComponent("streamlink.ts")
        let streamlink = TestMedia.packageRoot.appendingPathComponent(".build/pyenv/bin/streamlink").path
        let began = Date()
        let run = try await runOffPool("/usr/bin/timeout", ["-k", "10", "90", streamlink, "--loglevel", "warning", "--stream-segmented-duration", "30",
                                                            "--ffmpeg-fout", "mpegts", "-o", played.path, mpd, "best"])
        let seconds = Date().timeIntervalSince(began)
        let log = String(decoding: run.stdout, as: UTF8.self) + run.stderr
        #expect(run.status == 0 && seconds >= 20, "streamlink exit \(run.status) after \(Int(seconds)) s: \(log.suffix(800))")
        let problems = log.split(separator: "\n").filter { $0.contains("[warning]") || $0.contains("[error]") }
        #expect(problems.isEmpty, "\(problems)")
        let check = try await runOffPool("/usr/bin/ffmpeg", ["-v", "error", "-xerror", "-i", played.path, "-f", "null", "-"])
        #expect(check.status == 0 && check.stderr.isEmpty, "ffmpeg -xerror on what Streamlink played: \(check.stderr.prefix(400))")
        let shown = try await Live.shown(played, contentSource: rig.origin.media.sourceID)
        guard case .content(let first)? = shown.first, case .content(let last)? = shown.last else {
            Issue.record("the play does not start and end on content: \(shown.prefix(3)) … \(shown.suffix(3))"); return
        }
        #expect(shown.count >= 29 * 30, "\(shown.count) pictures played")
        let inside = rig.origin.breaks.filter { $0.startFrame > first && $0.endFrame <= last }
        #expect(!inside.isEmpty, "no break inside the play (content \(first)…\(last))")
        print("streamlink on the one-Period live MPD: \(shown.count) pictures in \(Int(seconds)) s, content \(first)…\(last), \(inside.count) breaks inside")
        Live.compare(shown, Live.expected(from: first, to: last + 1, breaks: inside.map { ($0, [(7, 120)]) }))
    }
}
