import Foundation
import Threads
import Testing
import TestSupport

/// Every playlist the service's tests fetch from the service (`curl` on `/v1/sessions/…m3u8` or
/// `/v1/master/…m3u8`) goes through the RFC 8216 checker written from the RFC
/// (`TestSupport/RFC8216Checker`), and every refetch of one URL through its refresh rules
/// (§6.2.1–6.2.2: a VOD playlist never changes; a live one only slides, keeps its sequence
/// numbers, its target and its published segments): a violation is an issue of the test that
/// fetched it. Timing rules are not checked here (tests step their origins by hand).
enum PlaylistConformance {
    /// What no service playlist may break is every rule; an allowance here names a rule the
    /// service breaks knowingly, with why. (None.)
    static let allowances: [RFC8216.Allowance] = []

    private static let checkers = Locked<[String: RFC8216.RefreshChecker]>([:])
    private static let multivariants = Locked<[String: String]>([:])

    /// Whether `url` is one of the service's playlists.
    static func applies(to url: String) -> Bool {
        guard let u = URL(string: url) else { return false }
        return u.path.hasSuffix(".m3u8") && (u.path.hasPrefix("/v1/sessions/") || u.path.hasPrefix("/v1/master/"))
    }

    /// The violations of this fetch of `url` (a 200 answer's body), across its earlier fetches.
    /// A multivariant playlist is checked alone and must read the same at every fetch.
    static func check(_ url: String, body: String) -> [RFC8216.Violation] {
        if body.contains("#EXT-X-STREAM-INF:") {
            let first = multivariants.withLock { all in all[url] ?? { all[url] = body; return body }() }
            if first != body { Issue.record("\(url): the multivariant playlist changed between fetches") }
            return RFC8216.check(multivariant: body, allowing: allowances).filter { !$0.isAllowed }
        }
        return checkers.withLock { all in
            var c = all[url] ?? RFC8216.RefreshChecker(allowing: allowances)
            defer { all[url] = c }
            return c.add(body).filter { !$0.isAllowed }
        }
    }

    /// Records each violation as an issue of the running test.
    static func record(_ violations: [RFC8216.Violation], url: String) {
        for v in violations { Issue.record("RFC 8216: \(url): \(v)") }
    }
}
