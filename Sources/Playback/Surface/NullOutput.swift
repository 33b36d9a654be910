import Foundation
import Media
import Timing

/// An output that keeps nothing but counts, for tests and for measuring the frame loop: frames,
/// samples, and the wall-clock time at which each frame was presented (real-time checks).
public final class NullOutput: SurfaceOutput, @unchecked Sendable {
    // @unchecked Sendable: written by the frame loop, read under `lock`.
    private let lock = NSLock()
    private var frames: Int64 = 0
    private var samples: Int64 = 0
    private var times: [Double] = []
    private var done = false
    /// Whether it counts as a live view (a late frame may then be left out of it).
    public let isLive: Bool

    /// A null output; `live` makes it a live view.
    public init(live: Bool = false) { isLive = live }

    public func writeVideo(_ frame: Frame, index: Int64, keyframe: Bool) throws {
        lock.lock(); defer { lock.unlock() }
        frames += 1
        times.append(monotonicSeconds())
    }

    public func writeAudio(_ channels: [[Float]], count: Int) throws {
        lock.lock(); defer { lock.unlock() }
        samples += Int64(count)
    }

    public func finish() throws { lock.lock(); done = true; lock.unlock() }

    /// Frames received.
    public var frameCount: Int64 { lock.lock(); defer { lock.unlock() }; return frames }
    /// Audio samples per channel received.
    public var sampleCount: Int64 { lock.lock(); defer { lock.unlock() }; return samples }
    /// Monotonic seconds (`monotonicSeconds()`) at which each frame arrived, in order.
    public var presentationTimes: [Double] { lock.lock(); defer { lock.unlock() }; return times }
    /// Whether `finish()` was called.
    public var isFinished: Bool { lock.lock(); defer { lock.unlock() }; return done }
}
