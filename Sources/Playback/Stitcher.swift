import Foundation
import Media
import Timing

/// Splices a fixed schedule of ad pods into content and writes the result.
///
/// It opens the content, measures every ad (an ad that cannot be opened or decoded is left out of
/// its pod and reported), then drives a `SpliceSession`: content up to each cue, the break's ads,
/// content again. Output goes to a temporary file beside the target that is renamed at the end,
/// so a failed stitch never leaves a partial file.
public final class Stitcher {
    /// What to stitch.
    public let request: StitchRequest
    /// Called for each event of the frame loop, on the stitching thread.
    public var onEvent: ((SpliceEvent) -> Void)?
    /// Called after each output frame with the stream time reached and the expected total.
    public var onProgress: ((MediaTime, MediaTime) -> Void)?

    /// Layers drawn on the output's frames (ad UI, overlays) and mixed into its audio.
    public let layers: [SurfaceLayer]

    /// Prepares a stitch; nothing is opened until `run()`.
    public init(request: StitchRequest, layers: [SurfaceLayer] = []) {
        self.request = request
        self.layers = layers
    }

    /// Runs the stitch; throws `StitchFailure` when no output could be made.
    public func run() throws -> StitchResult {
        let started = monotonicSeconds()
        var timings = StageTimings()
        let all = Stitcher.ordered(request.breaks)
        // double-box breaks do not pause content: layers over it, drawn while content plays
        let boxes = try all.filter { $0.doubleBox != nil }.map { b -> DoubleBoxLayer in
            guard let style = b.doubleBox, let cue = b.position.doubleBoxCue else {
                throw StitchFailure.invalidOption("double-box break \(b.id) at the end of the content: content must go on beside it")
            }
            return DoubleBoxLayer(breakId: b.id, cue: cue, style: style, threads: request.threads)
        }
        let session = try SpliceSession(request: request, layers: layers + boxes)
        let ordered = all.filter { $0.doubleBox == nil }
        for b in all {
            if case .time(let t) = b.position, t >= session.contentDuration {
                session.abort()
                throw StitchFailure.cuePastEnd(cue: t, duration: session.contentDuration)
            }
        }
        var issues: [StitchIssue] = []
        var measured: [String: Result<AdMedia, Error>] = [:]   // each media file is measured once
        let pods = ordered.map { b in
            b.ads.compactMap { url -> AdMedia? in
                let result = measured[url] ?? Result { try AdMediaProbe.measure(url, threads: request.threads) }
                measured[url] = result
                switch result {
                case .success(let media): return media
                case .failure(let error):
                    issues.append(StitchIssue(rejection: error, url: url, breakId: b.id))
                    return nil
                }
            }
        }
        do {
            try DoubleBoxLayer.configure(boxes, breaks: all, format: session.format, contentDuration: session.contentDuration,
                                         threads: request.threads, issues: &issues)
        } catch {
            session.abort()
            throw error
        }
        let period = session.format.frameDuration
        let adTotal = pods.joined().reduce(MediaTime.zero) { $0 + period * FrameSelection.frameCount(from: .zero, to: $1.duration, period: period) }
        let expectedTotal = session.contentDuration + adTotal
        timings.plan = monotonicSeconds() - started

        let emit = onEvent, progress = onProgress
        for box in boxes { box.onEvent = { emit?($0) } }
        session.onEvent = { event in
            emit?(event)
            switch event {
            case .contentProgress, .adProgress: progress?(session.streamTime, expectedTotal)
            default: break
            }
        }
        var placed: [PlacedBreak] = []
        do {
            var lastCue: MediaTime?
            var contentDone = false
            for (i, b) in ordered.enumerated() {
                var pausedAt = MediaTime.zero
                switch b.position {
                case .start: break
                case .time(let t):
                    if t != lastCue, !session.contentEnded { try session.playContent(until: t); lastCue = t }
                    pausedAt = t
                case .end:
                    if !contentDone { try session.playContent(until: nil); contentDone = true }
                    pausedAt = session.timelineMap.segments.last?.contentEnd ?? .zero
                }
                session.beginBreak(id: b.id, contentTime: pausedAt)
                let start = session.streamTime
                var ads: [PlacedAd] = []
                for (j, media) in pods[i].enumerated() {
                    do {
                        ads.append(try session.playAd(media, position: j + 1, totalAds: pods[i].count))
                    } catch {
                        issues.append(StitchIssue(code: 405, message: "ad media \(media.url) failed while splicing: \(SpliceSession.reason(error))",
                                                  mediaFile: media.url, breakId: b.id))
                    }
                }
                session.endBreak()
                placed.append(PlacedBreak(id: b.id, position: b.position, contentTime: pausedAt,
                                          resumeContentTime: session.nextContentTime, streamTime: start,
                                          duration: session.streamTime - start, ads: ads))
            }
            if !contentDone { try session.playContent(until: nil) }
            for box in boxes { if let b = box.packagedBreak { session.markOverlappingBreak(b) } }   // HLS date ranges, MP4 chapters
            try session.finish()
        } catch {
            session.abort()
            if let f = error as? StitchFailure { throw f }
            throw StitchFailure.encodingFailed("stitch failed: \(SpliceSession.reason(error))")
        }
        timings.encode = session.encodeSeconds
        timings.mux = session.muxSeconds
        timings.total = monotonicSeconds() - started
        timings.decode = max(0, timings.total - timings.plan - session.encoderWaitSeconds)
        var content = session.content
        content.duration = session.timelineMap.segments.last?.contentEnd ?? session.contentDuration
        var timeline = session.timelineMap
        for box in boxes {
            if let e = box.failure {
                issues.append(StitchIssue(code: 405, message: "double-box break \(box.breakId) ended early: \(SpliceSession.reason(e))", breakId: box.breakId))
            }
            guard let b = box.placedBreak(in: &timeline) else { continue }
            placed.append(b)
        }
        placed.sort { $0.streamTime < $1.streamTime }
        var result = StitchResult(content: content, output: session.outputSummary, format: session.format,
                            videoFrames: session.videoFrames, audioSamples: session.audioSamples, breaks: placed,
                            timeline: timeline, issues: issues, warnings: session.contentWarnings, timings: timings)
        result.smartRendering = session.smartRendering
        if !boxes.isEmpty, !layers.contains(where: \.drawsOnContent), result.smartRendering?.used == false {
            result.smartRendering?.reason = DoubleBoxLayer.smartRenderingRefusal   // the boxes, not overlays, turned copying off
        }
        return result
    }

    /// Breaks in play order: pre-rolls, mid-rolls by time, post-rolls; ties keep request order.
    public static func ordered(_ breaks: [AdBreakRequest]) -> [AdBreakRequest] {
        breaks.enumerated().sorted { a, b in
            let x = a.element.position.order, y = b.element.position.order
            return x.0 != y.0 ? x.0 < y.0 : (x.1 != y.1 ? x.1 < y.1 : a.offset < b.offset)
        }.map(\.element)
    }
}

extension StitchIssue {
    /// The issue for an ad that `AdMediaProbe` rejected.
    init(rejection error: Error, url: String, breakId: String?) {
        if let r = error as? AdMediaProbe.Rejection {
            self.init(code: r.code, message: r.message, mediaFile: url, breakId: breakId)
        } else {
            self.init(code: 405, message: "ad media \(url): \(error)", mediaFile: url, breakId: breakId)
        }
    }
}
