import Timing

/// Timestamp-based frame selection onto a constant output frame rate.
///
/// Output frame `k` of a segment that starts at source time `p0` is due at `p0 + k·P` (P the
/// output frame duration) and shows the latest source frame whose timestamp is before
/// `p0 + k·P + P/2`. A segment that ends at `end` holds the frames with `p0 + k·P + P/2 ≤ end`.
/// At equal rates this is the identity: every source frame exactly once; the segment's first
/// frame is always shown, whatever the source rate.
package enum FrameSelection {
    /// Whether output frame `k` is due before a source frame (or segment end) at `boundary`, i.e.
    /// whether the frame currently held must be emitted again as output frame `k`.
    public static func isDue(outputIndex k: Int64, segmentStart p0: MediaTime, period: MediaTime,
                             before boundary: MediaTime) -> Bool {
        // p0 + k·P + P/2 ≤ boundary  ⇔  2·p0 + (2k+1)·P ≤ 2·boundary
        p0 * 2 + period * (2 * k + 1) <= boundary * 2
    }

    /// How many output frames a segment from `p0` to `end` holds.
    public static func frameCount(from p0: MediaTime, to end: MediaTime, period: MediaTime) -> Int64 {
        // the count of k ≥ 0 with (2k+1)·P ≤ 2·(end − p0)
        let span = (end - p0) * 2
        if span < period { return 0 }
        return (span - period).count(of: period * 2, rounding: .down) + 1
    }
}
