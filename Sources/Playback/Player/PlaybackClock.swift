import Foundation
import Timing

/// How a player's clock runs.
public enum PlaybackClock: String, Sendable, CaseIterable {
    /// Frames are presented when their stream time comes, paced to a master clock as ffplay does
    /// (the audio clock of an output that plays audio, else the system clock). A frame that is
    /// late by more than one frame may be left out of live views only; it is counted.
    case realTime = "realtime"
    /// Every frame is presented as soon as it is ready, deterministically: for export and tests.
    case asFastAsPossible = "fast"
}

/// A source of "how much of the stream has been heard": an output that plays audio (a window)
/// reports the seconds of audio played so far, which then masters the video clock.
package protocol AudioMasterClock: AnyObject {
    /// Seconds of stream audio played so far, or nil when it cannot tell.
    var audioClock: Double? { get }
}

/// Real-time pacing: maps stream time to the monotonic wall clock, re-anchored after every wait
/// (pause, ad loading, a seek), and tells how late a frame is.
struct RealTimePacer {
    private var anchorWall: Double?
    private var anchorStream: MediaTime = .zero
    private var anchorAudio: Double?
    /// Playback speed (1 = normal).
    var rate: Double = 1

    /// Forgets the anchor: the next frame presents at once and anchors the clock.
    mutating func reanchor() { anchorWall = nil }

    /// Waits until stream time `t` is due and returns how late it was (seconds, ≥ 0). With a
    /// master audio clock, waits until that much audio has played instead.
    mutating func wait(until t: MediaTime, master: AudioMasterClock?) -> Double {
        let now = monotonicSeconds()
        guard let wall = anchorWall else {
            anchorWall = now
            anchorStream = t
            anchorAudio = master?.audioClock
            return 0
        }
        let due = wall + (t - anchorStream).seconds / max(rate, 0.01)
        if let audio0 = anchorAudio, let master, rate == 1 {
            // ffplay's audio-master sync: video waits for the audio it belongs to.
            // Less a microsecond: when all queued audio has played the clock equals the target in
            // exact arithmetic, and a rounding error must not leave it waiting out the deadline.
            let target = audio0 + (t - anchorStream).seconds - 1e-6
            let deadline = now + 0.5
            while let heard = master.audioClock, heard < target, monotonicSeconds() < deadline {
                usleep(UInt32(max(1000, min(10_000, (target - heard) * 1e6))))
            }
            let heard = master.audioClock ?? target
            return max(0, heard - target)
        }
        if due > now { usleep(UInt32(min(1.0, due - now) * 1e6)) }
        return max(0, now - due)
    }

    /// Wall-clock seconds at which stream time `t` is (or was) due, when anchored.
    func wallTime(of t: MediaTime) -> Double? {
        anchorWall.map { $0 + (t - anchorStream).seconds / max(rate, 0.01) }
    }
}
