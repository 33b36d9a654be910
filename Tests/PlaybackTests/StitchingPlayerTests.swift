import Foundation
import Testing
import Timing
import TestSupport
import Playback

/// `Player(stitching:)`: the player's controls, observers and ads over the stitch engine (issue 8,
/// item 6 — one stack). The same app code as on a presenting player gives the same frames;
/// smart rendering still copies content between cues; the file appears only on `close()`.
/// Outputs are decoded with the ffmpeg CLI.
@Suite(.serialized) struct StitchingPlayerTests {
    static let reader = PlayerTests.reader
    static let queue = DispatchQueue(label: "stitching-player-tests")
    typealias Box = PlayerTests.Box

    /// The app of `PlayerTests.adPlaysThroughTheSamePlayer…`: a mid-roll at 2 s through `playAd`,
    /// returning the ad's playback once content has ended.
    static func playMidroll(_ player: Player, ad: String) -> AdPlayback? {
        let done = Box<AdPlayback?>(nil)
        player.addBoundaryTimeObserver(forTimes: [MediaTime(value: 2, timescale: 1)], queue: queue) { [player] in
            player.pause()
            player.beginBreak(id: "mid", contentTime: player.currentTime())
            player.playAd(url: ad, queue: Self.queue, onFrame: { _, _ in true }) { r in
                done.value = try? r.get()
                player.endBreak()
                player.play()
            }
        }
        player.play()
        #expect(player.waitUntilIdle(timeout: 60))
        #expect(player.contentEnded)
        return done.value
    }

    @Test func theSameAppCodeStitchesTheSameFramesAsOnAPresentingPlayer() async throws {
        let content = try PlayerTests.content(), ad = try PlayerTests.ad().path
        let (presenting, presented) = try PlayerTests.player("present.nut")
        _ = Self.playMidroll(presenting, ad: ad)
        try presenting.close()

        let out = try PlayerTests.outputPath("stitched.nut")
        let stitching = try Player(stitching: StitchRequest(content: content.path, breaks: [], output: out.path, container: .nut))
        #expect(stitching.clock == .asFastAsPossible && stitching.currentItem?.duration == MediaTime(value: 4, timescale: 1))
        let playback = Self.playMidroll(stitching, ad: ad)
        #expect(!FileManager.default.fileExists(atPath: out.path), "nothing at the output path before close()")
        try stitching.close()
        #expect(playback?.frames == 30 && playback?.streamStart == MediaTime(value: 2, timescale: 1))
        #expect(playback?.placement?.podPosition == 1, "a stitch reports the ad's full placement")

        let a = try await MediaVerifier.videoFrames(presented, reader: Self.reader).map { $0.identity.map { "\($0.sourceID):\($0.frameIndex)" } ?? "?" }
        let b = try await MediaVerifier.videoFrames(out, reader: Self.reader).map { $0.identity.map { "\($0.sourceID):\($0.frameIndex)" } ?? "?" }
        #expect(a.count == 150 && a == b)
        let map = stitching.timeline
        #expect(map.breaks.count == 1 && map.breaks[0].streamStart == MediaTime(value: 2, timescale: 1)
                && map.breaks[0].streamEnd == MediaTime(value: 3, timescale: 1))
        #expect(map.segments.count == 2 && map.segments[1].contentStart == MediaTime(value: 2, timescale: 1))
    }

    @Test func smartRenderingStillCopiesContentBetweenCues() async throws {
        // keyframes every second: the cue at 2 s falls on one, so no content frame is re-encoded
        let content = try await TestMedia.derived(from: PlayerTests.content(), name: "stitching-player-gop30.mp4",
                                            arguments: ["-c:v", "libx264", "-g", "30", "-keyint_min", "30", "-sc_threshold", "0", "-c:a", "copy"])
        let out = try PlayerTests.outputPath("smart.mp4")
        var request = StitchRequest(content: content.path, breaks: [], output: out.path)
        request.smart = .on
        request.transcodeCache = nil
        let player = try Player(stitching: request)
        #expect(player.copiesContent)
        _ = Self.playMidroll(player, ad: try PlayerTests.ad().path)
        try player.close()
        let smart = try #require(player.stitchFile?.smartRendering)
        #expect(smart.used && smart.copiedFrames == 120 && smart.encodedContentFrames == 0, "\(smart)")
        let segments = MediaVerifier.segments(try await MediaVerifier.videoFrames(out, reader: Self.reader))
        #expect(segments.map(\.sourceID) == [7, 3, 7] && segments.map(\.frameCount) == [60, 30, 60], "\(segments)")
        FieldCheck.keep(out)   // the player's smart-rendered MP4 goes through the field check's clients
    }

    @Test func seekIsRefusedAndAnAbandonedStitchLeavesNothing() async throws {
        let out = try PlayerTests.outputPath("abandoned.nut")
        let player = try Player(stitching: StitchRequest(content: PlayerTests.content().path, breaks: [], output: out.path, container: .nut))
        let answer = Box<Bool?>(nil)
        let sem = DispatchSemaphore(value: 0)
        player.seek(to: MediaTime(value: 1, timescale: 1), queue: Self.queue) { ok in answer.value = ok; sem.signal() }
        #expect(sem.wait(timeout: .now() + 10) == .success)
        #expect(answer.value == false)
        player.addBoundaryTimeObserver(forTimes: [MediaTime(value: 1, timescale: 1)], queue: Self.queue) { [player] in player.pause() }
        player.play()
        #expect(player.waitUntilIdle(timeout: 60))
        #expect(player.currentTime() < MediaTime(value: 1, timescale: 1) && player.streamTime == MediaTime(value: 1, timescale: 1))
        player.abandon()
        try? player.close()
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: out.deletingLastPathComponent().path).filter { $0.contains("abandoned") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// A service stitching in parallel: three stitches at once (each a stitching player) decode
    /// to the same frames as the same stitch run alone.
    @Test func threeStitchesAtOnceMakeWhatEachMakesAlone() async throws {
        let content = try PlayerTests.content().path
        let (alone, together) = try await PlayerTests.aloneThenThreeAtOnce("stitch") { name in
            let out = try PlayerTests.outputPath(name)
            try PlayerTests.playAdAtOneAndAHalf(try Player(stitching: StitchRequest(content: content, breaks: [], output: out.path, container: .nut)))
            return out
        }
        #expect(alone.split(separator: "\n").count == 150)
        #expect(together.allSatisfy { $0 == alone })
    }

    /// Runs a stitch of the 4 s content whose app pauses content at 1 s (`pausedApp` does the
    /// rest), with `stallTimeout`; the failed-to-play-to-end error, whether did-play-to-end came,
    /// and the seconds from `play()` to the notification.
    static func stitchWithStallTimeout(_ limit: Double, name: String,
                                       pausedApp: @escaping @Sendable (Player) -> Void) async throws -> (Player, URL, Error?, Bool, Double) {
        let out = try PlayerTests.outputPath(name)
        let player = try Player(stitching: StitchRequest(content: PlayerTests.content().path, breaks: [], output: out.path, container: .nut))
        let failure = Box<Error?>(nil), ended = Box(false)
        let done = DispatchSemaphore(value: 0)
        let observers = [
            NotificationCenter.default.addObserver(forName: .PlayerItemFailedToPlayToEndTime, object: player.currentItem, queue: nil) { n in
                failure.value = n.userInfo?[PlayerItem.errorKey] as? Error
                done.signal()
            },
            NotificationCenter.default.addObserver(forName: .PlayerItemDidPlayToEndTime, object: player.currentItem, queue: nil) { _ in
                ended.value = true
                done.signal()
            },
        ]
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        player.addBoundaryTimeObserver(forTimes: [MediaTime(value: 1, timescale: 1)], queue: queue) { [player] in
            player.pause()
            pausedApp(player)
        }
        player.stallTimeout = limit
        let started = monotonicSeconds()
        player.play()
        let signalled = try await offPool { done.wait(timeout: .now() + 60) == .success }
        #expect(signalled)
        return (player, out, failure.value, ended.value, monotonicSeconds() - started)
    }

    /// An app that pauses content and never resumes it (an ad manager that never asks for content
    /// to resume): with `stallTimeout` the stitch fails instead of waiting for ever — the player
    /// posts failed-to-play-to-end with `StitchFailure.stalled` at the paused stream time,
    /// `close()` throws it and nothing is written.
    @Test func aStitchNobodyResumesFailsAfterItsStallTimeout() async throws {
        let (player, out, failure, ended, seconds) = try await Self.stitchWithStallTimeout(0.5, name: "stalled.nut") { _ in }
        #expect(!ended && seconds >= 0.5)
        #expect(failure as? StitchFailure == .stalled(seconds: 0.5, streamTime: MediaTime(value: 1, timescale: 1)), "\(String(describing: failure))")
        #expect(player.stallTimeout == 0.5)
        #expect(throws: StitchFailure.stalled(seconds: 0.5, streamTime: MediaTime(value: 1, timescale: 1))) { try player.close() }
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: out.deletingLastPathComponent().path).filter { $0.contains("stalled") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// An ad paused by the app and never resumed stalls the stitch too; the ad ends there. The app
    /// pauses on the frame at 0.5 s, which it asks to be waited for (`AdFrameMarks.waits`): a frame
    /// handed over without waiting could reach it after the ad had ended when the machine is busy.
    @Test func anAdPausedForeverStallsTheStitch() async throws {
        let ad = try AdMediaProbe.measure(PlayerTests.ad().path)
        let half = MediaTime(value: 1, timescale: 2)
        let marks = AdFrameMarks(duration: ad.duration, quartiles: false, offsets: [half], waits: true)
        let (player, out, failure, ended, _) = try await Self.stitchWithStallTimeout(0.5, name: "stalled-ad.nut") { player in
            let paused = Box(false)
            player.playAd(ad, position: 1, totalAds: 1, queue: Self.queue, marks: marks, onFrame: { [player] t, _ in
                if t >= half, !paused.value { paused.value = true; player.setAdPaused(true) }
                return true
            }) { _ in }
        }
        #expect(!ended)
        guard case .stalled(let s, let at)? = failure as? StitchFailure else { Issue.record("\(String(describing: failure))"); return }
        #expect(s == 0.5)
        #expect(at > MediaTime(value: 3, timescale: 2) && at < MediaTime(value: 2, timescale: 1), "paused half a second into the ad, not \(at.seconds) s")
        #expect(throws: StitchFailure.self) { try player.close() }
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    /// A pause shorter than the limit is no stall: the stitch completes with every frame.
    @Test func aShortPauseIsNoStall() async throws {
        let (player, out, failure, ended, _) = try await Self.stitchWithStallTimeout(30, name: "short-pause.nut") { player in
            Self.queue.asyncAfter(deadline: .now() + 0.3) { player.play() }
        }
        #expect(ended && failure == nil)
        try player.close()
        #expect(try await MediaVerifier.videoFrames(out, reader: Self.reader).count == 120)
    }

    @Test func anUnreadableContentThrowsAStitchFailure() async throws {
        let out = try PlayerTests.outputPath("none.nut")
        #expect(throws: StitchFailure.self) {
            try Player(stitching: StitchRequest(content: "/nonexistent/content.mp4", breaks: [], output: out.path, container: .nut))
        }
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
