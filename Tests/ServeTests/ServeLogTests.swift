import Foundation
import Testing
@testable import Serve
import Timing

/// The service's log: request lines written as bytes say what `JSONSerialization` would, the
/// clock's UTC text is glibc's, and the buffered sink writes every line whole, in order, soon.
@Suite struct ServeLogTests {
    @Test func theUTCTextIsGmtimesForDaysAcrossCenturiesAndLeapYears() {
        // 1970-01-01, 2000-02-29 (leap by 400), 2100-03-01 (no leap by 100), today, the last second of a year
        for seconds in [0, 951_782_400 + 3_723, 4_107_542_400 + 86_399, 1_796_380_000, 1_798_761_599, 253_402_300_799] {
            var t = time_t(seconds)
            var parts = tm()
            gmtime_r(&t, &parts)
            let expected = String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                                  Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), 7)
            #expect(String(decoding: CivilDate.iso8601(milliseconds: Int64(seconds) * 1000 + 7), as: UTF8.self) == expected, "\(seconds)")
        }
    }

    @Test func aRequestLineIsTheJSONOfItsFieldsWhateverThePathHolds() throws {
        let lines = LockedLines()
        let log = ServeLog { lines.append($0) }
        let path = "/v1/x\"y\\z\n\t\r\u{08}\u{0C}€/\u{01}\u{1F}😀"
        log.request(method: "GET", path: path, status: 404, milliseconds: 1.23456)
        let line = try #require(lines.all.first)
        let j = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(j["path"] as? String == path && j["method"] as? String == "GET" && j["status"] as? Int == 404)
        #expect(j["ms"] as? Double == 1.235 && j["event"] as? String == "request")
        // the same escapes as the event lines' JSONSerialization (keys sorted, `/` escaped)
        let again = try JSONSerialization.data(withJSONObject: ["p": path], options: [.sortedKeys])
        var quoted: [UInt8] = []
        ServeLog.appendQuoted(path, to: &quoted)
        #expect(String(decoding: again, as: UTF8.self) == "{\"p\":" + String(decoding: quoted, as: UTF8.self) + "}")
    }

    @Test func aRequestLinesMillisecondsAndStatusAreWhatDescriptionWrites() {
        // the request line's integer arithmetic against `Double.description` and `String(Int)`:
        // edges, every thousandth below 3 ms, and a spread up to where description takes over
        var values: [Double] = [0, -0.0, 0.0004, 0.0005, 0.0015, 0.001, 0.01, 0.1, 1, 9.9995, 10, 1.23456, 12, 999.9999,
                                1e6, 123_456_789.123_4, 999_999_999.999, 1e9, 1e10, 1e13, 1e16, 1e300, .infinity, -1.5, .nan]
        values += (0..<3000).map { Double($0) / 1000 }
        var g = SystemRandomNumberGenerator()
        for exponent in -4...10 { values += (0..<200).map { _ in Double.random(in: 0..<1, using: &g) * pow(10, Double(exponent)) } }
        for v in values {
            var out: [UInt8] = []
            ServeLog.appendMilliseconds(v, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == "\((v * 1000).rounded() / 1000)", "\(v)")
        }
        for n in [0, 1, 9, 10, 99, 100, 200, 404, 503, 1000, 123_456, Int.max, -1, Int.min] {
            var out: [UInt8] = []
            ServeLog.appendDecimal(n, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == String(n))
        }
    }

    @Test func theBufferedSinkWritesEveryLineWholeInOrderWithinItsInterval() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("serve-log-\(UUID().uuidString)")
        let fd = open(file.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        defer { close(fd); try? FileManager.default.removeItem(at: file) }
        func written() -> String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }
        let buffer = LogLineBuffer(descriptor: fd)
        buffer.append(Array("a".utf8), flush: false)
        buffer.append(Array("b".utf8), flush: false)
        #expect(written() == "", "request lines held, not written at once")
        Thread.sleep(forTimeInterval: 0.4)
        #expect(written() == "a\nb\n", "written within the interval")
        // an event line is written at once, after the lines held before it
        buffer.append(Array("c".utf8), flush: false)
        buffer.append(Array("event".utf8), flush: true)
        #expect(written() == "a\nb\nc\nevent\n")
        // a full buffer is written at once
        buffer.append([UInt8](repeating: UInt8(ascii: "x"), count: LogLineBuffer.capacity), flush: false)
        #expect(written().count == 12 + LogLineBuffer.capacity + 1 && written().hasSuffix("x\n"))
    }
}

/// Lines a test's log closure collects.
private final class LockedLines: @unchecked Sendable {
    // @unchecked Sendable: `lines` only under `lock`.
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}
