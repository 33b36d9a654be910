import Foundation
import Media
import Threads
import Timing

/// An output that keeps nothing but counts, for tests and for measuring the frame loop: frames,
/// samples, and the wall-clock time at which each of the last `keptTimes` frames was presented
/// (real-time checks). Its memory is bounded however long it runs.
public final class NullOutput: SurfaceOutput, Sendable {
    /// What it counted: written by the frame loop, read by anyone.
    private struct Counts {
        var frames: Int64 = 0
        var samples: Int64 = 0
        var times: [Double] = []
        var done = false
    }
    private let counts = Locked(Counts())
    /// Whether it counts as a live view (a late frame may then be left out of it).
    public let isLive: Bool
    /// How many presentation times it keeps at least (the latest ones).
    package let keptTimes: Int

    /// A null output; `live` makes it a live view. It keeps the presentation times of the last
    /// `keptTimes` frames (default 108,000: an hour at 30 fps, under 2 MB).
    public init(live: Bool = false, keptTimes: Int = 108_000) {
        isLive = live
        self.keptTimes = max(1, keptTimes)
    }

    /// Counts the frame and keeps the monotonic time it arrived; the picture is dropped.
    public func writeVideo(_ frame: Frame, index: Int64, keyframe: Bool) throws {
        counts.withLock { c in
            c.frames += 1
            // Dropping the older half at twice the count keeps the cost per frame constant.
            if c.times.count >= 2 * keptTimes { c.times.removeFirst(c.times.count - keptTimes) }
            c.times.append(monotonicSeconds())
        }
    }

    /// Counts the samples; they are dropped.
    public func writeAudio(_ channels: [[Float]], count: Int) throws {
        counts.withLock { $0.samples += Int64(count) }
    }

    /// Marks the output finished (`isFinished`).
    public func finish() throws { counts.withLock { $0.done = true } }

    /// Frames received.
    public var frameCount: Int64 { counts.withLock { $0.frames } }
    /// Audio samples per channel received.
    public var sampleCount: Int64 { counts.withLock { $0.samples } }
    /// Monotonic seconds (`monotonicSeconds()`) at which each frame arrived, in order: every frame,
    /// or (after more than `keptTimes`) at least the last `keptTimes`, ending with the last frame.
    package var presentationTimes: [Double] { counts.withLock { $0.times } }
    /// Whether `finish()` was called.
    package var isFinished: Bool { counts.withLock { $0.done } }
}
