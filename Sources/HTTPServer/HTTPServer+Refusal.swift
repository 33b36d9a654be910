import Foundation

extension HTTPServer {
    /// Why a request whose head libmicrohttpd parsed is refused before its body is read and
    /// before any handler runs; nil: it goes on. Every refusal closes the connection (after a
    /// framing error the next request's start is unknown). libmicrohttpd 0.9.75 reads a body
    /// whose Transfer-Encoding is anything but exactly `chunked` until the connection closes,
    /// and takes Transfer-Encoding over Content-Length when both are sent: those are refused here
    /// (RFC 9112 6.1, 6.3), as are a missing or repeated Host (3.2) and a body over the limit.
    /// `headers`' names are in lower case.
    static func refusal(version: String, headers: [(name: String, value: String)], queryCut: Bool,
                        options: HTTPServerOptions) -> HTTPResponse? {
        func refuse(_ status: Int, _ message: String) -> HTTPResponse {
            var r = HTTPResponse.error(status, message)
            r.headers["Connection"] = "close"
            return r
        }
        if queryCut { return refuse(414, "more than \(options.maxQueryArguments) query arguments") }
        // one pass over the headers (arrays made only for names that are there)
        var hosts = 0
        var encodings: [String] = [], lengths: [String] = []
        for h in headers {
            switch h.name {
            case "host": hosts += 1
            case "transfer-encoding": encodings.append(h.value)
            case "content-length": lengths.append(h.value)
            default: break
            }
        }
        if version == "HTTP/1.1" && hosts == 0 { return refuse(400, "HTTP/1.1 request without Host") }
        if hosts > 1 { return refuse(400, "more than one Host") }
        if !encodings.isEmpty {
            let codings = encodings.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map { $0.trimmingSpaces.lowercased() }
            if version == "HTTP/1.0" { return refuse(400, "Transfer-Encoding in an HTTP/1.0 request") }
            if !lengths.isEmpty { return refuse(400, "both Transfer-Encoding and Content-Length") }
            if let other = codings.first(where: { $0 != "chunked" }) {
                return other.isEmpty ? refuse(400, "empty transfer coding")
                                     : refuse(501, "Transfer-Encoding '\(encodings.joined(separator: ", "))' not supported (only chunked)")
            }
            if codings.count > 1 { return refuse(400, "chunked applied more than once") }
        }
        if !lengths.isEmpty {
            guard lengths.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }), Set(lengths).count == 1 else {
                return refuse(400, "malformed or conflicting Content-Length")
            }
            if lengths[0].count > 18 || Int(lengths[0])! > options.maxBodyBytes {
                return refuse(413, "request body over \(options.maxBodyBytes) bytes")
            }
        }
        return nil
    }
}

extension Character {
    /// 0-9.
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
