// `--ad-ui none|default|FILE.json` of stitch and play.
import Foundation
import Interlude

extension AdUIChoice {
    /// Parses the option's value; a layout file is read and checked now.
    static func parse(_ v: String) throws -> AdUIChoice {
        switch v {
        case "none": return .none
        case "default": return .default
        default:
            guard v.lowercased().hasSuffix(".json") else { throw UsageError("--ad-ui must be none, default or a FILE.json layout, not '\(v)'") }
            do { return .layout(try AdUILayout.load(path: v)) } catch { throw UsageError("--ad-ui \(error)") }
        }
    }
}
