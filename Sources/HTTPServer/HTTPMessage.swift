import Foundation

/// One HTTP request as the handler sees it: parsed by libmicrohttpd, body complete and within
/// the server's limit.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, …
    public var method: String
    /// The path, percent-decoded by libmicrohttpd, without the query.
    public var path: String
    /// Query arguments in the order sent (decoded); a key without `=` has an empty value.
    public var query: [(name: String, value: String)]
    /// Request headers; names lower-cased.
    public var headers: [String: String]
    /// The body (empty for none).
    public var body: Data

    /// A request (the server builds these; tests may too).
    public init(method: String, path: String, query: [(name: String, value: String)] = [], headers: [String: String] = [:], body: Data = Data()) {
        self.method = method; self.path = path; self.query = query; self.headers = headers; self.body = body
    }

    /// The first value of query argument `name`.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }
}

/// What a handler answers: a status, headers and a body from memory or a file.
public struct HTTPResponse: Sendable {
    /// Where the body comes from.
    public enum Body: Sendable {
        /// Bytes in memory (copied into the response).
        case data(Data)
        /// A regular file, sent with sendfile(2) where the system allows; a file that cannot be
        /// opened, a link (at the last component) or anything but a regular file (a FIFO is
        /// opened without blocking) becomes a 404.
        case file(URL)
        /// A response made once (`PreparedResponse`): queued as it is when the response's status
        /// and headers are still the prepared one's, else its bytes are copied as `.data`'s are.
        case prepared(PreparedResponse)
    }
    /// The status code.
    public var status: Int
    /// Response headers (Content-Length is set by the server).
    public var headers: [String: String]
    /// The body.
    public var body: Body

    /// A response with a body in memory.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status; self.headers = headers; self.body = .data(body)
    }

    /// A response whose body is the file at `file`.
    public init(status: Int = 200, headers: [String: String] = [:], file: URL) {
        self.status = status; self.headers = headers; self.body = .file(file)
    }

    /// The response `prepared` (its status, headers and body), queued as it was made.
    public init(_ prepared: PreparedResponse) {
        self.status = prepared.status; self.headers = prepared.headers; self.body = .prepared(prepared)
    }

    /// A text response (`text/plain` unless `contentType` says otherwise).
    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": contentType], body: Data(text.utf8))
    }

    /// A JSON response from an encodable-free dictionary tree (`JSONSerialization`'s types).
    public static func json(_ object: Any, status: Int = 200) -> HTTPResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: data)
    }

    /// A JSON error body `{"error": message}`.
    public static func error(_ status: Int, _ message: String) -> HTTPResponse {
        json(["error": message], status: status)
    }
}
