import Ads
import Foundation
import Timing

/// One JSON object per line, to stderr (or a closure, in tests): every request and event.
public struct ServeLog: Sendable {
    /// Writes a line at once (after any lines held before it).
    private let write: @Sendable ([UInt8]) -> Void
    /// Writes a request line; a buffered sink may hold it for up to `LogLineBuffer.interval`.
    private let writeRequest: @Sendable ([UInt8]) -> Void

    /// Lines to stderr. Request lines are written in batches (at most 64 KiB or 0.1 s held, as
    /// nginx's `access_log … buffer= flush=`); every other event is written at once, after the
    /// request lines before it, so the order of lines is the order they were logged.
    public static let standardError: ServeLog = {
        let buffer = LogLineBuffer(descriptor: STDERR_FILENO)
        return ServeLog(write: { buffer.append($0, flush: true) }, writeRequest: { buffer.append($0, flush: false) })
    }()

    /// Lines to `write`, each at once.
    public init(_ write: @escaping @Sendable (String) -> Void) {
        let each: @Sendable ([UInt8]) -> Void = { write(String(decoding: $0, as: UTF8.self)) }
        self.init(write: each, writeRequest: each)
    }

    private init(write: @escaping @Sendable ([UInt8]) -> Void, writeRequest: @escaping @Sendable ([UInt8]) -> Void) {
        self.write = write; self.writeRequest = writeRequest
    }

    /// Logs `event` with `fields` (strings, numbers, booleans, arrays of them).
    public func event(_ event: String, _ fields: [String: Any] = [:]) {
        var object = fields
        object["event"] = event
        object["time"] = String(decoding: Self.utcNow(), as: UTF8.self)
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        write(Array(data))
    }

    /// Logs one answered request: the hot path, written as bytes without JSONSerialization or
    /// Foundation's formatting (same fields and escapes, keys sorted as `event` writes them).
    public func request(method: String, path: String, status: Int, milliseconds: Double) {
        var line: [UInt8] = []
        line.reserveCapacity(128 + path.utf8.count + path.utf8.count / 4)
        line.append(#"{"event":"request","method":"#)
        Self.appendQuoted(method, to: &line)
        line.append(#","ms":"#)
        Self.appendMilliseconds(milliseconds, to: &line)
        line.append(#","path":"#)
        Self.appendQuoted(path, to: &line)
        line.append(#","status":"#)
        Self.appendDecimal(status, to: &line)
        line.append(#","time":""#)
        line += Self.utcNow()
        line.append(#""}"#)
        writeRequest(line)
    }

    /// `milliseconds` rounded to three decimals as `Double`'s `description` writes it (`0.0`,
    /// `1.5`, `12.345`), appended to `out`: by integer arithmetic from 0 to 10⁹ ms, where that
    /// text is the exact thousandths with trailing zeros cut (the shortest round-trip digits;
    /// doubles there are far closer together than 0.001), else by `description`.
    static func appendMilliseconds(_ milliseconds: Double, to out: inout [UInt8]) {
        let thousandths = (milliseconds * 1000).rounded()
        guard thousandths.sign == .plus, thousandths < 1e12 else { out += "\(thousandths / 1000)".utf8; return }
        let t = Int(thousandths)
        appendDecimal(t / 1000, to: &out)
        out.append(UInt8(ascii: "."))
        var fraction = t % 1000, digits = 3
        while digits > 1 && fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        var divisor = 1
        for _ in 1..<digits { divisor *= 10 }
        while divisor > 0 { out.append(UInt8(ascii: "0") + UInt8(fraction / divisor % 10)); divisor /= 10 }
    }

    /// `n` in decimal, as `String(n)` writes it, appended to `out`.
    static func appendDecimal(_ n: Int, to out: inout [UInt8]) {
        guard n >= 0 else { out += String(n).utf8; return }
        var divisor = 1
        while divisor <= n / 10 { divisor *= 10 }
        while divisor > 0 { out.append(UInt8(ascii: "0") + UInt8(n / divisor % 10)); divisor /= 10 }
    }

    /// `s` as a JSON string literal, escaped as JSONSerialization escapes it (`"`, `\`, `/` and
    /// control characters), appended to `out`.
    static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        JSONValue.escape(s, .foundation, into: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// Now as ISO 8601 UTC with milliseconds (`2026-12-01T19:20:50.093Z`) in UTF-8, by
    /// arithmetic on the clock (`CivilDate`; no formatter, no time-zone lock: glibc's gmtime_r
    /// takes one).
    static func utcNow() -> [UInt8] {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return CivilDate.iso8601(milliseconds: Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec / 1_000_000))
    }
}

extension [UInt8] {
    /// Appends `literal`'s UTF-8 whole.
    fileprivate mutating func append(_ literal: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}
