// Time grammars: Duration, skipoffset, progress offsets (cases from vast-client-js and rs/vast suites).
import Ads
import Testing
import Timing

@Suite struct VASTTimeTests {
    @Test(arguments: [
        ("00:00:16", MediaTime(seconds: 16)), ("00:01:30.123", MediaTime(value: 90123, timescale: 1000)),
        (" 00:00:02 ", MediaTime(seconds: 2)), ("00:00:10.6", MediaTime(value: 106, timescale: 10)),
        ("30", MediaTime(seconds: 30)), ("01:00:00", MediaTime(seconds: 3600)), ("00:00", MediaTime.zero),
        ("00:00:01.001", MediaTime(value: 1001, timescale: 1000)),
    ])
    func validClockTimes(_ text: String, _ expected: MediaTime) {
        #expect(VASTTime.parseClock(text) == expected)
    }

    @Test(arguments: ["undefined", "", "-1", "00:00:60", "00:60:00", "00:00:00.-1", "00:00:00.1000", "00h01m", "test",
                      "00:test:01", "00:00:01.test", "00:00:00:00", "1e3", ":", "00::01"])
    func junkClockTimes(_ text: String) {
        #expect(VASTTime.parseClock(text) == nil)
    }

    @Test func offsets() {
        #expect(VASTOffset(parsing: "30%") == .percent(Rational(30, 1)))
        #expect(VASTOffset(parsing: "12.5%")?.resolved(duration: MediaTime(seconds: 16)) == MediaTime(seconds: 2))
        #expect(VASTOffset(parsing: "30%")?.resolved(duration: MediaTime(seconds: 23)) == MediaTime(value: 69, timescale: 10))
        #expect(VASTOffset(parsing: "30%")?.resolved(duration: nil) == nil)
        #expect(VASTOffset(parsing: "00:00:05") == .time(MediaTime(seconds: 5)))
        #expect(VASTOffset(parsing: "3") == .time(MediaTime(seconds: 3)))
        #expect(VASTOffset(parsing: "150%") == nil && VASTOffset(parsing: "x%") == nil && VASTOffset(parsing: "soon") == nil)
    }

    @Test func skipOffsetPercentResolvesAgainstDuration() async throws {
        let xml = inlineVAST(duration: "00:00:20").replacingOccurrences(of: "<Linear>", with: #"<Linear skipoffset="25%">"#)
        let s = try await loadResponse(xml)
        #expect(s.allAds.first?.skipOffset == MediaTime(seconds: 5))
        let bad = try await loadResponse(inlineVAST().replacingOccurrences(of: "<Linear>", with: #"<Linear skipoffset="later">"#))
        #expect(bad.allAds.first?.skipOffset == nil && bad.warnings.contains { $0.message.contains("skipoffset") })
        let undefined = try await loadResponse(inlineVAST(duration: "undefined").replacingOccurrences(of: "<Linear>", with: #"<Linear skipoffset="50%">"#))
        #expect(undefined.allAds.first?.duration == nil && undefined.allAds.first?.skipOffset == nil)
        #expect(undefined.errors.isEmpty && undefined.warnings.count == 2)
    }
}
