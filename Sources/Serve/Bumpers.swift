import Foundation
import Timing

/// MediaTailor's bumpers: short clips of the operator's (`--bumper-start`, `--bumper-end`) that
/// play at the start of every ad break and just before its end, around the ad server's ads.
/// Each is transcoded into every rendition like an ad (conformed to it), fires no beacon, is
/// never replaced by slate, and plays only when it is at most `longest` long. A break with no
/// ad of the ad server gets no bumpers. In a live break the end bumper ends at the break's end,
/// slate (if any) between the ads and it; both count toward the break's length.
public struct Bumpers: Sendable, Hashable {
    /// The start bumper's media URL (http(s)); nil: none.
    public private(set) var start: String?
    /// The end bumper's media URL (http(s)); nil: none.
    public private(set) var end: String?

    /// No bumpers.
    public static let none = Bumpers()

    /// The longest a bumper may be (MediaTailor's rule): a longer one is left out.
    public static let longest = MediaTime(seconds: 10)

    private init() {}

    /// Bumpers from their media URLs (nil: none); each an http(s) URL. Throws a one-line reason.
    public init(start: String?, end: String?) throws(Invalid) {
        for (place, url) in [(Place.start, start), (.end, end)] {
            guard let url else { continue }
            guard let u = URL(string: url), let scheme = u.scheme?.lowercased(), scheme == "http" || scheme == "https", u.host?.isEmpty == false else {
                throw Invalid(place: place, description: "'\(url.prefix(80))' is not an http(s) URL")
            }
        }
        self.start = start
        self.end = end
    }

    /// Which bumper.
    public enum Place: Sendable, Hashable { case start, end }

    /// Why a bumper URL was refused.
    public struct Invalid: Error, Sendable, Hashable, CustomStringConvertible {
        /// The bumper refused.
        public var place: Place
        /// One line.
        public var description: String
    }

    /// Whether there is any bumper.
    public var isEmpty: Bool { start == nil && end == nil }

    /// `ads` (one break's, in pod order) with the start bumper before them and the end bumper
    /// after them, sequences renumbered; `ads` as they are when empty.
    public func wrap(_ ads: [PlannedAd]) -> [PlannedAd] {
        guard !ads.isEmpty, !isEmpty else { return ads }
        var out = start.map { [Self.ad($0, id: "bumper-start")] } ?? []
        out += ads
        if let end { out.append(Self.ad(end, id: "bumper-end")) }
        for i in out.indices { out[i].sequence = i + 1 }
        return out
    }

    /// A bumper as a planned ad: its media, no beacon, no declared length.
    static func ad(_ url: String, id: String) -> PlannedAd {
        PlannedAd(id: id, mediaURL: url, declaredDuration: nil, impressions: [], errorURLs: [], tracking: [:], title: "bumper",
                  adSystem: "interlude", creativeId: id, sequence: 0, isBumper: true)
    }
}
