import Timing

/// An ISO 8601 date and time as EXT-X-PROGRAM-DATE-TIME (§4.3.2.6) and EXT-X-DATERANGE's dates
/// (§4.3.2.7) carry it: `YYYY-MM-DDThh:mm:ss[.fff…][Z|±hh:mm|±hhmm|±hh]`, read exactly.
struct RFC8216Date: Sendable, Equatable {
    /// Seconds since 1970-01-01T00:00:00Z; a time without a zone is read as UTC.
    let instant: MediaTime
    /// Whether the text names its time zone (§4.3.2.6: it SHOULD).
    let hasTimeZone: Bool

    /// Reads `text`; nil when it is not an ISO 8601 calendar date with a time of day to the second.
    static func parse(_ text: String) -> RFC8216Date? {
        let c = Array(text)
        func digits(_ at: Int, _ count: Int) -> Int? {
            guard at + count <= c.count else { return nil }
            var n = 0
            for ch in c[at..<(at + count)] {
                guard let d = ch.wholeNumberValue, ch.isASCII else { return nil }
                n = n * 10 + d
            }
            return n
        }
        guard c.count >= 19, let year = digits(0, 4), c[4] == "-", let month = digits(5, 2), c[7] == "-",
              let day = digits(8, 2), c[10] == "T", let hour = digits(11, 2), c[13] == ":",
              let minute = digits(14, 2), c[16] == ":", let second = digits(17, 2) else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour <= 23, minute <= 59, second <= 60 else { return nil }
        var i = 19
        var fraction = MediaTime.zero
        if i < c.count, c[i] == "." {
            i += 1
            var value: Int64 = 0, scale: Int64 = 1, count = 0
            while i < c.count, let d = c[i].wholeNumberValue, c[i].isASCII {
                if count < 9 { value = value * 10 + Int64(d); scale *= 10 }
                count += 1; i += 1
            }
            guard count > 0 else { return nil }
            fraction = MediaTime(value: value, timescale: scale)
        }
        var offsetSeconds = 0, zoned = false
        if i < c.count {
            zoned = true
            if c[i] == "Z" {
                i += 1
            } else if c[i] == "+" || c[i] == "-" {
                let sign = c[i] == "-" ? -1 : 1
                guard let h = digits(i + 1, 2), h <= 23 else { return nil }
                i += 3
                var m = 0
                if i < c.count {
                    if c[i] == ":" { i += 1 }
                    guard let mm = digits(i, 2), mm <= 59 else { return nil }
                    m = mm; i += 2
                }
                offsetSeconds = sign * (h * 3600 + m * 60)
            } else {
                return nil
            }
            guard i == c.count else { return nil }
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        let whole = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)
        return RFC8216Date(instant: MediaTime(seconds: whole) + fraction, hasTimeZone: zoned)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
