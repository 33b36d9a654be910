import Foundation
import Testing
import Timing
import TestSupport
import Playback
@testable import Interlude
@testable import Jobs

/// A folder of its own for one test, removed afterwards.
private func scratch(_ name: String) throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-job-\(name)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

/// The names in `dir`, sorted (a staged temporary left behind shows up here).
private func names(_ dir: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
}

/// The frames ffprobe counts in `url` (the independent check).
private func probedFrames(_ url: URL) throws -> Int {
    let out = try Tools.ffprobe(["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
                                 "-of", "csv=p=0", url.path])
    return Int(String(decoding: out.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
}

/// `StitchJob` run in-process: what `interlude stitch` does, without a process.
@MainActor @Suite(.serialized) struct StitchJobTests {
    @Test func aMediaBreakIsStitchedCommittedAndReported() async throws {
        let dir = try scratch("media")
        defer { try? FileManager.default.removeItem(at: dir) }
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 2)
        let ad = try await TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 25, seconds: 1)
        let out = dir.appendingPathComponent("out.mp4"), report = dir.appendingPathComponent("report.json")
        var job = StitchJob(request: StitchRequest(content: content.path, breaks: [AdBreakRequest(id: "midroll-1", position: .time(MediaTime(value: 1, timescale: 1)), ads: [ad.path])],
                                                   output: out.path))
        job.reportPath = report.path
        let outcome = try await job.run()
        // committed: exactly the output and the report, no temporary beside them
        #expect(try names(dir) == ["out.mp4", "report.json"])
        #expect(try probedFrames(out) == 75, "2 s of content and 1 s of ad at 25 fps")
        #expect(outcome.result.videoFrames == 75)
        // the report on disk is the one assembled, with the break at content 1 s -> stream 1 s
        #expect(outcome.report == (try Data(contentsOf: report)))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let breaks = try #require(json["breaks"] as? [[String: Any]])
        #expect(breaks.count == 1)
        #expect(outcome.summary.first?.hasPrefix("wrote \(out.path)") == true)
        #expect(outcome.summary.contains { $0.hasPrefix("  break midroll-1 at content 00:00:01.000") })
    }

    @Test func aRefusedOutputLeavesTheUsersFileUntouched() async throws {
        let dir = try scratch("refused")
        defer { try? FileManager.default.removeItem(at: dir) }
        let content = try await TestMedia.clip(sourceID: 2, width: 320, height: 180, fps: 25, seconds: 1)
        let mine = dir.appendingPathComponent("mine.mp4")
        let bytes = Data("the user's own file".utf8)
        try bytes.write(to: mine)
        // an existing output without overwrite: the run fails before any work
        var job = StitchJob(request: StitchRequest(content: content.path, breaks: [], output: mine.path))
        await #expect(throws: JobFailure.self) { _ = try await job.run() }
        do { _ = try await job.run() } catch { #expect(error.kind == .failed) }
        #expect(try Data(contentsOf: mine) == bytes)
        // the report aimed at an input is a usage failure, even with overwrite
        job.request.output = dir.appendingPathComponent("new.mp4").path
        job.request.overwrite = true
        job.reportPath = content.path
        let before = try Data(contentsOf: content)
        do { _ = try await job.run(); Issue.record("a report over the content must be refused") } catch {
            #expect(error.kind == .usage)
            #expect(error.description.contains("is the content input"), "\(error)")
        }
        #expect(try Data(contentsOf: content) == before)
        #expect(try names(dir) == ["mine.mp4"], "nothing was written")
    }

    @Test func companionsAreWrittenWithTheOutputAndListedInTheReport() async throws {
        let dir = try scratch("companions")
        defer { try? FileManager.default.removeItem(at: dir) }
        let tall = dir.appendingPathComponent("tall.png")
        _ = try await Tools.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=white:s=300x250", "-frames:v", "1", tall.path])
        let content = try await TestMedia.clip(sourceID: 3, width: 320, height: 180, fps: 25, seconds: 2)
        let ad = try await TestMedia.clip(sourceID: 8, width: 320, height: 180, fps: 25, seconds: 1)
        let vast = dir.appendingPathComponent("vast.xml")
        try """
            <VAST version="3.0"><Ad id="a1"><InLine><AdSystem>T</AdSystem><AdTitle>a</AdTitle><Impression><![CDATA[http://127.0.0.1:9/i]]></Impression>
            <Creatives><Creative><Linear><Duration>00:00:01</Duration>
            <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[\(ad.path)]]></MediaFile></MediaFiles>
            </Linear></Creative><Creative><CompanionAds>
            <Companion id="t" width="300" height="250"><StaticResource creativeType="image/png"><![CDATA[\(tall.path)]]></StaticResource></Companion>
            </CompanionAds></Creative></Creatives></InLine></Ad></VAST>
            """.write(to: vast, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out.nut"), report = dir.appendingPathComponent("report.json")
        let companions = dir.appendingPathComponent("companions")
        var job = StitchJob(request: StitchRequest(content: content.path, breaks: [], output: out.path, container: .nut))
        job.adTag = vast.path
        job.reportPath = report.path
        job.companionsDir = companions.path
        job.cacheDir = dir.appendingPathComponent("cache").path
        job.adUI = AdUIChoice.none
        let outcome = try await job.run()
        let written = companions.appendingPathComponent("companion-300x250-1-a1.png")
        #expect(outcome.companionFiles == [written.path])
        #expect(try Data(contentsOf: written) == (try Data(contentsOf: tall)))
        #expect(try names(companions) == ["companion-300x250-1-a1.png"])
        #expect(try probedFrames(out) == 75, "a 1 s pre-roll and 2 s of content")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let listed = try #require(json["companions"] as? [[String: Any]])
        #expect(listed.map { $0["file"] as? String } == [written.path])
        #expect(outcome.summary.contains("1 companion(s) written to \(companions.path)"))

        // all or nothing: companions that cannot be written leave neither output nor report
        let blocker = dir.appendingPathComponent("blocker")
        try Data("a file, not a folder".utf8).write(to: blocker)
        let out2 = dir.appendingPathComponent("out2.nut"), report2 = dir.appendingPathComponent("report2.json")
        job.request.output = out2.path
        job.reportPath = report2.path
        job.companionsDir = blocker.path
        do { _ = try await job.run(); Issue.record("companions into a file must fail") } catch {
            #expect(error.kind == .failed)
            #expect(error.description == "--companions \(blocker.path) is not a folder")
        }
        let left = try names(dir)
        #expect(left.filter { $0.contains("out2") || $0.contains("report2") }.isEmpty, "\(left)")
        #expect(try Data(contentsOf: blocker) == Data("a file, not a folder".utf8))
    }

    /// A local VAST's relative media file is looked for beside the VAST, and when it is not there
    /// the error names the path looked at, not the relative name (which may exist where the user
    /// stands, and would read as a false "not found").
    @Test func aMissingRelativeAdFileIsNamedByThePathLookedAt() async throws {
        let dir = try scratch("relative")
        defer { try? FileManager.default.removeItem(at: dir) }
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 2)
        let tags = dir.appendingPathComponent("tags")
        try FileManager.default.createDirectory(at: tags, withIntermediateDirectories: true)
        let vast = tags.appendingPathComponent("vast.xml")
        try """
            <VAST version="3.0"><Ad id="a1"><InLine><AdSystem>T</AdSystem><AdTitle>Missing</AdTitle>
            <Creatives><Creative><Linear><Duration>00:00:01</Duration>
            <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[media/ad.mp4]]></MediaFile></MediaFiles>
            </Linear></Creative></Creatives></InLine></Ad></VAST>
            """.write(to: vast, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out.mp4")
        var job = StitchJob(request: StitchRequest(content: content.path, breaks: [], output: out.path))
        job.adTag = vast.path
        job.cacheDir = dir.appendingPathComponent("cache").path
        let outcome = try await job.run()
        #expect(outcome.result.playedBreaks.flatMap(\.ads).isEmpty)
        #expect(try probedFrames(out) == 50, "the content, whole")
        let error = try #require(outcome.result.errors.first { $0.code == 401 })
        #expect(error.message.contains(tags.appendingPathComponent("media/ad.mp4").path), "\(error.message)")
    }
}

/// `PlayJob` run in-process: `interlude play --fast --null -o OUT`.
@MainActor @Suite(.serialized) struct PlayJobTests {
    @Test func playsToAFileAndCommitsIt() async throws {
        let dir = try scratch("play")
        defer { try? FileManager.default.removeItem(at: dir) }
        let content = try await TestMedia.clip(sourceID: 4, width: 320, height: 180, fps: 25, seconds: 1)
        let out = dir.appendingPathComponent("played.nut")
        var job = PlayJob(content: content.path)
        job.clock = .asFastAsPossible
        job.countsFrames = true
        job.output = out.path
        job.format = .nut
        let outcome = try await job.run()
        #expect(outcome.frames == 25)
        #expect(outcome.ads == 0)
        #expect(try names(dir) == ["played.nut"])
        #expect(try probedFrames(out) == 25)
        #expect(outcome.summary == ["played 25 frames (00:00:01.000), 0 ad(s), 0 beacon(s) listed (none fired as fast as possible)"])
    }

    @Test func anEventsFileOverTheContentIsRefused() async throws {
        let content = try await TestMedia.clip(sourceID: 4, width: 320, height: 180, fps: 25, seconds: 1)
        let before = try Data(contentsOf: content)
        var job = PlayJob(content: content.path)
        job.clock = .asFastAsPossible
        job.countsFrames = true
        job.eventsPath = content.path
        do { _ = try await job.run(); Issue.record("an events file over the content must be refused") } catch {
            #expect(error.kind == .usage)
        }
        #expect(try Data(contentsOf: content) == before)
    }
}

/// `InspectJob` run in-process: `interlude inspect TAG [--json]`.
@Suite struct InspectJobTests {
    @Test func aVASTTagIsReportedAsOnePreRoll() async throws {
        let dir = try scratch("inspect")
        defer { try? FileManager.default.removeItem(at: dir) }
        let vast = dir.appendingPathComponent("vast.xml")
        try """
            <VAST version="3.0"><Ad id="a1"><InLine><AdSystem>T</AdSystem><AdTitle>Title one</AdTitle>
            <Creatives><Creative><Linear><Duration>00:00:05</Duration>
            <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[ad.mp4]]></MediaFile></MediaFiles>
            </Linear></Creative></Creatives></InLine></Ad></VAST>
            """.write(to: vast, atomically: true, encoding: .utf8)
        var job = InspectJob(tag: vast.path)
        job.json = true
        let outcome = await job.run()
        #expect(outcome.succeeded && outcome.error == nil)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
        #expect((json["cuePoints"] as? [Double]) == [0])
        #expect((json["breaks"] as? [Any])?.count == 1)
        job.json = false
        let text = await job.run()
        #expect(text.succeeded && text.output.contains("Title one"))
    }

    @Test func anUnreadableTagFailsWithOneLineAndStillAnswersJSON() async throws {
        var job = InspectJob(tag: "/nonexistent/interlude-job-tag.xml")
        job.json = true
        let outcome = await job.run()
        #expect(!outcome.succeeded)
        let error = try #require(outcome.error)
        #expect(!error.contains("\n"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
        #expect((json["breaks"] as? [Any])?.isEmpty == true)
        #expect((json["errors"] as? [Any])?.count == 1)
    }
}
