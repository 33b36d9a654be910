import Testing
import Timing

/// The civil calendar both date writers use (HLS program dates, VAST's `[TIMESTAMP]`): days
/// since 1970-01-01 against Python's `datetime.date` for leap days, centuries and both sides of
/// the epoch, and every day of 1899-2101 there and back.
@Suite struct CivilDateTests {
    @Test func knownDaysBothWays() {
        let known: [(Int64, Int64, Int64, Int64)] = [(1970, 1, 1, 0), (1969, 12, 31, -1), (2000, 2, 29, 11_016),
                                                      (1600, 3, 1, -135_080), (2026, 12, 3, 20_790), (9999, 12, 31, 2_932_896)]
        for (y, m, d, days) in known {
            #expect(CivilDate.days(year: y, month: m, day: d) == days, "\(y)-\(m)-\(d)")
            let back = CivilDate.date(days: days)
            #expect(back.year == y && back.month == m && back.day == d, "day \(days): \(back)")
        }
    }

    @Test func everyDayRoundTrips() {
        let first = CivilDate.days(year: 1899, month: 1, day: 1), last = CivilDate.days(year: 2101, month: 12, day: 31)
        for days in first...last {
            let c = CivilDate.date(days: days)
            #expect(CivilDate.days(year: c.year, month: c.month, day: c.day) == days)
        }
    }
}
