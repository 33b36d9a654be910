/// What the gate makes of the bytes a connection has sent so far.
enum GateVerdict: Equatable {
    /// More bytes are needed; `headComplete` once the request head is in (a chunked body is awaited).
    case incomplete(headComplete: Bool)
    /// The request is well-formed as far as the gate looks: hand the connection to libmicrohttpd.
    case admit
    /// Answer `status` with `reason` and close.
    case refuse(status: Int, reason: String)
}

/// The framing checks libmicrohttpd 0.9.75 lacks, made on the raw bytes of a connection's first
/// request before libmicrohttpd reads them: a bare CR (libmicrohttpd waits for an LF that never
/// comes), a NUL, a head over the header limit (431; 414 while still in the request line), and a
/// chunked body's framing (a chunk line over `maxChunkLineBytes`, which libmicrohttpd answers
/// 500; a malformed size; a body over the limit). Bare LF line ends are accepted, as
/// libmicrohttpd accepts them. The rest (Transfer-Encoding's and Content-Length's values, Host,
/// the query) is checked on the parsed request, for every request (`HTTPServer.refusal`).
struct RawRequestCheck: Sendable {
    /// The largest request head (request line and header fields).
    var maxHeaderBytes: Int
    /// The largest request body.
    var maxBodyBytes: Int
    /// The longest chunk-size line (size, extensions) or trailer line.
    var maxChunkLineBytes = 4096
    /// The most bytes looked at: a chunked body not complete within them is handed over with the
    /// rest unchecked (kept below a socket's default receive window, so that a client is never
    /// left waiting for the gate to read).
    var peekLimit: Int { maxHeaderBytes + 16 * 1024 }

    private static let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")

    /// The verdict on `bytes`, the first bytes of a connection (at most `peekLimit` of them).
    func verdict(_ bytes: UnsafeBufferPointer<UInt8>) -> GateVerdict {
        var lines: [Range<Int>] = []
        let head: Int
        switch scanLines(bytes, from: 0, skippingLeadingEmpty: true, into: &lines) {
        case .refuse(let status, let reason): return .refuse(status: status, reason: reason)
        case .incomplete:
            if bytes.count > maxHeaderBytes {
                return lines.isEmpty ? .refuse(status: 414, reason: "request line over \(maxHeaderBytes) bytes")
                                     : .refuse(status: 431, reason: "request head over \(maxHeaderBytes) bytes")
            }
            return .incomplete(headComplete: false)
        case .end(let end): head = end
        }
        if head > maxHeaderBytes { return .refuse(status: 431, reason: "request head over \(maxHeaderBytes) bytes") }
        var codings: [String] = []
        var expectsContinue = false
        for line in lines.dropFirst() {
            guard let colon = bytes[line].firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = String(decoding: bytes[line.lowerBound..<colon], as: UTF8.self).lowercased()
            let value = String(decoding: bytes[(colon + 1)..<line.upperBound], as: UTF8.self)
            if name == "transfer-encoding" { codings += value.split(separator: ",").map { $0.trimmingSpaces.lowercased() } }
            if name == "expect", value.lowercased().contains("100-continue") { expectsContinue = true }
        }
        // Only a body framed by chunks alone is the gate's; a client that waits for 100 Continue
        // sends its body once libmicrohttpd asks for it.
        guard codings == ["chunked"], !expectsContinue else { return .admit }
        return chunkedBody(bytes, from: head)
    }

    /// A chunked body from `start`: admitted once its last chunk and trailers are in (or the
    /// gate has looked at all it will), refused at its first fault.
    private func chunkedBody(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> GateVerdict {
        var at = start, total = 0
        let waiting: GateVerdict = bytes.count >= peekLimit ? .admit : .incomplete(headComplete: true)
        while true {
            // chunk-size [ BWS ; ext… ] line end
            var end = at
            while end < bytes.count, bytes[end] != Self.lf {
                if bytes[end] == Self.cr, end + 1 < bytes.count, bytes[end + 1] != Self.lf {
                    return .refuse(status: 400, reason: "bare CR in a chunk line")
                }
                end += 1
            }
            if end - at > maxChunkLineBytes { return .refuse(status: 413, reason: "chunk line over \(maxChunkLineBytes) bytes") }
            guard end < bytes.count else { return waiting }
            let lineEnd = end > at && bytes[end - 1] == Self.cr ? end - 1 : end
            var digits = at
            var size = 0
            while digits < lineEnd, let d = Self.hexValue(bytes[digits]) {
                guard digits - at < 15 else { return .refuse(status: 413, reason: "chunk size too large") }
                size = size * 16 + d
                digits += 1
            }
            var rest = digits
            while rest < lineEnd, bytes[rest] == UInt8(ascii: " ") || bytes[rest] == UInt8(ascii: "\t") { rest += 1 }
            guard digits > at, rest == lineEnd || bytes[rest] == UInt8(ascii: ";") else {
                return .refuse(status: 400, reason: "malformed chunk size line")
            }
            at = end + 1
            if size == 0 {
                var trailers: [Range<Int>] = []
                switch scanLines(bytes, from: at, skippingLeadingEmpty: false, into: &trailers) {
                case .refuse(let status, let reason): return .refuse(status: status, reason: reason)
                case .incomplete:
                    return bytes.count - at > maxHeaderBytes ? .refuse(status: 431, reason: "trailers over \(maxHeaderBytes) bytes") : waiting
                case .end: return .admit
                }
            }
            total += size
            if total > maxBodyBytes { return .refuse(status: 413, reason: "request body over \(maxBodyBytes) bytes") }
            // the chunk's data, then its line end
            guard at + size < bytes.count else { return waiting }
            at += size
            if bytes[at] == Self.lf { at += 1; continue }
            guard bytes[at] == Self.cr else { return .refuse(status: 400, reason: "chunk data not followed by CRLF") }
            guard at + 1 < bytes.count else { return waiting }
            guard bytes[at + 1] == Self.lf else { return .refuse(status: 400, reason: "chunk data not followed by CRLF") }
            at += 2
        }
    }

    private enum Lines { case end(Int), incomplete, refuse(Int, String) }

    /// Lines from `start` up to an empty one (where `end` points past it), each appended to
    /// `lines` without its line end (CRLF or LF); a CR not followed by LF, or a NUL, is refused.
    private func scanLines(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, skippingLeadingEmpty: Bool, into lines: inout [Range<Int>]) -> Lines {
        var i = start, lineStart = start
        while i < bytes.count {
            let b = bytes[i]
            let lineEnd: Int
            if b == Self.cr {
                guard i + 1 < bytes.count else { return .incomplete }
                guard bytes[i + 1] == Self.lf else { return .refuse(400, "bare CR in the request head (lines end with CRLF)") }
                lineEnd = i; i += 2
            } else if b == Self.lf {
                lineEnd = i; i += 1
            } else if b == 0 {
                return .refuse(400, "NUL byte in the request head")
            } else {
                i += 1; continue
            }
            if lineEnd == lineStart {
                if skippingLeadingEmpty && lines.isEmpty { lineStart = i; continue }   // RFC 9112 2.2: empty lines before the request line
                return .end(i)
            }
            lines.append(lineStart..<lineEnd)
            lineStart = i
        }
        return .incomplete
    }

    private static func hexValue(_ b: UInt8) -> Int? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(b - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(b - UInt8(ascii: "A")) + 10
        default: return nil
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
