import Foundation

/// The paging token of the client-side tracking JSON (`nextToken`), as MediaTailor's
/// `GetTracking` pages ("Paging through ad beacons with GetTracking",
/// https://docs.aws.amazon.com/mediatailor/latest/ug/ad-reporting-client-side.html#gettracking):
/// a request that carries one is answered only what starts after the stream time it holds.
/// Opaque to players: base64url (no padding) of the time in milliseconds. It holds nothing but
/// that time, so that every node of a fleet answers a request alike and no token goes stale
/// (MediaTailor's expire after 24 hours; nothing here needs to).
public struct TrackingToken: Sendable, Hashable {
    /// Stream time in milliseconds: what starts after it is newer.
    public var after: Int64

    /// A token for what starts after `after` milliseconds of stream time.
    public init(after: Int64) { self.after = after }

    /// The token as sent in `nextToken` (URL-safe: no character needs escaping in a query).
    public var text: String {
        Data(String(after).utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The token `text` reads as; nil when it is not one of ours. Takes the standard base64
    /// alphabet too, and a `+` that a query decoder turned into a space.
    public init?(text: String) {
        guard !text.isEmpty, text.count <= 32 else { return nil }
        var b64 = text.replacingOccurrences(of: " ", with: "+")
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b64.count % 4 != 0 { b64.append("=") }
        guard let data = Data(base64Encoded: b64), let raw = String(data: data, encoding: .utf8),
              raw.allSatisfy(\.isASCII), raw.allSatisfy(\.isNumber), let after = Int64(raw) else { return nil }
        self.init(after: after)
    }

    /// A request's token and the text it came as (answered back verbatim when nothing is newer).
    public struct Page: Sendable, Hashable {
        /// The token.
        public var token: TrackingToken
        /// The `nextToken` value sent.
        public var sent: String
    }

    /// Why a request's `nextToken` cannot be honoured (a 400).
    public struct Refusal: Error, Sendable, Hashable {
        /// One line for the player.
        public var reason: String
    }

    /// Reads a request's `nextToken` query value: nil when absent or empty (everything is
    /// asked); refused when it is not one of ours.
    public static func page(_ value: String?) throws(Refusal) -> Page? {
        guard let value, !value.isEmpty else { return nil }
        guard let t = TrackingToken(text: value) else { throw Refusal(reason: "nextToken is not a token this service handed out") }
        return Page(token: t, sent: value)
    }
}
