import Foundation

/// Where a session's playlists send players for segments (MediaTailor's `CdnConfiguration`:
/// `ContentSegmentUrlPrefix`, `AdSegmentUrlPrefix`): a CDN's address in front of the service,
/// one for content (packaged content, cuts, live pieces) and one for ads and slate. Unset, a
/// playlist gives paths on the service itself (`/v1/segments/…`). The CDN forwards what it
/// does not hold to the service under the same path and query; a URL with a query (a clock
/// shift, a new-stream mark, an ad segment's signed beacon place) is per-session and must be
/// forwarded, not cached (docs/SERVE.md, "What a CDN can cache").
public struct CDNPrefixes: Sendable, Hashable {
    /// Prefix of content segment URLs (`https://cdn.example.com` or with a path), no trailing `/`.
    public private(set) var content: String?
    /// Prefix of ad and slate segment URLs, no trailing `/`.
    public private(set) var ads: String?

    /// No prefix: paths on the service.
    public static let none = CDNPrefixes()

    private init() {}

    /// Prefixes from `content` and `ads` (nil: none); each an absolute http(s) URL without a
    /// query, fragment or user information (a trailing `/` is dropped). Throws a one-line reason.
    public init(content: String?, ads: String?) throws(Invalid) {
        self.content = try content.map { s throws(Invalid) in try Self.checked(s, .content) }
        self.ads = try ads.map { s throws(Invalid) in try Self.checked(s, .ads) }
    }

    /// Which prefix.
    public enum Kind: Sendable, Hashable { case content, ads }

    /// Why a prefix was refused.
    public struct Invalid: Error, Sendable, Hashable, CustomStringConvertible {
        /// The prefix refused.
        public var kind: Kind
        /// One line.
        public var description: String
    }

    static func checked(_ s: String, _ kind: Kind) throws(Invalid) -> String {
        guard let u = URLComponents(string: s), let scheme = u.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = u.host, !host.isEmpty, u.query == nil, u.fragment == nil, u.user == nil, u.password == nil,
              !s.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else {
            throw Invalid(kind: kind, description: "'\(s.prefix(80))' is not an http(s) URL without a query")
        }
        var out = s
        while out.hasSuffix("/") { out.removeLast() }
        return out
    }

    /// The prefix for the stored segment at `path` (a store path: `content/…`, `cuts/…`,
    /// `live/…` are content; `ads/…`, `slate/…` ads), "" for none.
    public func prefix(forPath path: String) -> String {
        let isAd = path.hasPrefix("ads/") || path.hasPrefix("slate/")
        return (isAd ? ads : content) ?? ""
    }
}
