// Native responses as the jobs load them (`--native-break`), and their lines in a job's summary:
// shared by `interlude play` (`PlayJob`) and `interlude stitch` (the Jobs module's `StitchJob`).
import Ads
import Foundation
import Playback

/// The `--native-break` responses loaded as native ads of `formats`; those that cannot be used
/// (hostile: from an ad server) are left out with an issue each.
@MainActor package func loadNativeResponses(_ breaks: [(position: BreakCue, response: String, layout: NativeBreak.Layout)],
                                            formats: [NativeFormatFile], settings: NativeLoadSettings) async -> ([NativeBreak], [StitchIssue]) {
    var out: [NativeBreak] = [], issues: [StitchIssue] = []
    for b in breaks {
        do throws(NativeAdError) {
            let (response, url) = try await NativeResponseResolver.load(b.response, settings: settings)
            out.append(try await NativeBreak.make(position: b.position, response: response, responseURL: url, layout: b.layout,
                                                  formats: formats, settings: settings))
        } catch {
            issues.append(nativeIssue(error, b.response))
        }
    }
    return (out, issues)
}

/// A native ad left out, as a stitch issue (100 invalid, 301 fetch failed, 303 no fill, 900 bad request).
package func nativeIssue(_ e: NativeAdError, _ source: String) -> StitchIssue {
    let code: Int
    switch e.code {
    case .receivedInvalidResponse: code = 100
    case .networkError: code = 301
    case .noFill: code = 303
    case .invalidRequest: code = 900
    }
    return StitchIssue(code: code, message: "native ad \(source) left out: \(e.message)", mediaFile: nil, breakId: nil)
}

/// A summary line per native ad.
package func nativeSummaryLines(_ natives: [NativePlacement]) -> [String] {
    natives.map { n in
        let shown = n.firstFrame.map { String(format: "%.3f s – %.3f s", $0, n.lastFrame ?? $0) } ?? "never shown"
        return "  native \(n.id) (\(n.layout), format \(n.formatID)): stream \(shown), \(n.frames) frames"
            + (n.impressionStreamTime.map { String(format: "; impression at %.3f s (%d pixels)", $0, n.impressionURLs.count) } ?? "")
    }
}
