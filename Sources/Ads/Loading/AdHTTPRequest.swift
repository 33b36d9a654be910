// How the root ad request goes out: GET (the default) or POST with headers and a body.
import Foundation

/// How a tag's root request is sent (MediaTailor's `AdDecisionServerConfiguration.HttpRequest`):
/// `GET` by default; `POST` with extra headers and a body for ad servers that take the request
/// that way. Only the root request: wrappers are followed with `GET`, as their `VASTAdTagURI`
/// is a plain URL. A redirect answered with 301, 302 or 303 continues with `GET` (what browsers
/// and curl do); 307 and 308 repeat the `POST` with its body.
///
/// Headers are checked when the request is made: a name must be an RFC 9110 token, a value must
/// not hold CR, LF or NUL (no header can be smuggled in), and the headers the transfer owns
/// (`Host`, `Content-Length`, `Transfer-Encoding`, `Accept-Encoding`, `Connection`, `Expect`)
/// are refused.
public struct AdHTTPRequest: Sendable, Hashable {
    /// The request method.
    public enum Method: String, Sendable, Hashable {
        /// The tag URL as it is (no body).
        case get = "GET"
        /// The tag URL with `body` and `headers`.
        case post = "POST"
    }

    /// `GET` or `POST`.
    public private(set) var method: Method
    /// Extra headers, in order (POST only).
    public private(set) var headers: [(name: String, value: String)]
    /// The body (POST only).
    public private(set) var body: Data

    /// A plain `GET`.
    public static let get = AdHTTPRequest(method: .get, headers: [], body: Data())

    /// A `POST` of `body` with `headers`. Throws `AdHTTPRequest.Invalid` for a header that is not
    /// allowed (see the type's summary).
    public static func post(body: Data, headers: [(name: String, value: String)] = []) throws(Invalid) -> AdHTTPRequest {
        for h in headers { try check(h) }
        return AdHTTPRequest(method: .post, headers: headers, body: body)
    }

    /// Why a header was refused.
    public struct Invalid: Error, Sendable, Hashable, CustomStringConvertible {
        /// One line for a person.
        public var description: String
    }

    /// Headers the transfer sets itself.
    static let reserved: Set<String> = ["host", "content-length", "transfer-encoding", "accept-encoding", "connection", "expect"]

    static func check(_ h: (name: String, value: String)) throws(Invalid) {
        let tchar = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        guard !h.name.isEmpty, h.name.allSatisfy({ tchar.contains($0) }) else {
            throw Invalid(description: "header name '\(Printable.escaped(h.name))' is not a token")
        }
        guard !reserved.contains(h.name.lowercased()) else {
            throw Invalid(description: "header '\(h.name)' is set by the transfer itself")
        }
        guard !h.value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw Invalid(description: "header '\(h.name)': a value may not hold CR, LF or NUL")
        }
    }

    /// Whether two requests send the same bytes.
    public static func == (a: AdHTTPRequest, b: AdHTTPRequest) -> Bool {
        a.method == b.method && a.body == b.body && a.headers.map(\.name) == b.headers.map(\.name)
            && a.headers.map(\.value) == b.headers.map(\.value)
    }

    /// Hashes what `==` compares.
    public func hash(into h: inout Hasher) {
        h.combine(method); h.combine(body)
        for x in headers { h.combine(x.name); h.combine(x.value) }
    }
}
