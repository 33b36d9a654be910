import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `interlude play` end to end with its live SDL2 window under Xvfb: screenshots during the ad and
/// during content show the right pictures (read back by their identity codes), and keys typed
/// with xdotool drive the session — space pauses (the picture holds) and resumes, s skips, q quits.
@Suite(.serialized) struct PlayWindowCLITests {
    /// Why a step of the run failed, with what the run had written so far.
    struct StepFailed: Error, CustomStringConvertible {
        var description: String
    }

    /// What the run saw, checked by the test after the child and Xvfb are gone.
    struct Seen: Sendable {
        var title: String
        var geometry: (x: Int, y: Int, width: Int, height: Int)
        var adPicture: FrameIdentity?
        var pausedPictures: (FrameIdentity?, FrameIdentity?)
        var pausedIdentical: Bool
        var pauseAdID: String?
        var resumedPicture: FrameIdentity?
        var contentPicture: FrameIdentity?
        var exitStatus: Int32?
        var events: [String]
        var lastEvent: String?
        var quitAction: Bool
        var stderr: String
    }

    static let adID = "playwin-pre"

    /// A VMAP with one pre-roll of `ad` (a local file), skippable after 1 s.
    static func vmap(ad: URL) -> String {
        """
        <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
        <vmap:AdBreak timeOffset="start" breakType="linear" breakId="pre"><vmap:AdSource><vmap:VASTAdData>
        <VAST version="4.0"><Ad id="\(adID)"><InLine><AdSystem>Local</AdSystem><AdTitle>\(adID)</AdTitle>
        <Impression><![CDATA[http://127.0.0.1:9/impression]]></Impression>
        <Creatives><Creative><Linear skipoffset="00:00:01"><Duration>00:00:08</Duration>
        <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[\(ad.path)]]></MediaFile></MediaFiles>
        </Linear></Creative></Creatives></InLine></Ad></VAST>
        </vmap:VASTAdData></vmap:AdSource></vmap:AdBreak>
        </vmap:VMAP>
        """
    }

    @Test("interlude play's window: the ad then the content on screen; space pauses (picture held) and resumes, s skips, q quits",
          .enabled(if: XTools.available, "needs Xvfb, xdotool, xwd and ffmpeg (make setup installs them)"))
    func windowShowsAdAndContentAndKeysDriveThePlay() async throws {
        let seen = try await offPool { try Self.drive() }
        #expect(seen.title == "interlude — playwin-content.mp4")
        #expect(seen.geometry.width == 320 && seen.geometry.height == 180, "window \(seen.geometry)")
        #expect(seen.adPicture?.sourceID == 2, "during the ad the window showed \(String(describing: seen.adPicture))")
        #expect(seen.pauseAdID == Self.adID, "PAUSE is the ad's")
        #expect(seen.pausedIdentical, "paused, two screenshots 0.5 s apart differ: \(seen.pausedPictures)")
        #expect(seen.pausedPictures.0?.sourceID == 2 && seen.pausedPictures.0 == seen.pausedPictures.1,
                "paused pictures \(seen.pausedPictures)")
        #expect(seen.resumedPicture?.sourceID == 2 && (seen.resumedPicture?.frameIndex ?? -1) > (seen.pausedPictures.0?.frameIndex ?? .max),
                "resumed, the ad moves on from \(String(describing: seen.pausedPictures.0)): \(String(describing: seen.resumedPicture))")
        #expect(seen.contentPicture?.sourceID == 7, "after the skip the window showed \(String(describing: seen.contentPicture))")
        #expect(seen.exitStatus == 0, "exit status \(String(describing: seen.exitStatus)); stderr: \(seen.stderr)")
        #expect(seen.lastEvent == "end", "events: \(seen.events)")
        #expect(seen.quitAction, "a quit action before the end: \(seen.events)")
        // In order: the ad starts, pauses, resumes, is skipped (never completes), content resumes.
        let order = ["STARTED", "PAUSE", "RESUME", "SKIPPED", "contentResume", "end"].map { seen.events.firstIndex(of: $0) ?? -1 }
        #expect(!order.contains(-1) && order == order.sorted(), "events: \(seen.events)")
        #expect(!seen.events.contains("COMPLETE"), "a skipped ad does not complete: \(seen.events)")
    }

    /// Runs `interlude play` in a window on a fresh Xvfb and drives it; throws `StepFailed` at the
    /// first step that does not happen in time. The child and Xvfb are stopped on every path.
    static func drive() throws -> Seen {
        let dir = CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let content = dir.appendingPathComponent("playwin-content.mp4")
        try FileManager.default.createSymbolicLink(
            at: content, withDestinationURL: try TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 30, seconds: 8))
        // 8 s, so that the ad is still playing after a screenshot, a pause and a resume on a loaded machine.
        let ad = try TestMedia.clip(sourceID: 2, width: 320, height: 180, fps: 30, seconds: 8)
        let tag = dir.appendingPathComponent("vmap.xml")
        try vmap(ad: ad).write(to: tag, atomically: true, encoding: .utf8)
        let eventsFile = dir.appendingPathComponent("events.jsonl"), errFile = dir.appendingPathComponent("stderr.txt")

        let display = try VirtualDisplay.start()
        defer { display.stop() }
        let child = try Child.spawn(CLI.binary.path, ["play", content.path, "--ads", tag.path, "--events", eventsFile.path],
                                    extraEnvironment: ["DISPLAY": display.name, "SDL_AUDIODRIVER": "dummy"],
                                    stdout: dir.appendingPathComponent("stdout.txt").path, stderr: errFile.path)
        var exitStatus: Int32?
        defer { if exitStatus == nil { child.stop(grace: 2) } }

        func events() -> [[String: Any]] {
            let text = (try? String(contentsOf: eventsFile, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        func names() -> [String] { events().compactMap { $0["event"] as? String } }
        func stderr() -> String { (try? String(contentsOf: errFile, encoding: .utf8)) ?? "" }
        func fail(_ what: String) -> StepFailed {
            StepFailed(description: "\(what); events: \(names()); stderr: \(stderr().suffix(2000))")
        }
        func waitFor(_ event: String, within seconds: Double = 30) throws -> [String: Any] {
            var found: [String: Any]?
            _ = eventually(within: seconds) {
                found = events().first { $0["event"] as? String == event }
                if found == nil, exitStatus == nil { exitStatus = child.wait(timeout: 0) }
                return found != nil || exitStatus != nil
            }
            guard let found else { throw fail("no \(event) within \(Int(seconds)) s (exit status \(String(describing: exitStatus)))") }
            return found
        }
        func press(_ key: String, _ id: String) throws {
            let r = try runTool("xdotool", ["windowfocus", id, "key", key], display: display.name)
            guard r.status == 0 else { throw fail("xdotool key \(key): status \(r.status) \(r.stderr)") }
        }

        let id: String
        do { id = try display.windowID(title: "interlude .+ playwin-content\\.mp4", within: 30) } catch {
            if exitStatus == nil { exitStatus = child.wait(timeout: 0) }
            throw fail("\(error) (exit status \(String(describing: exitStatus)))")
        }
        let title = try runTool("xdotool", ["getwindowname", id], display: display.name).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let geometry = try display.geometry(of: id)
        let reader = IdentityReader(candidates: [PixelRect(x: 0, y: 0, width: geometry.width, height: geometry.height)])
        func picture(_ shot: Screenshot) -> FrameIdentity? {
            reader.read(shot.luma(in: geometry), width: geometry.width, height: geometry.height).identity
        }
        /// Screenshots until one shows a picture that `accept`s (up to `seconds`); the last one read.
        func pictureShown(within seconds: Double = 10, _ accept: (FrameIdentity) -> Bool) throws -> FrameIdentity? {
            var last: FrameIdentity?
            _ = try eventually(within: seconds) {
                last = picture(try display.screenshot())
                return last.map(accept) ?? false
            }
            return last
        }

        // The pre-roll plays: the window shows the ad's picture (source 2).
        _ = try waitFor("STARTED")
        let adPicture = try pictureShown { _ in true }

        // Space pauses the ad: the picture holds.
        try press("space", id)
        let pause = try waitFor("PAUSE")
        usleep(300_000)   // a frame posted just before the pause has been drawn
        let first = try display.screenshot()
        usleep(500_000)
        let second = try display.screenshot()
        let pausedIdentical = first.crop(geometry) == second.crop(geometry)
        let pausedPictures = (picture(first), picture(second))

        // Space again resumes it: the ad's picture moves on. Once the ad is past its skip offset
        // (FIRST_QUARTILE: 2 s of 8), s skips it and content resumes in the window (source 7).
        try press("space", id)
        _ = try waitFor("RESUME")
        let held = pausedPictures.0?.frameIndex ?? .max
        let resumedPicture = try pictureShown { $0.sourceID != 2 || $0.frameIndex > held }
        _ = try waitFor("FIRST_QUARTILE")
        try press("s", id)
        _ = try waitFor("SKIPPED")
        _ = try waitFor("contentResume")
        let contentPicture = try pictureShown { $0.sourceID == 7 }

        // q quits: the process ends with status 0 and the events end with "end".
        try press("q", id)
        if exitStatus == nil { exitStatus = child.wait(timeout: 20) }
        guard exitStatus != nil else { throw fail("still running 20 s after q") }
        let all = events()
        return Seen(title: title, geometry: geometry, adPicture: adPicture, pausedPictures: pausedPictures,
                    pausedIdentical: pausedIdentical, pauseAdID: pause["adId"] as? String,
                    resumedPicture: resumedPicture, contentPicture: contentPicture,
                    exitStatus: exitStatus, events: all.compactMap { $0["event"] as? String },
                    lastEvent: all.last?["event"] as? String,
                    quitAction: all.contains { $0["event"] as? String == "action" && $0["do"] as? String == "quit" },
                    stderr: stderr())
    }
}
