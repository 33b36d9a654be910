/// Median, range and percentiles of a set of measurements.
struct Summary: Codable, Sendable {
    /// Number of values.
    var n: Int
    var median: Double
    var min: Double
    var max: Double
    /// Every value, in the order measured.
    var values: [Double]

    init(_ values: [Double]) {
        self.values = values
        n = values.count
        let s = values.sorted()
        median = Summary.percentile(s, 50)
        min = s.first ?? .nan
        max = s.last ?? .nan
    }

    /// Nearest-rank percentile `p` (0–100) of sorted values; the median of an even count is the
    /// mean of the two middle values.
    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        if p == 50 {
            let m = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2
        }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[Swift.max(0, Swift.min(sorted.count - 1, rank - 1))]
    }

    /// `median (min–max)` with `digits` decimals.
    func text(_ digits: Int = 2, scale: Double = 1) -> String {
        guard n > 0 else { return "–" }
        if n == 1 { return fmt(median * scale, digits) }
        return "\(fmt(median * scale, digits)) (\(fmt(min * scale, digits))–\(fmt(max * scale, digits)))"
    }
}

/// p50 / p99 / max of a distribution with many samples (frame gaps).
struct Distribution: Codable, Sendable {
    var n: Int
    var p50: Double
    var p99: Double
    var max: Double

    init(_ values: [Double]) {
        let s = values.sorted()
        n = s.count
        p50 = Summary.percentile(s, 50)
        p99 = Summary.percentile(s, 99)
        max = s.last ?? .nan
    }
}

/// A number with a fixed count of decimals.
func fmt(_ x: Double, _ digits: Int = 2) -> String {
    guard x.isFinite else { return "–" }
    return String(format: "%.\(digits)f", x)
}
