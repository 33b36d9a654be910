import Ads
import Foundation
import Manifest

/// How a session's ad request goes out besides its URL (`TagTemplate`): `GET` (the default) or
/// `POST` with headers and a body template (MediaTailor's `AdDecisionServerConfiguration`
/// `HttpRequest`: method, headers and body, the last two for `POST` only). The body takes the
/// tag's variables, each value escaped for the body's type so that no viewer's parameter can
/// change the body's structure: inside a JSON string for a JSON body, as XML character data for
/// an XML one, percent-encoded otherwise (a form). The type is the `Content-Type` header given,
/// else `application/json` for a body that starts with `{` or `[`, else a form's.
public struct ADSRequestTemplate: Sendable, Hashable {
    /// One header, as given.
    public struct Header: Sendable, Hashable {
        /// Its name.
        public var name: String
        /// Its value (sent as it is: no variables).
        public var value: String

        /// A header.
        public init(name: String, value: String) { self.name = name; self.value = value }
    }

    /// `GET` or `POST`.
    public private(set) var method: AdHTTPRequest.Method = .get
    /// Extra headers (`POST` only), in order; checked when the template is made.
    public private(set) var headers: [Header] = []
    /// The body template (`POST` only).
    public private(set) var body = ""

    /// A plain `GET`.
    public init() {}

    /// A template; throws `AdHTTPRequest.Invalid` for a header that may not be sent.
    public init(method: AdHTTPRequest.Method, headers: [Header] = [], body: String = "") throws {
        self.method = method
        self.headers = headers
        self.body = body
        _ = try AdHTTPRequest.post(body: Data(), headers: sentHeaders)
    }

    /// The headers sent: those given, and `Content-Type` when none was.
    var sentHeaders: [(name: String, value: String)] {
        var sent = headers.map { (name: $0.name, value: $0.value) }
        if !headers.contains(where: { $0.name.lowercased() == "content-type" }) { sent.append((name: "Content-Type", value: contentType)) }
        return sent
    }

    /// The body's media type: the `Content-Type` header given, else from the body's first character.
    public var contentType: String {
        if let given = headers.last(where: { $0.name.lowercased() == "content-type" }) { return given.value }
        let first = body.first { !$0.isWhitespace }
        return first == "{" || first == "[" ? "application/json" : "application/x-www-form-urlencoded"
    }

    /// The request for one ad request's `values`: `GET`, or the `POST` with its body expanded.
    public func request(_ values: TagTemplate.Values) -> AdHTTPRequest {
        guard method == .post else { return .get }
        let type = contentType.lowercased()
        let encode: (String) -> String
        if type.contains("json") {
            encode = { var out = ""; JSONValue.escape($0, into: &out); return out }
        } else if type.contains("xml") {
            encode = XMLText.escape
        } else {
            encode = MacroExpander.percentEncode
        }
        do {
            return try .post(body: Data(TagTemplate.expand(body, values, encode: encode).utf8), headers: sentHeaders)
        } catch {
            preconditionFailure("the headers were checked when the template was made: \(error)")
        }
    }
}
