// The answers an ad server gives most often when it has nothing to sell, served for real.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback ad server answering every kind of "no fill" a real one gives: an empty VAST, a VAST
/// with only `<Error>`, whitespace, 204, 404, ads none of which can play, and wrapper chains that
/// fail (a loop, a dead host, a stalled host, 11 wrappers deep, a target 11 HTTP redirects away
/// (HTTPStream follows 10), a `file:` target). Every document
/// carries an `<Error>` URL back to `/err?case=NAME&code=[ERRORCODE]`.
///
/// ```swift
/// let server = try NoFillServer()
/// let tag = server.tag(.emptyVAST)   // http://127.0.0.1:PORT/empty-vast.xml
/// ```
public final class NoFillServer: Sendable {
    /// One no-fill answer, with the ad-loading error code IMA reports for it.
    public enum Answer: String, CaseIterable, Sendable, CustomStringConvertible {
        case emptyVAST = "empty-vast"
        case onlyError = "only-error"
        case whitespace
        case noContent204 = "status-204"
        case notFound404 = "status-404"
        case allUnplayable = "all-unplayable"
        case wrapperLoop = "wrapper-loop"
        case deadHost = "dead-host"
        case stalledHost = "stalled-host"
        case elevenWrappers = "eleven-wrappers"
        case elevenHTTPRedirects = "eleven-http-redirects"
        case fileTarget = "file-target"

        public var description: String { rawValue }

        /// The `AdError.code` of the loader's `failedWith` (IMA: 1009 VAST_EMPTY_RESPONSE for an
        /// answer with no ad; else the VAST code of what failed).
        public var loaderCode: Int {
            switch self {
            case .emptyVAST, .onlyError, .whitespace, .noContent204: 1009
            case .notFound404, .deadHost, .stalledHost, .elevenHTTPRedirects: 301
            case .allUnplayable: 403
            case .wrapperLoop, .elevenWrappers: 302
            case .fileTarget: 300
            }
        }

        /// The `[ERRORCODE]` the answer's Error URL is requested with; nil when it has none
        /// (no document came back).
        public var errorURLCode: Int? {
            switch self {
            case .whitespace, .noContent204, .notFound404: nil
            case .emptyVAST: nil
            case .onlyError: 303
            default: loaderCode
            }
        }
    }

    /// The server.
    public let server: HTTPTestServer
    /// A port nothing listens on (connection refused).
    public let deadPort: UInt16
    /// Seconds the stalled host waits before answering (longer than any loader timeout).
    public static let stallSeconds = 30.0

    /// Starts the server with every answer routed.
    public init() throws {
        server = try HTTPTestServer()
        deadPort = try Self.closedPort()
        func err(_ a: Answer) -> String { "<Error><![CDATA[\(server.url("/err"))?case=\(a.rawValue)&code=[ERRORCODE]]]></Error>" }
        func wrapper(_ a: Answer, to target: String) -> String {
            """
            <VAST version="3.0"><Ad id="w-\(a.rawValue)"><Wrapper><AdSystem>NoFill</AdSystem>\(err(a))
            <VASTAdTagURI><![CDATA[\(target)]]></VASTAdTagURI><Impression><![CDATA[\(server.url("/imp"))]]></Impression>
            </Wrapper></Ad></VAST>
            """
        }
        server.route("/empty-vast.xml", body: #"<VAST version="3.0"/>"#)
        server.route("/only-error.xml", body: #"<VAST version="3.0">\#(err(.onlyError))</VAST>"#)
        server.route("/whitespace.xml", body: " \n\t \r\n ")
        server.route("/status-204.xml", .init(status: 204, headers: [:], body: Data()))
        server.route("/status-404.xml", body: "not here", status: 404)
        server.route("/all-unplayable.xml", body: """
            <VAST version="3.0"><Ad id="u1"><InLine><AdSystem>NoFill</AdSystem><AdTitle>flash</AdTitle>\(err(.allUnplayable))
            <Impression><![CDATA[\(server.url("/imp"))]]></Impression><Creatives><Creative><Linear><Duration>00:00:01</Duration>
            <MediaFiles><MediaFile delivery="progressive" type="video/x-flv" width="320" height="180"><![CDATA[\(server.url("/ad.flv"))]]></MediaFile>
            <MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[ftp://127.0.0.1/ad.mp4]]></MediaFile>
            </MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>
            """)
        server.route("/wrapper-loop.xml", body: wrapper(.wrapperLoop, to: server.url("/wrapper-loop-2.xml")))
        server.route("/wrapper-loop-2.xml", body: wrapper(.wrapperLoop, to: server.url("/wrapper-loop.xml")))
        server.route("/dead-host.xml", body: wrapper(.deadHost, to: "http://127.0.0.1:\(deadPort)/vast.xml"))
        server.route("/stalled-host.xml", body: wrapper(.stalledHost, to: server.url("/stall.xml")))
        server.route("/stall.xml", body: #"<VAST version="3.0"/>"#, delay: Self.stallSeconds)
        for i in 0..<11 {
            let next = i == 10 ? server.url("/empty-vast.xml") : server.url("/eleven-wrappers-\(i + 1).xml")
            server.route(i == 0 ? "/eleven-wrappers.xml" : "/eleven-wrappers-\(i).xml", body: wrapper(.elevenWrappers, to: next))
        }
        server.route("/file-target.xml", body: wrapper(.fileTarget, to: "file:///etc/hostname"))
        server.route("/eleven-http-redirects.xml", body: wrapper(.elevenHTTPRedirects, to: server.url("/hop-0")))
        for i in 0..<11 { server.route("/hop-\(i)", .redirect(to: server.url("/hop-\(i + 1)"))) }
        server.route("/hop-11", body: #"<VAST version="3.0"/>"#)
        func adBreak(_ offset: String, _ id: String, _ a: Answer) -> String {
            #"<vmap:AdBreak timeOffset="\#(offset)" breakType="linear" breakId="\#(id)"><vmap:AdSource><vmap:AdTagURI templateType="vast3">"#
                + "<![CDATA[\(server.url("/\(a.rawValue).xml"))]]></vmap:AdTagURI></vmap:AdSource></vmap:AdBreak>"
        }
        server.route("/all-breaks-fail.xml", body: #"<vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">"#
            + adBreak("start", "pre", .emptyVAST) + adBreak("00:00:01.000", "mid", .stalledHost)
            + adBreak("00:00:01.500", "mid2", .allUnplayable) + adBreak("end", "post", .notFound404) + "</vmap:VMAP>")
        server.setHandler { r in r.path == "/err" || r.path == "/imp" ? .init(status: 204, headers: [:], body: Data()) : nil }
    }

    /// A VMAP whose four breaks (pre-roll, mid-rolls at 1 s and 1.5 s, post-roll) all fail: an
    /// empty VAST, a stalled wrapper, an unplayable ad, a 404.
    public var allBreaksFailVMAP: String { server.url("/all-breaks-fail.xml") }

    /// The tag URL of `answer`.
    public func tag(_ answer: Answer) -> String { server.url("/\(answer.rawValue).xml") }

    /// The Error URL `answer`'s document carries, with `[ERRORCODE]` as `code`.
    public func errorURL(_ answer: Answer, code: Int) -> String { server.url("/err") + "?case=\(answer.rawValue)&code=\(code)" }

    /// Stops the server.
    public func stop() { server.stop() }

    /// A loopback port that was bound and closed again: connecting to it is refused.
    static func closedPort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return UInt16(bigEndian: addr.sin_port)
    }
}
