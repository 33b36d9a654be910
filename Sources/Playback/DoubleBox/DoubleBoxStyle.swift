import Foundation

/// How a double-box break shows (the broadcast "double box": an ad break during which the content
/// does not stop): the ad full size with the content going on in a window, or the reverse, and
/// how loud the content stays under the ad.
///
/// Written `doublebox`, `doublebox:-12dB`, `doublebox:mute`, `doublebox-reverse`,
/// `doublebox-reverse:-6dB` (`--ad-break TIME=AD@doublebox:-12dB`).
public struct DoubleBoxStyle: Sendable, Equatable, CustomStringConvertible {
    /// The ad goes in the window and the content stays full size (else the reverse).
    public var adInWindow: Bool
    /// Gain applied to the content's audio during the break, in dB (≤ 0); nil mutes it.
    public var contentGainDB: Double?
    /// The window's corner.
    public var corner: PictureInPictureLayer.Corner

    /// The default content level under the ad: -12 dB.
    public static let defaultContentGainDB = -12.0

    /// A style; by default the ad full size, the content in the bottom-right window at -12 dB.
    public init(adInWindow: Bool = false, contentGainDB: Double? = DoubleBoxStyle.defaultContentGainDB,
                corner: PictureInPictureLayer.Corner = .bottomRight) {
        self.adInWindow = adInWindow
        self.contentGainDB = contentGainDB
        self.corner = corner
    }

    /// The linear gain on content samples (0 when muted).
    package var contentGain: Float { contentGainDB.map { Float(pow(10, $0 / 20)) } ?? 0 }

    /// `doublebox` or `doublebox-reverse`: the report's name of the mode.
    package var modeName: String { adInWindow ? "doublebox-reverse" : "doublebox" }

    /// How it is written: `doublebox:-12dB`, `doublebox-reverse:mute`.
    public var description: String {
        "\(modeName):" + (contentGainDB.map { "\(Self.format($0))dB" } ?? "mute")
    }

    private static func format(_ d: Double) -> String { d == d.rounded() ? String(Int(d)) : String(d) }

    /// Why a style could not be read.
    package struct Invalid: Error, Sendable, CustomStringConvertible {
        /// One line.
        public var description: String
    }

    /// Reads `doublebox[-reverse][:LEVEL]` where LEVEL is `-12dB` (from -60 to 0 dB) or `mute`.
    package init(parsing text: String) throws {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        switch parts[0].lowercased() {
        case "doublebox": adInWindow = false
        case "doublebox-reverse": adInWindow = true
        default: throw Invalid(description: "break mode must be doublebox or doublebox-reverse, not '\(parts[0])'")
        }
        corner = .bottomRight
        contentGainDB = Self.defaultContentGainDB
        guard parts.count == 2 else { return }
        let level = parts[1].lowercased()
        if level == "mute" { contentGainDB = nil; return }
        let number = level.hasSuffix("db") ? String(level.dropLast(2)) : level
        guard let db = Double(number), db.isFinite, (-60...0).contains(db) else {
            throw Invalid(description: "content level '\(parts[1])' must be dB from -60 to 0 (such as -12dB) or mute")
        }
        contentGainDB = db
    }
}
