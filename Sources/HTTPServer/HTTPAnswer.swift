/// What a handler gives back for a request: the response at once, or work that makes it later.
///
/// `.now` is answered on the pool thread that read the request (a lookup: a playlist already
/// written, a file). `.later` suspends the connection, runs the work on Swift's concurrency pool
/// — where it may await an ad server, an actor, the store — and resumes the connection with its
/// response: no pool thread waits for it, and none of the connections a pool thread serves waits
/// behind it.
public enum HTTPAnswer: Sendable {
    /// The response, now.
    case now(HTTPResponse)
    /// Work that makes the response.
    case later(@Sendable () async -> HTTPResponse)
}

extension HTTPAnswer {
    /// The response: at once, or when the work that makes it is done.
    public func response() async -> HTTPResponse {
        switch self {
        case .now(let response): response
        case .later(let work): await work()
        }
    }
}
