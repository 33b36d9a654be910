import Ads
import Foundation

/// The ad tag template with MediaTailor's ADS variables: `[session.id]`, `[session.uuid]`,
/// `[session.avail_duration_secs]`, `[session.avail_duration_ms]`, `[avail.index]`,
/// `[avail.random]`, `[session.user_agent]`, `[player_params.NAME]`, and for live breaks the
/// signal's `[scte.…]` fields (`SCTEValues`). Every value is
/// percent-encoded (RFC 3986 unreserved characters kept); an unknown variable or a player
/// parameter the session did not pass becomes empty, as MediaTailor does. Pure.
public enum TagTemplate {
    /// What a session brings to its ADS request.
    public struct Values: Sendable, Hashable {
        /// The session id.
        public var sessionID: String
        /// The session's player parameters (`adsParams`, or the master URL's query).
        public var playerParams: [String: String]
        /// The avail's planned length, seconds.
        public var availDurationSeconds: Int
        /// 1-based index of the avail the request fills.
        public var availIndex: Int
        /// A random number for `[avail.random]`.
        public var random: Int
        /// The viewer's User-Agent.
        public var userAgent: String
        /// The live break's SCTE-35 fields (`[scte.…]`); nil: none (VOD, a marker without a
        /// section), every `[scte.…]` variable empty.
        public var scte: SCTEValues?

        /// Values for one request.
        public init(sessionID: String, playerParams: [String: String], availDurationSeconds: Int, availIndex: Int = 1,
                    random: Int = Int.random(in: 0...10_000_000_000), userAgent: String = "", scte: SCTEValues? = nil) {
            self.sessionID = sessionID; self.playerParams = playerParams; self.availDurationSeconds = availDurationSeconds
            self.availIndex = availIndex; self.random = random; self.userAgent = userAgent; self.scte = scte
        }
    }

    /// `template` with each `[…]` variable replaced, each value written by `encode` (percent-
    /// encoding for a URL; `ADSRequestTemplate` escapes for a body's type). Brackets that are not
    /// a MediaTailor variable (the IAB's `[CACHEBUSTING]`, …) are left for the ad server.
    public static func expand(_ template: String, _ v: Values,
                              encode: (String) -> String = MacroExpander.percentEncode) -> String {
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "[") {
            out += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "]") else { break }
            let name = String(rest[rest.index(after: open)..<close])
            if let value = value(of: name, v) {
                out += encode(value)
            } else {
                out += rest[open...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    static func value(of name: String, _ v: Values) -> String? {
        if name.hasPrefix("player_params.") { return v.playerParams[String(name.dropFirst("player_params.".count))] ?? "" }
        if name.hasPrefix("scte.") { return (v.scte ?? SCTEValues()).value(String(name.dropFirst("scte.".count))) }
        switch name {
        case "session.id", "session.uuid": return v.sessionID
        case "session.avail_duration_secs": return String(v.availDurationSeconds)
        case "session.avail_duration_ms": return String(v.availDurationSeconds * 1000)
        case "avail.index": return String(v.availIndex)
        case "avail.random": return String(v.random)
        case "session.user_agent": return v.userAgent
        default: return name.hasPrefix("session.") || name.hasPrefix("avail.") ? "" : nil
        }
    }
}
