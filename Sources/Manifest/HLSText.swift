import Foundation
import Timing

/// The lexical forms of RFC 8216 §4.2 that the writer and the parser share: decimal
/// floating-point seconds, ISO 8601 dates, hexadecimal sequences, quoted and enumerated strings.
enum HLSText {
    /// Seconds to three decimals, rounded to the nearest millisecond (`6.006`).
    static func seconds(_ t: MediaTime) -> String {
        let ms = t.rescaled(to: 1000, rounding: .nearest).value
        let sign = ms < 0 ? "-" : ""
        let a = ms.magnitude
        let frac = String(a % 1000)
        return "\(sign)\(a / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
    }

    /// A non-negative decimal floating-point number of seconds, exact; nil for anything else
    /// (a sign, an exponent, more than 12 digits either side, over a day's worth of hours).
    static func seconds(parsing s: Substring) -> MediaTime? {
        guard !s.isEmpty, s.first != "-", s.first != "+" else { return nil }
        guard let t = MediaTime(decimal: String(s)), t >= .zero, t <= MediaTime(seconds: 366 * 86_400) else { return nil }
        return t
    }

    /// An ISO 8601 date with milliseconds in UTC (`2026-12-03T16:53:31.250Z`); the same `Date`
    /// always gives the same text.
    static func date(_ d: Date) -> String {
        String(decoding: CivilDate.iso8601(milliseconds: Int64((d.timeIntervalSince1970 * 1000).rounded())), as: UTF8.self)
    }

    /// An ISO 8601 date-time with a time zone (`Z`, `±hh:mm`, `±hhmm`, `±hh`), seconds optionally
    /// fractional; nil otherwise. RFC 8216 §4.3.2.6 asks for the time zone.
    static func date(parsing s: Substring) -> Date? {
        let b = Array(s.utf8)
        guard b.count >= 20, b.count <= 40 else { return nil }
        func num(_ i: Int, _ n: Int) -> Int64? {
            guard i + n <= b.count else { return nil }
            var v: Int64 = 0
            for k in i..<i + n { guard b[k] >= 48, b[k] <= 57 else { return nil }; v = v * 10 + Int64(b[k] - 48) }
            return v
        }
        guard let y = num(0, 4), b[4] == 45, let mo = num(5, 2), b[7] == 45, let d = num(8, 2), b[10] == 84 || b[10] == 116,
              let h = num(11, 2), b[13] == 58, let mi = num(14, 2), b[16] == 58, let sec = num(17, 2),
              (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, sec < 61 else { return nil }
        var i = 19
        var fraction = 0.0
        if i < b.count, b[i] == 46 {
            i += 1
            var scale = 0.1
            let start = i
            while i < b.count, b[i] >= 48, b[i] <= 57 { fraction += Double(b[i] - 48) * scale; scale /= 10; i += 1 }
            guard i > start, i - start <= 9 else { return nil }
        }
        var offset: Int64 = 0
        guard i < b.count else { return nil }
        if b[i] == 90 || b[i] == 122 {
            i += 1
        } else if b[i] == 43 || b[i] == 45 {
            let sign: Int64 = b[i] == 45 ? -1 : 1
            guard let oh = num(i + 1, 2), oh < 24 else { return nil }
            i += 3
            var om: Int64 = 0
            if i < b.count {
                if b[i] == 58 { i += 1 }
                guard let m = num(i, 2), m < 60 else { return nil }
                om = m; i += 2
            }
            offset = sign * (oh * 3600 + om * 60)
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = CivilDate.days(year: y, month: mo, day: d)
        let seconds = days * 86_400 + h * 3600 + mi * 60 + sec - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// `0x` and upper-case hex digits.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF")
        var s = "0x"
        s.reserveCapacity(2 + bytes.count * 2)
        for b in bytes { s.append(digits[Int(b >> 4)]); s.append(digits[Int(b & 0xF)]) }
        return s
    }

    /// The bytes of a `0x…`/`0X…` hexadecimal sequence; nil for anything else or more than `limit` bytes.
    static func hex(parsing s: Substring, limit: Int = 4096) -> [UInt8]? {
        let b = Array(s.utf8)
        guard b.count >= 3, b[0] == 48, b[1] == 120 || b[1] == 88 else { return nil }
        var digits = Array(b[2...])
        guard digits.count <= limit * 2 else { return nil }
        if digits.count % 2 == 1 { digits.insert(48, at: 0) }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: c - 48
            case 65...70: c - 55
            case 97...102: c - 87
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            guard let hi = value(digits[i]), let lo = value(digits[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    /// A quoted-string's content: `"`, CR and LF cannot be in it (§4.2) and become `'` and spaces.
    static func quotable(_ s: String) -> String {
        String(s.map { $0 == "\"" ? "'" : ($0 == "\r" || $0 == "\n" ? " " : $0) })
    }

    /// An enumerated-string: no quote, comma or whitespace (§4.2); those become `_`.
    static func enumerated(_ s: String) -> String {
        String(s.map { $0 == "\"" || $0 == "," || $0.isWhitespace ? "_" : $0 })
    }
}
