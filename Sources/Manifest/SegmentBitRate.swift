import Timing

/// The bit rates a variant advertises, from the segments it lists (RFC 8216 §4.3.4.2):
/// `BANDWIDTH` is the peak segment bit rate, the largest bit rate of any contiguous set of
/// segments whose total duration is between 0.5 and 1.5 times the target duration;
/// `AVERAGE-BANDWIDTH` is the total size over the total duration. Pure. The service's variants
/// and the stitch's CMAF package (its HLS variant and DASH representations) use it.
package enum SegmentBitRate {
    /// `(peak, average)` bits/s of segments of `(bytes, duration)` under `targetDuration`
    /// seconds, rounded up. A playlist too short for any set of half a target counts whole.
    package static func of(_ segments: [(bytes: Int, duration: MediaTime)], targetDuration: Int) -> (peak: Int, average: Int) {
        let total = segments.reduce(MediaTime.zero) { $0 + $1.duration }
        let bytes = segments.reduce(0) { $0 + $1.bytes }
        func rate(_ b: Int, _ d: MediaTime) -> Int {
            guard d > .zero else { return 0 }
            return Int((Double(b) * 8 / d.seconds).rounded(.up))
        }
        let average = rate(bytes, total)
        let low = MediaTime(value: Int64(targetDuration), timescale: 2), high = MediaTime(value: Int64(targetDuration) * 3, timescale: 2)
        var peak = 0
        for i in segments.indices {
            var d = MediaTime.zero, b = 0
            for j in i..<segments.count {
                d += segments[j].duration; b += segments[j].bytes
                if d > high { break }
                if d >= low { peak = max(peak, rate(b, d)) }
            }
        }
        if peak == 0 { peak = average }
        return (max(peak, average), average)
    }
}
