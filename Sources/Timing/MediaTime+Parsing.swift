extension MediaTime {
    /// Parses an exact decimal number of seconds such as `20.5` or `3` (no exponent); nil otherwise.
    public init?(decimal text: String) {
        var s = Substring(text)
        var negative = false
        if s.first == "-" { negative = true; s = s.dropFirst() } else if s.first == "+" { s = s.dropFirst() }
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard !s.isEmpty, parts.count <= 2 else { return nil }
        let whole = parts[0], frac = parts.count == 2 ? parts[1] : ""
        guard !(whole.isEmpty && frac.isEmpty), frac.count <= 12,
              whole.allSatisfy({ $0.isASCII && $0.isNumber }), frac.allSatisfy({ $0.isASCII && $0.isNumber }),
              whole.count <= 12 else { return nil }
        var scale: Int64 = 1
        for _ in 0..<frac.count { scale *= 10 }
        let w = Int64(whole.isEmpty ? "0" : String(whole)) ?? 0
        let f = Int64(frac.isEmpty ? "0" : String(frac)) ?? 0
        let v = w * scale + f
        self = MediaTime(value: negative ? -v : v, timescale: scale).reduced
    }

    /// Parses a clock time `HH:MM:SS(.mmm)` or `MM:SS(.mmm)`, or decimal seconds; nil otherwise.
    public init?(clock text: String) {
        let fields = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count) else { return nil }
        guard let secs = MediaTime(decimal: String(fields.last!)), secs >= .zero else { return nil }
        var total = secs
        var multiplier: Int64 = 60
        for (i, field) in fields.dropLast().reversed().enumerated() {
            guard !field.isEmpty, field.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int64(field) else { return nil }
            if i == 0 && fields.count == 3 && n >= 60 { return nil }   // minutes of HH:MM:SS
            total += MediaTime(seconds: n * multiplier)
            multiplier *= 60
        }
        if fields.count > 1 && secs >= MediaTime(seconds: 60) { return nil }
        self = total.reduced
    }

    /// `HH:MM:SS.mmm`, for display.
    public var clockString: String {
        let ms = rescaled(to: 1000).value
        let sign = ms < 0 ? "-" : ""
        let a = Swift.abs(ms)
        let h = a / 3_600_000, m = (a / 60_000) % 60, s = (a / 1000) % 60, f = a % 1000
        func pad(_ n: Int64, _ w: Int) -> String { let t = String(n); return String(repeating: "0", count: Swift.max(0, w - t.count)) + t }
        return "\(sign)\(pad(h, 2)):\(pad(m, 2)):\(pad(s, 2)).\(pad(f, 3))"
    }
}

import Foundation

extension MediaTime {
    /// The exact decimal form of a non-negative time (`10.00005`), when one exists: its reduced
    /// timescale has no prime factor but 2 and 5. Nil otherwise (e.g. 1/3 s).
    package var exactDecimalString: String? {
        let r = reduced
        guard r.value >= 0, r.timescale > 0 else { return nil }
        var d = r.timescale, twos = 0, fives = 0
        while d % 2 == 0 { d /= 2; twos += 1 }
        while d % 5 == 0 { d /= 5; fives += 1 }
        guard d == 1 else { return nil }
        let digits = Swift.max(twos, fives)
        guard digits <= 18 else { return nil }
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        let (v, overflow) = r.value.multipliedReportingOverflow(by: scale / r.timescale)
        guard !overflow else { return nil }
        let whole = v / scale, frac = v % scale
        if digits == 0 { return String(whole) }
        let f = String(frac)
        return "\(whole)." + String(repeating: "0", count: digits - f.count) + f
    }
}
