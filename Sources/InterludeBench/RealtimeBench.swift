import Foundation
import Playback
import Threads
import Timing

/// Real-time playback through the `Player`: the case's content with its ad schedule (pre-roll,
/// two mid-rolls, post-roll) paced to the system clock into a live null output, once. Measures the
/// CPU the process used per second of video presented and the frames that were late and left out
/// of the live view (the target: none at 720p on this machine).
struct RealtimeResult: Codable, Sendable {
    /// Output frames presented.
    var frames: Int64
    /// Seconds of stream presented.
    var streamSeconds: Double
    /// Wall-clock seconds the playback took.
    var wallSeconds: Double
    /// Process CPU seconds (user + system) during the playback.
    var cpuSeconds: Double
    /// CPU seconds per second of video.
    var cpuPerVideoSecond: Double
    /// Frames late by more than one frame, left out of the live view.
    var droppedFrames: Int64
    /// Worst lateness of a presented frame against its due time, in milliseconds.
    var worstLateMs: Double
}

enum RealtimeBench {
    /// Opened once, by the playback's end; the bench waits for it.
    final class Gate: Sendable {
        private let open = LockedCondition(false)
        /// Opens the gate and wakes the waiter.
        func signal() { open.holding { held in held.value = true; held.broadcast() } }
        /// Waits up to `timeout` seconds for the gate to open; whether it did.
        func wait(timeout: Double) -> Bool {
            let deadline = Date(timeIntervalSinceNow: timeout)
            return open.holding { held in held.wait(until: { $0 }, before: deadline) }
        }
    }

    static func run(_ c: BenchCase, config: BenchConfig) throws -> RealtimeResult {
        let player = try Player.open(url: URL(fileURLWithPath: c.content.path), clock: .realTime, threads: config.threads)
        let live = NullOutput(live: true)
        player.surface.attach(live)
        let queue = DispatchQueue(label: "bench-realtime")
        let pre = c.breaks.first { $0.cue == "start" }?.ads ?? []
        let post = c.breaks.first { $0.cue == "end" }?.ads ?? []
        let done = Gate()
        /// Plays `ads` one after another through the player, then `then`.
        @Sendable func playAds(_ ads: ArraySlice<String>, then: @escaping @Sendable () -> Void) {
            guard let first = ads.first else { then(); return }
            let rest = ads.dropFirst()
            player.playAd(url: first, queue: queue, onFrame: { _, _ in true }) { _ in playAds(rest, then: then) }
        }
        for b in c.breaks {
            guard let cue = b.cueSeconds else { continue }
            let ads = b.ads
            player.addBoundaryTimeObserver(forTimes: [MediaTime(seconds: cue, timescale: 1000)], queue: queue) { [player] in
                player.pause()
                playAds(ads[...]) { player.play() }
            }
        }
        let end = NotificationCenter.default.addObserver(forName: PlayerItem.didPlayToEndTimeNotification,
                                                         object: player.currentItem, queue: nil) { _ in
            playAds(post[...]) { done.signal() }
        }
        defer { NotificationCenter.default.removeObserver(end) }
        let cpu0 = cpuSeconds(), wall0 = monotonicSeconds()
        playAds(pre[...]) { player.play() }
        guard done.wait(timeout: c.content.duration * 3 + c.adSeconds * 3 + 60) else {
            throw UsageError("real-time playback of \(c.id) did not finish")
        }
        let wall = monotonicSeconds() - wall0, cpu = cpuSeconds() - cpu0
        try player.close()
        let frames = player.surface.presentedFrames
        let stream = player.streamTime.seconds
        var worst = 0.0
        let times = live.presentationTimes
        for (i, t) in times.enumerated() {
            if let due = player.wallTime(forStreamTime: player.surface.format.time(ofFrame: Int64(i))) { worst = max(worst, t - due) }
        }
        return RealtimeResult(frames: frames, streamSeconds: stream, wallSeconds: wall, cpuSeconds: cpu,
                              cpuPerVideoSecond: cpu / max(stream, 0.001), droppedFrames: player.droppedFrames,
                              worstLateMs: worst * 1000)
    }

    /// User + system CPU seconds of this process so far.
    static func cpuSeconds() -> Double {
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        return Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6 + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) / 1e6
    }
}
