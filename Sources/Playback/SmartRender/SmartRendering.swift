import Foundation
import Media

/// Whether content packets are copied instead of re-encoded (`--smart`).
public enum SmartRendering: String, Sendable, CaseIterable {
    /// Copy when the content allows it, else re-encode everything and say why in the report.
    case auto
    /// Copy, or fail when the content does not allow it.
    case on
    /// Re-encode everything.
    case off
}

/// What smart rendering did in a stitch.
package struct SmartRenderingSummary: Sendable, Equatable, Codable {
    /// Whether content packets were copied.
    package var used: Bool
    /// Why it was not used (with `auto`), when it was not.
    package var reason: String?
    /// Content frames copied untouched.
    package var copiedFrames: Int
    /// Content frames re-encoded because a cue split their GOP.
    package var encodedContentFrames: Int
    /// AAC packets of the content's own audio copied instead of encoded (`ContentAudioCopy`);
    /// nil (left out of the report) when none was.
    package var copiedAudioPackets: Int? = nil
    /// AAC packets taken from the transcode cache's encoded audio runs instead of encoded
    /// (`AudioRunCache`); nil (left out of the report) when none was.
    package var cachedAudioPackets: Int? = nil
}

enum SmartRender {
    /// The content scan when smart rendering applies; nil (with the reason) when it does not and
    /// `auto` allows falling back; throws when `on` cannot be honoured.
    static func decide(_ request: StitchRequest, format: OutputFormat,
                       layersDrawOnContent: Bool = false) throws -> (scan: SmartContentScan?, reason: String?) {
        guard request.smart != .off else { return (nil, nil) }
        let refusal: String
        if request.container != .mp4 && request.container != .hls {
            // frame streams carry no encoded video: nothing to copy, nothing to report with `auto`
            guard request.smart == .on else { return (nil, nil) }
            refusal = "\(request.container.rawValue) output is a frame stream"
        } else if request.size != nil || request.frameRate != nil {
            refusal = "--size or --fps changes the content's picture"
        } else if layersDrawOnContent {
            refusal = "overlays are drawn on content frames (they are re-encoded)"
        } else {
            do {
                switch try SmartContentScan.scan(url: request.content, format: format) {
                case .success(let scan): return (scan, nil)
                case .failure(let r): refusal = r.reason
                }
            } catch {
                // e.g. a read error part-way: the full re-encode plays what can be read, with a warning
                refusal = "the content's packets cannot all be read: \(error)"
            }
        }
        if request.smart == .on { throw StitchFailure.invalidOption("--smart on: cannot copy the content: \(refusal)") }
        return (nil, refusal)
    }
}
