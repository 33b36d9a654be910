import Testing
@testable import Timing

@Suite struct MediaTimeTests {
    @Test func arithmeticIsExactAcrossTimescales() {
        let a = MediaTime(value: 1001, timescale: 30000)   // one NTSC frame
        let sum = (0..<30000).reduce(MediaTime.zero) { acc, _ in acc + a }
        #expect(sum == MediaTime(seconds: 1001))
        #expect(MediaTime(value: 1, timescale: 3) + MediaTime(value: 1, timescale: 6) == MediaTime(value: 1, timescale: 2))
        #expect(MediaTime(value: 3, timescale: 2) - MediaTime(seconds: 2) == MediaTime(value: -1, timescale: 2))
    }

    @Test func comparisonAndHashingIgnoreRepresentation() {
        #expect(MediaTime(value: 2, timescale: 4) == MediaTime(value: 1, timescale: 2))
        #expect(Set([MediaTime(value: 2, timescale: 4), MediaTime(value: 1, timescale: 2)]).count == 1)
        #expect(MediaTime(value: 1, timescale: 3) < MediaTime(value: 334, timescale: 1000))
    }

    @Test func rescalingRoundsAsAsked() {
        let t = MediaTime(value: 1, timescale: 3)
        #expect(t.rescaled(to: 1000, rounding: .down).value == 333)
        #expect(t.rescaled(to: 1000, rounding: .up).value == 334)
        #expect(t.rescaled(to: 1000, rounding: .nearest).value == 333)
        #expect(MediaTime(value: -1, timescale: 3).rescaled(to: 1000, rounding: .down).value == -334)
        #expect(MediaTime(value: 1, timescale: 2).rescaled(to: 1, rounding: .nearest).value == 1)
    }

    @Test func mpegTicksAreNinetyKilohertzToTheNearestTick() {
        #expect(MediaTime(seconds: 2).mpegTicks == 180_000)
        #expect(MediaTime(value: 1001, timescale: 30_000).mpegTicks == 3003)   // one 29.97 fps frame
        #expect(MediaTime(value: 1, timescale: 7).mpegTicks == 12_857)        // 12857.14…
        #expect(MediaTime(value: 1, timescale: 180_001).mpegTicks == 0)      // 0.49998… of a tick
        #expect(MediaTime(value: -1, timescale: 3).mpegTicks == -30_000)
    }

    @Test func countsFrames() {
        let frame = Rational(30000, 1001).period
        #expect(MediaTime(seconds: 10).count(of: frame, rounding: .down) == 299)
        #expect(MediaTime(seconds: 10).count(of: frame, rounding: .up) == 300)
    }

    @Test(arguments: [
        ("20.5", MediaTime(value: 41, timescale: 2)),
        ("3", MediaTime(seconds: 3)),
        ("0.001", MediaTime(value: 1, timescale: 1000)),
        ("00:01:02.250", MediaTime(value: 249, timescale: 4)),
        ("1:02", MediaTime(seconds: 62)),
    ])
    func parsesClockTimes(text: String, expected: MediaTime) {
        #expect(MediaTime(clock: text) == expected)
    }

    @Test(arguments: ["", "abc", "1:2:3:4", "1e3", "-", ".", "00:61:00", "1:60", "12:xx:00"])
    func rejectsMalformedTimes(text: String) {
        #expect(MediaTime(clock: text) == nil)
    }

    @Test func formatsClockStrings() {
        #expect(MediaTime(value: 249, timescale: 4).clockString == "00:01:02.250")
        #expect(MediaTime(seconds: 3725).clockString == "01:02:05.000")
    }

    @Test func standardisesOddFrameRates() {
        #expect(Rational(23040000, 767849).standardFrameRate == Rational(30, 1))
        #expect(Rational(51600, 1841).standardFrameRate == Rational(2803, 100))
        #expect(Rational(30000, 1001).standardFrameRate == Rational(30000, 1001))
        #expect(Rational(15, 1).standardFrameRate == Rational(15, 1))
        #expect(Rational(parsing: "29.97") == Rational(2997, 100))
        #expect(Rational(parsing: "30000/1001") == Rational(30000, 1001))
        #expect(Rational(parsing: "0") == nil)
    }
}
