import Foundation
import Testing
import Timing
import TestSupport
import Playback

/// The player on its own: frame-exact seeks and boundaries, periodic observers, pause holding the
/// picture, ads through the same surface, and several players in one process. Outputs are decoded
/// with the ffmpeg CLI.
@Suite(.serialized) struct PlayerTests {
    static let reader = IdentityReader(output: PixelSize(width: 320, height: 180), sources: [PixelSize(width: 320, height: 180)])

    static func content() throws -> URL { try TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 30, seconds: 4) }
    static func ad() throws -> URL { try TestMedia.clip(sourceID: 3, width: 320, height: 180, fps: 30, seconds: 1) }

    static func outputPath(_ name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-player-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: url)
        return url
    }

    /// A fast player writing a NUT frame stream to `name`.
    static func player(_ name: String, content: URL? = nil) throws -> (Player, URL) {
        let player = try Player.open(url: content ?? Self.content(), clock: .asFastAsPossible)
        let out = try outputPath(name)
        player.surface.attach(try EncodedOutput(url: out.path, container: .nut, format: player.surface.format, settings: EncoderSettings()))
        return (player, out)
    }

    /// A value shared between a test and the blocks it gives the player.
    final class Box<T>: @unchecked Sendable {
        // @unchecked Sendable: guarded by `lock`.
        private let lock = NSLock()
        private var v: T
        init(_ v: T) { self.v = v }
        var value: T { get { lock.lock(); defer { lock.unlock() }; return v } set { lock.lock(); v = newValue; lock.unlock() } }
    }

    static let queue = DispatchQueue(label: "player-tests")

    @Test func boundaryPausesOnTheExactFrameAndSeekShowsTheFirstFrameAtOrAfterTheTarget() async throws {
        let (player, out) = try Self.player("seek.nut")
        let seeked = Box(false)
        // At 1.0 s (frame 30) the app pauses, seeks to 2.51 s (between frames 75 and 76) and plays.
        player.addBoundaryTimeObserver(forTimes: [MediaTime(value: 1, timescale: 1)], queue: Self.queue) { [player] in
            player.pause()
            player.seek(to: MediaTime(value: 251, timescale: 100), queue: Self.queue) { ok in
                seeked.value = ok
                player.play()
            }
        }
        player.play()
        #expect(player.waitUntilIdle(timeout: 60))
        #expect(seeked.value)
        #expect(player.contentEnded)
        try player.close()
        let shown = try await MediaVerifier.videoFrames(out, reader: Self.reader).map { $0.identity?.frameIndex ?? -1 }
        #expect(shown == Array(0...29) + Array(76...119), "\(shown)")
    }

    @Test func periodicObserverFollowsContentTime() async throws {
        let (player, _) = try Self.player("periodic.nut")
        let times = Box<[MediaTime]>([])
        player.addPeriodicTimeObserver(forInterval: MediaTime(value: 1, timescale: 2), queue: Self.queue) { t in times.value.append(t) }
        player.play()
        #expect(player.waitUntilIdle(timeout: 60))
        try player.close()
        // the first frame, then the first frame at or after each half second
        #expect(times.value.map { $0.seconds } == [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5])
    }

    @Test func anAdPlaysThroughTheSurfaceWhileContentIsPaused() async throws {
        let (player, out) = try Self.player("ad.nut")
        let ad = try Self.ad().path
        let adFrames = Box<[MediaTime]>([])
        let done = Box<AdPlayback?>(nil)
        player.addBoundaryTimeObserver(forTimes: [MediaTime(value: 2, timescale: 1)], queue: Self.queue) { [player] in
            player.pause()
            player.beginBreak(id: "mid", contentTime: player.currentTime())
            player.playAd(url: ad, queue: Self.queue, onFrame: { t, _ in adFrames.value.append(t); return true }) { r in
                done.value = try? r.get()
                player.endBreak()
                player.play()
            }
        }
        player.play()
        #expect(player.waitUntilIdle(timeout: 60))
        try player.close()
        #expect(adFrames.value.count == 30)
        #expect(done.value?.frames == 30 && done.value?.streamStart == MediaTime(value: 2, timescale: 1))
        let segments = MediaVerifier.segments(try await MediaVerifier.videoFrames(out, reader: Self.reader))
        #expect(segments.map(\.sourceID) == [7, 3, 7], "\(segments)")
        #expect(segments.map(\.frameCount) == [60, 30, 60])
        let map = player.timeline
        #expect(map.breaks.count == 1 && map.breaks[0].streamStart == MediaTime(value: 2, timescale: 1) && map.breaks[0].streamEnd == MediaTime(value: 3, timescale: 1))
        #expect(map.streamTime(forContentTime: MediaTime(value: 3, timescale: 1)) == MediaTime(value: 4, timescale: 1))
        // seeking inside an ad is refused
    }

    @Test func seekIsRefusedWhileAnAdPlays() async throws {
        let (player, _) = try Self.player("refuse.nut")
        let ad = try AdMediaProbe.measure(Self.ad().path)
        let answer = Box<Bool?>(nil)
        // every frame marked and waited for, so the seek is asked while the ad still plays
        let marks = AdFrameMarks(duration: ad.duration, period: .zero, waits: true)
        player.playAd(ad, position: 1, totalAds: 1, queue: Self.queue, marks: marks, onFrame: { [player] t, _ in
            if t == MediaTime(value: 1, timescale: 3) {
                player.seek(to: MediaTime(value: 3, timescale: 1), queue: Self.queue) { answer.value = $0 }
            }
            return true
        }) { _ in }
        let deadline = Date().addingTimeInterval(60)
        while answer.value == nil, Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(answer.value == false)
        try player.close()
    }

    /// Issue 19, item 3: the loop does not wait for the app on an ad frame. With the observer's
    /// queue held for the whole ad, every frame is presented; once the queue is let go the
    /// observer sees the marked frames, in order, and only then the completion.
    @Test func anAdPlaysOutWhileItsObserversQueueIsHeld() async throws {
        let (player, out) = try Self.player("held.nut")
        let ad = try AdMediaProbe.measure(Self.ad().path)
        let queue = DispatchQueue(label: "held-observer")
        let held = DispatchSemaphore(value: 0)
        queue.async { held.wait() }
        let seen = Box<[MediaTime]>([]), order = Box<[String]>([])
        let marks = AdFrameMarks(duration: ad.duration, period: MediaTime(value: 1, timescale: 10))
        player.playAd(ad, position: 1, totalAds: 1, queue: queue, marks: marks, onFrame: { t, _ in
            seen.value.append(t); order.value.append("frame"); return true
        }) { _ in order.value.append("completion") }
        // the loop presents the whole ad (30 frames at 30 fps) while nothing on the queue can run
        let deadline = Date().addingTimeInterval(60)
        while player.streamTime < MediaTime(value: 1, timescale: 1), Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(player.streamTime == MediaTime(value: 1, timescale: 1), "the ad's frames went out with the queue held")
        #expect(seen.value.isEmpty)
        held.signal()
        #expect(player.waitUntilIdle(timeout: 60))
        try player.close()
        // marked: the first, every third frame (100 ms), the quartiles at 0.25 s (frame 8) and 0.75 s (23)
        let markedFrames: [Int] = (0..<30).filter { (k: Int) -> Bool in k % 3 == 0 || k == 8 || k == 23 }
        let expected: [MediaTime] = markedFrames.map { MediaTime(value: Int64($0), timescale: 30) }
        #expect(seen.value == expected, "\(seen.value)")
        #expect(order.value.last == "completion" && order.value.filter { $0 == "completion" }.count == 1)
        let segments = MediaVerifier.segments(try await MediaVerifier.videoFrames(out, reader: Self.reader))
        #expect(segments.map(\.frameCount) == [30], "\(segments)")
    }

    @Test func pauseHoldsThePictureInRealTime() async throws {
        let player = try Player.open(url: Self.content(), clock: .realTime)
        let null = NullOutput()
        player.surface.attach(null)
        // paused from the player's callback queue half a second in (a sleep on the test's task could
        // wake seconds late on a busy machine, after the whole 4 s content had played)
        player.addBoundaryTimeObserver(forTimes: [MediaTime(value: 1, timescale: 2)], queue: Self.queue) { [player] in player.pause() }
        player.play()
        #expect(player.waitUntilIdle(timeout: 60))
        let held = null.frameCount
        let heldTime = player.currentTime()
        try await Task.sleep(nanoseconds: 400_000_000)
        #expect(null.frameCount == held, "no frame is presented while paused")
        #expect(player.currentTime() == heldTime)
        #expect(held > 0 && held < 120)
        player.play()
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(null.frameCount > held)
        try player.close()
    }

    @Test func threePlayersAtOnceMakeWhatEachMakesAlone() async throws {
        let (alone, together) = try await Self.aloneThenThreeAtOnce("together") { name in
            let (player, out) = try Self.player(name)
            try Self.playAdAtOneAndAHalf(player)
            return out
        }
        #expect(alone.split(separator: "\n").count == 150)
        #expect(together.allSatisfy { $0 == alone })
    }

    /// The app of the many-players tests: at content 1.5 s the 1 s ad plays, then content to the
    /// end; returns once the player is idle, closed.
    static func playAdAtOneAndAHalf(_ player: Player) throws {
        let ad = try Self.ad().path
        let q = DispatchQueue(label: "one-and-a-half")
        player.addBoundaryTimeObserver(forTimes: [MediaTime(value: 3, timescale: 2)], queue: q) { [player] in
            player.pause()
            player.playAd(url: ad, queue: q, onFrame: { _, _ in true }) { _ in player.play() }
        }
        player.play()
        guard player.waitUntilIdle(timeout: 60), player.contentEnded else { throw VerifierError.malformedOutput("player timed out") }
        try player.close()
    }

    /// Runs `make` (which writes an output and returns its path) once alone, then three at once
    /// (names `PREFIX-alone`, `PREFIX-a` …); each output's decoded video as framemd5 hashes, one a line.
    static func aloneThenThreeAtOnce(_ prefix: String, _ make: @escaping @Sendable (String) throws -> URL) async throws -> (String, [String]) {
        @Sendable func hashes(_ name: String) throws -> String {
            let out = try make("\(prefix)-\(name).nut")
            return try Tools.ffmpeg(["-v", "error", "-i", out.path, "-map", "0:v", "-f", "framemd5", "-"]).stdout
                .split(separator: UInt8(ascii: "\n")).filter { $0.first != UInt8(ascii: "#") }
                .map { String(decoding: $0, as: UTF8.self).split(separator: ",").last.map(String.init) ?? "" }.joined(separator: "\n")
        }
        let alone = try await offPool { try hashes("alone") }
        async let a = offPool { try hashes("a") }
        async let b = offPool { try hashes("b") }
        async let c = offPool { try hashes("c") }
        return (alone, try await [a, b, c])
    }
}
