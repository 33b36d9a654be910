/// Dates of the proleptic Gregorian calendar as days since 1970-01-01 and back (Howard
/// Hinnant's algorithms): exact for any day, no time zone, no Foundation calendar. The HLS
/// manifest's `PROGRAM-DATE-TIME` and VAST's `[TIMESTAMP]` macro both write dates with it.
package enum CivilDate {
    /// Days since 1970-01-01 of `year`-`month`-`day` (month 1–12).
    package static func days(year y0: Int64, month m: Int64, day d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The year, month (1–12) and day of day `days` since 1970-01-01.
    package static func date(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// `milliseconds` since 1970-01-01T00:00:00Z as ISO 8601 with milliseconds in UTF-8: in UTC
    /// (`2026-12-03T16:53:31.250Z`), or at `offsetSeconds` from it with that offset
    /// (`2016-01-17T08:15:07.127-05:00`). By arithmetic alone: the one writer of such dates (HLS
    /// `PROGRAM-DATE-TIME`, VAST's `[TIMESTAMP]`, the service's log lines, one per request).
    package static func iso8601(milliseconds utc: Int64, offsetSeconds: Int? = nil) -> [UInt8] {
        let ms = utc + Int64(offsetSeconds ?? 0) * 1000
        let days = ms >= 0 ? ms / 86_400_000 : (ms - 86_399_999) / 86_400_000
        let inDay = ms - days * 86_400_000
        let (y, m, d) = date(days: days)
        var out: [UInt8] = []
        out.reserveCapacity(24)
        func digits(_ v: Int64, _ n: Int) {
            var p: Int64 = 1
            for _ in 1..<n { p *= 10 }
            if v < 0 || v >= p * 10 { out += String(v).utf8; return }   // a year before 0 or past 9999 in full
            while p > 0 { out.append(UInt8(ascii: "0") + UInt8(v / p % 10)); p /= 10 }
        }
        digits(y, 4); out.append(UInt8(ascii: "-")); digits(m, 2); out.append(UInt8(ascii: "-")); digits(d, 2)
        out.append(UInt8(ascii: "T"))
        digits(inDay / 3_600_000, 2); out.append(UInt8(ascii: ":")); digits(inDay / 60_000 % 60, 2); out.append(UInt8(ascii: ":"))
        digits(inDay / 1000 % 60, 2); out.append(UInt8(ascii: ".")); digits(inDay % 1000, 3)
        guard let offsetSeconds else { out.append(UInt8(ascii: "Z")); return out }
        let off = Int64(abs(offsetSeconds))
        out.append(UInt8(ascii: offsetSeconds < 0 ? "-" : "+"))
        digits(off / 3600, 2); out.append(UInt8(ascii: ":")); digits(off / 60 % 60, 2)
        return out
    }
}
