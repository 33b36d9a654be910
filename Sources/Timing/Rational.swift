/// An exact positive ratio such as a frame rate (`30000/1001`) or a sample aspect ratio.
public struct Rational: Sendable, Hashable, CustomStringConvertible {
    /// Numerator.
    public let numerator: Int64
    /// Denominator, positive.
    public let denominator: Int64

    /// Makes `numerator/denominator`, reduced.
    public init(_ numerator: Int64, _ denominator: Int64) {
        precondition(denominator != 0, "Rational denominator must not be zero")
        let sign: Int64 = denominator < 0 ? -1 : 1
        let g = Swift.max(gcd(Swift.abs(numerator), Swift.abs(denominator)), 1)
        self.numerator = sign * numerator / g
        self.denominator = sign * denominator / g
    }

    /// The value as a `Double`, for display.
    public var doubleValue: Double { Double(numerator) / Double(denominator) }

    /// One period of a rate: `denominator/numerator` seconds (one frame at this frame rate).
    public var period: MediaTime { MediaTime(value: denominator, timescale: numerator) }

    /// `30000/1001` or `30` when the denominator is 1.
    public var description: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }

    /// Parses `30`, `29.97`, `30000/1001`; nil when not a positive rate.
    public init?(parsing text: String) {
        let t = text.trimmingCharacters(in: .whitespaces)
        if let slash = t.firstIndex(of: "/") {
            guard let n = Int64(t[..<slash]), let d = Int64(t[t.index(after: slash)...]), n > 0, d > 0 else { return nil }
            self.init(n, d)
        } else if let time = MediaTime(decimal: t), time.value > 0 {
            self.init(time.value, time.timescale)
        } else {
            return nil
        }
    }
}

import Foundation

extension Rational {
    /// A frame rate fit for a constant-rate output: the nearest common broadcast rate when within
    /// 0.5 % (variable-rate sources report averages such as `23040000/767849`), else the rate
    /// rounded to 1/100 fps when its denominator is unusual, else unchanged.
    public var standardFrameRate: Rational {
        if denominator == 1 || denominator == 1001 { return self }
        let common = [Rational(24000, 1001), Rational(24, 1), Rational(25, 1), Rational(30000, 1001), Rational(30, 1),
                      Rational(48, 1), Rational(50, 1), Rational(60000, 1001), Rational(60, 1), Rational(120, 1)]
        let v = doubleValue
        if let c = common.min(by: { abs($0.doubleValue - v) < abs($1.doubleValue - v) }), abs(c.doubleValue - v) / c.doubleValue < 0.005 {
            return c
        }
        return Rational(Int64((v * 100).rounded()), 100)
    }
}
