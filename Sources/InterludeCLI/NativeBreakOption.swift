// `--native-break TIME=RESPONSE[@lbar]` of stitch and play: parsing only; the work is the job's.
import Foundation
import Interlude

extension StitchOptions {
    /// Parses `TIME=RESPONSE`, `TIME=RESPONSE@lbar` (or `@full`) and `TIME@lbar=RESPONSE`.
    static func parseNativeBreak(_ text: String) throws -> (position: BreakCue, response: String, layout: NativeBreak.Layout) {
        guard let eq = text.firstIndex(of: "=") else { throw UsageError("--native-break must be TIME=RESPONSE[@lbar], not '\(text)'") }
        var time = String(text[..<eq]), response = String(text[text.index(after: eq)...])
        var layout = NativeBreak.Layout.fullFrame
        for l in NativeBreak.Layout.allCases {
            if time.hasSuffix("@" + l.rawValue) { time.removeLast(l.rawValue.count + 1); layout = l }
            if response.hasSuffix("@" + l.rawValue) { response.removeLast(l.rawValue.count + 1); layout = l }
        }
        guard let cue = BreakCue(parsing: time) else {
            throw UsageError("malformed TIME '\(time)' in --native-break (use seconds, HH:MM:SS.mmm, start or end)")
        }
        guard !response.isEmpty else { throw UsageError("--native-break \(text) names no response") }
        return (cue, response, layout)
    }
}
