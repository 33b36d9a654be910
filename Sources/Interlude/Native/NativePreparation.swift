// Native ads made ready for a frame loop (the plain stitch's and the tag stitch's): layers, media, the report.
import Ads
import Foundation
import Playback
import Timing

/// A native ad made ready to show: its layer and, for a full-frame break, the media it plays.
struct PreparedNative: Sendable {
    /// `native-1`, … in request order.
    var id: String
    /// The native break.
    var native: NativeBreak
    /// The layer drawing its layout.
    var layer: NativeLayoutLayer
    /// Full frame: the media file the break plays (the video asset, or a generated still).
    var mediaPath: String?
    /// What the ad shows as media, for the report: the video's URL, or `generated still` (full frame).
    var mediaLabel: String?
    /// An L-bar's duration when it is not the template's (its video's).
    var plannedDuration: MediaTime? {
        if case .content(let from, let to) = layer.placement { return to - from }
        return nil
    }

    /// Content time of the cue; nil for a post-roll (`end`).
    var cueTime: MediaTime? { native.position.contentTime }

    /// Where it showed, for the report.
    var placement: NativePlacement {
        let range = layer.shownRange
        return NativePlacement(id: id, layout: native.layout.rawValue, formatID: native.ad.formatID,
                               firstFrame: range?.first.seconds, lastFrame: range?.last.seconds, frames: layer.framesDrawn,
                               impressionStreamTime: layer.impressionStreamTime?.seconds,
                               impressionURLs: native.ad.firedTrackers.filter { $0.event == "impression" }.map(\.url),
                               media: mediaLabel)
    }

    /// A warning when an L-bar showed for less than planned (the content ended, or its cue lies past it).
    func shortfall(frameDuration: MediaTime) -> String? {
        guard native.layout == .lBar else { return nil }
        let planned = plannedDuration ?? native.template.duration ?? NativeStitcher.defaultDuration
        let shown = frameDuration * Int64(layer.framesDrawn)
        guard planned - shown > frameDuration else { return nil }
        return "\(id): the L-bar showed \(shown.seconds) s of its \(planned.seconds) s (the content ended or the cue lies past it)"
    }
}

extension PreparedNative {
    /// The full-frame native ads of `natives` as breaks for a `BreakRunner`, in order: each one's
    /// media measured (once per file in `measurements`), its layout shown while the media plays.
    /// An ad whose media cannot play is left out, with the line that says why; an L-bar (no
    /// media) is no break.
    static func runnerBreaks(_ natives: some Sequence<PreparedNative>, _ measurements: inout AdMeasurements)
        -> (breaks: [RunnerBreak], leftOut: [String]) {
        var breaks: [RunnerBreak] = [], leftOut: [String] = []
        for n in natives {
            guard let path = n.mediaPath else { continue }
            let media: AdMedia
            do { media = try measurements.measure(path) } catch {
                leftOut.append("\(n.id): its media \(n.mediaLabel ?? path) cannot play: \(error.message); left out")
                continue
            }
            let layer = n.layer
            breaks.append(RunnerBreak(id: n.id, position: n.native.position,
                                      ads: [.init(media: media, willPlay: { layer.activate() }, didPlay: { layer.deactivate() })]))
        }
        return (breaks, leftOut)
    }
}

/// Prepares native breaks: fetches each full-frame ad's video (falling back to its image layout
/// when the video cannot be fetched), writes a still for image formats, builds the layers.
enum NativePreparation {
    /// The prepared ads, in request order, and warnings (a video asset that could not be fetched).
    /// Throws `StitchFailure` for an L-bar that cannot be placed or a still that cannot be written.
    @MainActor static func prepare(_ natives: [NativeBreak], cache: AdMediaCache, videoTimeout: Double,
                                   work: URL) async throws -> (prepared: [PreparedNative], warnings: [String]) {
        var out: [PreparedNative] = [], warnings: [String] = []
        var measurements = AdMeasurements(threads: 0)
        for (i, n) in natives.enumerated() {
            let id = "native-\(i + 1)"
            switch n.layout {
            case .fullFrame:
                var media: String?, label: String?
                if let why = n.ad.mediaContent.videoProblem { warnings.append("\(id): \(why); the image layout is shown instead") }
                if let video = n.ad.mediaContent.videoURL {
                    do {
                        media = try await cache.localPath(for: video, timeout: videoTimeout, allowLocal: n.ad.responseURL?.isFileURL ?? true)
                        label = video
                    } catch {
                        warnings.append("\(id): video asset \(video): \(error); the image layout is shown instead")
                    }
                }
                let useVideo = media != nil
                if media == nil {
                    let still = work.appendingPathComponent("\(id)-still.mp4")
                    do { try NativeStillClip.write(to: still, duration: n.template.duration ?? NativeStitcher.defaultDuration) } catch {
                        throw StitchFailure.encodingFailed("\(id): cannot make the still of the native break: \(error)")
                    }
                    media = still.path
                    label = "generated still"
                }
                let layer = NativeLayoutLayer(snapshot: NativeLayoutSnapshot(n.template.populatedView(with: n.ad, allowVideo: useVideo)),
                                              placement: .adFrames, ad: n.ad)
                out.append(PreparedNative(id: id, native: n, layer: layer, mediaPath: media, mediaLabel: label))
            case .lBar:
                guard n.template.hasContentWindow else {
                    throw StitchFailure.invalidOption("\(id): the L-bar template has no content view")
                }
                let from: MediaTime
                switch n.position {
                case .preroll: from = .zero
                case .midroll(let t): from = t
                case .postroll: throw StitchFailure.invalidOption("\(id): an L-bar needs content to play around: not at the end")
                }
                // With a video asset the L-bar shows the video in its media window for the video's
                // measured duration; else (or when the video cannot be fetched or opened) the image
                // layout for the template's duration.
                var video: (path: String, label: String, duration: MediaTime)?
                if let why = n.ad.mediaContent.videoProblem { warnings.append("\(id): \(why); the image layout is shown instead") }
                if let url = n.ad.mediaContent.videoURL {
                    do {
                        let path = try await cache.localPath(for: url, timeout: videoTimeout, allowLocal: n.ad.responseURL?.isFileURL ?? true)
                        video = (path, url, try measurements.measure(path).duration)
                    } catch {
                        warnings.append("\(id): video asset \(url): \(error); the image layout is shown instead")
                    }
                }
                let duration = video?.duration ?? n.template.duration ?? NativeStitcher.defaultDuration
                let layer = NativeLayoutLayer(snapshot: NativeLayoutSnapshot(n.template.populatedView(with: n.ad, allowVideo: video != nil)),
                                              placement: .content(from: from, to: from + duration), ad: n.ad, videoPath: video?.path)
                out.append(PreparedNative(id: id, native: n, layer: layer, mediaPath: nil, mediaLabel: video?.label))
            }
        }
        return (out, warnings)
    }
}
