import HTTPServer
import Testing
@testable import Serve

/// `RequestOrigin`: the absolute origin a live MPD names itself by, from the request's `Host`
/// and `X-Forwarded-Proto`, each checked as hostile input.
struct RequestOriginTests {
    private func origin(_ headers: [String: String]) -> String? {
        RequestOrigin.of(HTTPRequest(method: "GET", path: "/", headers: headers))
    }

    @Test func theHostAndTheProxysSchemeMakeTheOrigin() {
        #expect(origin(["host": "127.0.0.1:8080"]) == "http://127.0.0.1:8080")
        #expect(origin(["host": "ssai.example.com"]) == "http://ssai.example.com")
        #expect(origin(["host": "[::1]:9000"]) == "http://[::1]:9000")
        #expect(origin(["host": "cdn.example.com", "x-forwarded-proto": "https"]) == "https://cdn.example.com")
        #expect(origin(["host": "cdn.example.com", "x-forwarded-proto": " HTTPS , http"]) == "https://cdn.example.com")
        #expect(origin(["host": "cdn.example.com", "x-forwarded-proto": "gopher"]) == "http://cdn.example.com")
    }

    @Test func aMalformedHostGivesNoOrigin() {
        for bad in ["", "a@b", "a b", "host/path", "host:0", "host:65536", "host:123456", "host:", "host:8a", "-lead", ".lead",
                    "[::1", "[zz]", "[::1]x", "h_st", "h\u{e9}st", String(repeating: "a", count: 256), "host?x", "host#x", "a\"b"] {
            #expect(origin(["host": bad]) == nil, "\(bad.debugDescription)")
        }
        #expect(origin([:]) == nil)
    }
}
