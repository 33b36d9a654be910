// `--ad-ui none|default|FILE.json` of stitch and play.
import Foundation
import Interlude

/// The ad UI asked for on the command line.
enum AdUIOption {
    /// No ad UI at all.
    case none
    /// IMA's default UI (the default with VAST ads).
    case `default`
    /// `disableUi` with the app's UI from a JSON layout; ads that forbid hiding (UiHideable 0)
    /// keep the default UI.
    case layout(AdUILayout)

    /// Parses the option's value; a layout file is read and checked now.
    static func parse(_ v: String) throws -> AdUIOption {
        switch v {
        case "none": return .none
        case "default": return .default
        default:
            guard v.lowercased().hasSuffix(".json") else { throw UsageError("--ad-ui must be none, default or a FILE.json layout, not '\(v)'") }
            do { return .layout(try AdUILayout.load(path: v)) } catch { throw UsageError("--ad-ui \(error)") }
        }
    }

    /// Whether IMA's default UI is drawn on ads that keep it.
    var drawsDefault: Bool { if case .none = self { return false } else { return true } }
    /// The custom renderer, if any.
    var custom: (any AdUIRenderer)? { if case .layout(let l) = self { return l } else { return nil } }
    /// Whether `disableUi` is asked for.
    var disablesUi: Bool { custom != nil }
}
