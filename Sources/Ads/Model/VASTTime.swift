// VAST and VMAP time grammars: Duration, skipoffset, progress offset, VMAP timeOffset.
import Foundation
import Timing

/// A point in an ad given either as a time from its start or as a percentage of its duration.
public enum VASTOffset: Sendable, Hashable, CustomStringConvertible {
    /// A time from the start of the creative.
    case time(MediaTime)
    /// A percentage (0–100) of the creative's duration, exact.
    case percent(Rational)

    /// Parses `HH:MM:SS(.mmm)`, bare seconds (`3`, `10.5`) or `n%`; nil for anything else.
    public init?(parsing text: String) {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if t.hasSuffix("%") {
            guard let p = VASTTime.percentage(String(t.dropLast())) else { return nil }
            self = .percent(p)
        } else if let time = VASTTime.parseClock(t) {
            self = .time(time)
        } else {
            return nil
        }
    }

    /// The offset as a time, given the creative's duration (nil when a percentage meets an unknown duration).
    public func resolved(duration: MediaTime?) -> MediaTime? {
        switch self {
        case .time(let t): return t
        case .percent(let p):
            guard let d = duration else { return nil }
            return VASTTime.apply(p, to: d)
        }
    }

    /// `00:00:05.000` or `30%`.
    public var description: String {
        switch self {
        case .time(let t): return t.clockString
        case .percent(let p): return VASTTime.percentString(p) + "%"
        }
    }
}

/// Parsers and formatters for the time grammars used by VAST and VMAP.
public enum VASTTime {
    /// Parses `HH:MM:SS`, `HH:MM:SS.f…` (1–3+ fraction digits), `MM:SS` and bare seconds; nil when invalid.
    ///
    /// Minutes and seconds must be below 60; empty values, `undefined` and negative values are nil.
    public static func parseClock(_ text: String) -> MediaTime? {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !t.isEmpty, t.count <= 32, !t.hasPrefix("-"), !t.hasPrefix("+") else { return nil }
        guard t.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ":" || $0 == ".") }) else { return nil }
        let fields = t.split(separator: ":", omittingEmptySubsequences: false)
        if fields.count == 1 { return MediaTime(decimal: t).flatMap { $0 >= .zero ? $0 : nil } }
        guard fields.count <= 3 else { return nil }
        // Every field but the last must be whole; the last may have a fraction.
        for f in fields.dropLast() where f.isEmpty || f.contains(".") { return nil }
        guard let last = fields.last, !last.isEmpty, !last.hasPrefix("."), !last.hasSuffix(".") else { return nil }
        if let dot = last.firstIndex(of: "."), last[last.index(after: dot)...].count > 3 { return nil }
        if fields.count == 3, let minutes = Int(fields[1]), minutes >= 60 { return nil }
        return MediaTime(clock: t)
    }

    /// Parses a percentage number (`30`, `12.5`) into an exact rational within 0…100.
    public static func percentage(_ text: String) -> Rational? {
        let t = text.trimmingCharacters(in: .whitespaces)
        guard !t.isEmpty, t.count <= 16, let m = MediaTime(decimal: t), m >= .zero, m <= MediaTime(seconds: 100) else { return nil }
        return Rational(m.value, m.timescale)
    }

    /// `p` percent of `duration`, exact.
    public static func apply(_ p: Rational, to duration: MediaTime) -> MediaTime {
        let scaled = duration * p.numerator
        let denominator = Int128(scaled.timescale) * Int128(p.denominator) * 100
        if denominator <= Int128(Int64.max) {
            return MediaTime(value: scaled.value, timescale: Int64(denominator)).reduced
        }
        return MediaTime(seconds: duration.seconds * p.doubleValue / 100, timescale: 1000)
    }

    /// `30` or `12.5` for a percentage.
    public static func percentString(_ p: Rational) -> String {
        if p.denominator == 1 { return String(p.numerator) }
        let d = p.doubleValue
        return String(format: "%g", d)
    }
}
