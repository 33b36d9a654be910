/// An exact point or span of media time: `value / timescale` seconds.
///
/// Every timestamp, duration and cue in Interlude is a `MediaTime`; `Double` seconds appear only
/// for display and JSON (`seconds`). Arithmetic is exact (128-bit intermediates, results reduced);
/// conversion to another timescale rounds explicitly (`rescaled(to:rounding:)`).
public struct MediaTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Numerator: a count of `1/timescale` second ticks.
    public let value: Int64
    /// Denominator: ticks per second, always positive.
    public let timescale: Int64

    /// Makes `value / timescale` seconds; `timescale` must be positive.
    public init(value: Int64, timescale: Int64) {
        precondition(timescale > 0, "MediaTime timescale must be positive")
        self.value = value
        self.timescale = timescale
    }

    /// Zero seconds.
    public static let zero = MediaTime(value: 0, timescale: 1)

    /// A whole number of seconds.
    public init(seconds: Int64) { self.init(value: seconds, timescale: 1) }

    /// The nearest time on a `timescale` grid to `seconds` (for user input already given as a Double).
    public init(seconds: Double, timescale: Int64) {
        self.init(value: Int64((seconds * Double(timescale)).rounded()), timescale: timescale)
    }

    /// Seconds as a `Double`: for display and JSON only.
    public var seconds: Double { Double(value) / Double(timescale) }

    /// The same time with numerator and denominator divided by their greatest common divisor.
    public var reduced: MediaTime {
        let g = gcd(Swift.abs(value), timescale)
        return g > 1 ? MediaTime(value: value / g, timescale: timescale / g) : self
    }

    /// This time on another timescale, rounded as asked.
    package func rescaled(to newScale: Int64, rounding: Rounding = .nearest) -> MediaTime {
        MediaTime(value: MediaTime.divide(Int128(value) * Int128(newScale), by: Int128(timescale), rounding),
                  timescale: newScale)
    }

    /// This time in MPEG-TS ticks (90 kHz), to the nearest tick: PTS, PCR base, SCTE-35 times.
    package var mpegTicks: Int64 { rescaled(to: 90_000, rounding: .nearest).value }

    /// The number of whole `unit`s in this time, rounded as asked (e.g. frames of a frame duration).
    package func count(of unit: MediaTime, rounding: Rounding = .down) -> Int64 {
        precondition(unit.value > 0, "unit must be positive")
        return MediaTime.divide(Int128(value) * Int128(unit.timescale),
                                by: Int128(timescale) * Int128(unit.value), rounding)
    }

    /// This time multiplied by an integer.
    public static func * (lhs: MediaTime, rhs: Int64) -> MediaTime {
        MediaTime.make(Int128(lhs.value) * Int128(rhs), Int128(lhs.timescale))
    }

    /// The sum of two times, exact.
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        if lhs.timescale == rhs.timescale { return MediaTime(value: lhs.value + rhs.value, timescale: lhs.timescale) }
        return make(Int128(lhs.value) * Int128(rhs.timescale) + Int128(rhs.value) * Int128(lhs.timescale),
                    Int128(lhs.timescale) * Int128(rhs.timescale))
    }

    /// The difference of two times, exact.
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime { lhs + (-rhs) }

    /// The negated time.
    public static prefix func - (t: MediaTime) -> MediaTime { MediaTime(value: -t.value, timescale: t.timescale) }

    /// Adds in place.
    public static func += (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs + rhs }
    /// Subtracts in place.
    public static func -= (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs - rhs }

    /// Whether `lhs` is earlier, compared exactly across timescales (no rounding).
    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        Int128(lhs.value) * Int128(rhs.timescale) < Int128(rhs.value) * Int128(lhs.timescale)
    }

    /// Whether both are the same instant, whatever their timescales (1/2 == 15/30).
    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool {
        Int128(lhs.value) * Int128(rhs.timescale) == Int128(rhs.value) * Int128(lhs.timescale)
    }

    /// Hashes the reduced fraction, so equal times hash alike.
    public func hash(into hasher: inout Hasher) {
        let r = reduced
        hasher.combine(r.value)
        hasher.combine(r.timescale)
    }

    /// The absolute value.
    public var magnitude: MediaTime { value < 0 ? -self : self }

    /// `value/timescale` followed by the seconds, e.g. `41/2 (20.5s)`.
    public var description: String { "\(value)/\(timescale) (\(seconds)s)" }

    /// How a conversion rounds.
    package enum Rounding: Sendable {
        /// Towards negative infinity.
        case down
        /// Towards positive infinity.
        case up
        /// To the nearest; halves away from zero.
        case nearest
    }

    static func divide(_ n: Int128, by d: Int128, _ rounding: Rounding) -> Int64 {
        precondition(d > 0)
        var q = n / d
        let r = n % d
        switch rounding {
        case .down: if r < 0 { q -= 1 }
        case .up: if r > 0 { q += 1 }
        case .nearest:
            if r * 2 >= d { q += 1 } else if r * 2 < -d || (r * 2 == -d) { q -= 1 }
        }
        return Int64(q)
    }

    static func make(_ value: Int128, _ scale: Int128) -> MediaTime {
        var v = value, s = scale
        let g = gcd128(v < 0 ? -v : v, s)
        if g > 1 { v /= g; s /= g }
        // Keep within 64 bits, losing precision only for absurd timescales.
        while s > Int128(Int64.max) || v > Int128(Int64.max) || v < Int128(Int64.min) {
            v /= 2; s /= 2
        }
        return MediaTime(value: Int64(v), timescale: Int64(Swift.max(s, 1)))
    }
}

@inline(__always) func gcd(_ a: Int64, _ b: Int64) -> Int64 {
    var a = a, b = b
    while b != 0 { (a, b) = (b, a % b) }
    return a
}

@inline(__always) func gcd128(_ a: Int128, _ b: Int128) -> Int128 {
    var a = a, b = b
    while b != 0 { (a, b) = (b, a % b) }
    return a
}

extension MediaTime {
    /// The later of two times.
    public static func max(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a < b ? b : a }
    /// The earlier of two times.
    public static func min(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a < b ? a : b }
}
