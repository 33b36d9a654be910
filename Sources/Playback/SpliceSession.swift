import Foundation
import Media
import Timing

/// One output stream being built, driven step by step: play content up to a cue, play an ad,
/// resume content, … then `finish()`. This is the engine surface an ad orchestrator drives
/// (`Stitcher` drives it from a fixed schedule; the IMA-style `AdsManager` from ad events).
///
/// It owns the content decoder, the encoders and the temporary output file; nothing is visible at
/// the output path until `finish()` renames the file into place. Not thread-safe: one thread
/// drives it (the frame loop is synchronous by design).
@_spi(Engine) public final class SpliceSession {
    /// The conformed output format.
    public let format: OutputFormat
    /// The content's duration as its container declares it.
    public let contentDuration: MediaTime
    /// Content facts for reports.
    public let content: MediaSummary
    /// Called for each frame-loop event.
    public var onEvent: ((SpliceEvent) -> Void)?

    private let request: StitchRequest
    private let source: MediaSource
    private let probe: Demuxer
    private let contentTimeline: ContentTimeline
    /// Smart rendering as decided from the request and the layers there at init (the keyframe
    /// scan, or why not); decided again when the output opens if a layer drawing on content
    /// frames was added since.
    private let plan: (scan: SmartContentScan?, reason: String?)
    /// The output file, opened when the first frame is written (`opened()`), so smart rendering
    /// is decided knowing every layer added before it: a layer that draws on content frames
    /// turns copying off there (`auto`, with the reason) or fails the stitch (`on`).
    private var open: OpenOutput?
    private struct OpenOutput {
        let sink: StitchOutput
        let smart: (content: SmartContent, output: SmartOutput)?
        /// How content reaches the output: decoded, or copied (`smart`).
        let feed: any ContentFeed
        let smartReason: String?
    }
    private var sink: StitchOutput? { open?.sink }
    private var smart: (content: SmartContent, output: SmartOutput)? { open?.smart }
    /// The transcode cache, opened when the first ad that can use it plays (smart rendering, no
    /// layers): a stitch whose ads carry layers never touches the cache's folder.
    private lazy var transcoding: AdTranscoding? = smart == nil ? nil : request.transcodeCache.flatMap {
        (try? AdTranscodeCache(directory: URL(fileURLWithPath: $0), maxBytes: request.transcodeCacheMaxBytes)).map(AdTranscoding.init)
    }
    private let temporary: String
    private let toStdout: Bool
    private var finished = false
    private var contentChapters = 0
    private var breakStart: (id: String, contentTime: MediaTime, stream: MediaTime, index: Int)?
    private var breakCount = 0
    private var endReported = false
    private let durationGuessed: Bool
    /// Output time the ads played so far exceed their measured durations by (under half a frame).
    private var adRounding = MediaTime.zero
    private(set) var timeline = TimelineMap()
    private(set) var warnings: [String] = []
    private var packagedBreaks: [PackagedBreak] = []   // for HLS markers
    private var packagedAds: [PackagedAd] = []
    private var chapters: [OutputChapter] = []   // MP4 chapters, written flattened at the end
    private let startDate = Date()
    private lazy var loudness = LoudnessNormalizer(mode: request.loudness, content: request.content, format: format)
    /// Content time of the last content frame shown (the true playhead); nil before the first.
    public private(set) var contentTime: MediaTime?
    /// Whether every content frame has been shown.
    public var contentEnded: Bool { open?.feed.ended ?? false }
    /// Content time of the next content frame to show, when one is held at a cue.
    public var nextContentTime: MediaTime? { open?.feed.nextContentTime }
    /// Whether content packets are being copied, and how many so far.
    public var smartRendering: SmartRenderingSummary? {
        guard request.smart != .off, request.container == .mp4 || request.container == .hls else { return nil }
        return SmartRenderingSummary(used: smart != nil, reason: open.map { $0.smartReason } ?? plan.reason, copiedFrames: smart?.content.copiedFrames ?? 0,
                                     encodedContentFrames: smart?.content.encodedFrames ?? 0)
    }

    /// The layers drawn on every frame written (ad UI, overlays, PiP windows) and mixed into the audio.
    public let layers: LayerStack
    /// Where every frame is composed and its audio mixed, then written to the output file (its one
    /// output, attached here): the frame loop presents into it.
    public let surface: RenderSurface

    /// Opens the content and reserves the output (a temporary file beside it, written from the
    /// first frame on). `request.breaks` is not used. `layers` are drawn on the frames: one that
    /// draws on content frames turns smart rendering off (with `auto`, the report says why; `on`
    /// is refused), and ads with layers are encoded rather than taken from the transcode cache
    /// (whose entries hold pictures without them).
    public convenience init(request: StitchRequest, layers: [SurfaceLayer] = []) throws {
        let stack = LayerStack()
        layers.forEach(stack.add)
        try self.init(request: request, layerStack: stack)
    }

    /// Opens the content and reserves the output, drawing the layers of `layerStack`: smart
    /// rendering is decided knowing those there when the first frame is written.
    public init(request: StitchRequest, layerStack: LayerStack) throws {
        self.request = request
        self.layers = layerStack
        toStdout = request.output == "-"
        if !toStdout {
            if request.container == .hls {
                try OutputTarget.validateFolder(request.output, overwrite: request.overwrite, role: "output")
            } else {
                try OutputTarget.validate(request.output, overwrite: request.overwrite, role: "output")
            }
        }
        if (request.container == .mp4 || request.container == .hls) && toStdout {
            throw StitchFailure.invalidOption("\(request.container.rawValue.uppercased()) cannot be written to standard output; use --format nut or y4m")
        }
        let probe: Demuxer
        do {
            probe = try Demuxer(url: request.content)
        } catch {
            throw StitchFailure.contentUnreadable("cannot read content \(request.content): \(SpliceSession.reason(error))")
        }
        guard let videoIndex = probe.bestStream(.video) else { throw StitchFailure.contentHasNoVideo(request.content) }
        let video = probe.streams[videoIndex]
        let audio = probe.bestStream(.audio).map { probe.streams[$0] }
        self.probe = probe
        let contentTimeline = ContentTimeline(probe)
        self.contentTimeline = contentTimeline
        guard let duration = contentTimeline.end(of: video) ?? probe.duration, duration > .zero else {
            throw StitchFailure.contentUnreadable("content \(request.content) has no duration")
        }
        contentDuration = duration
        durationGuessed = video.duration == nil && probe.durationIsGuessed
        format = try SpliceSession.outputFormat(request, video: video, audio: audio)
        content = MediaSummary(uri: request.content, duration: duration, width: video.displaySize.width,
                               height: video.displaySize.height, frameRate: video.frameRate,
                               sampleRate: audio?.sampleRate ?? 0, channels: audio?.channels ?? 0)
        do {
            source = try MediaSource(url: request.content, output: format, threads: request.threads, timeline: contentTimeline)
        } catch {
            throw StitchFailure.contentUnreadable("cannot read content \(request.content): \(SpliceSession.reason(error))")
        }
        plan = try SmartRender.decide(request, format: format, layersDrawOnContent: layerStack.drawsOnContent)
        temporary = toStdout ? "pipe:1" : try OutputTarget.createTemporary(for: request.output)
        surface = RenderSurface(format: format, layers: layerStack)
    }

    /// The output, opened now when nothing was written yet: copying content packets when the
    /// plan allows it and no layer draws on content frames, else encoding every frame. A failure
    /// here removes the temporary file.
    private func opened() throws -> OpenOutput {
        if let open { return open }
        guard !finished else { throw StitchFailure.invalidOption("the stitch of \(request.output) has already ended") }
        do {
            var plan = self.plan
            if plan.scan != nil, layers.drawsOnContent {
                plan = try SmartRender.decide(request, format: format, layersDrawOnContent: true)
            }
            var reason = plan.reason
            let settings = HLSOutput.encoderSettings(request, format: format)
            var copying: (content: SmartContent, output: SmartOutput)?
            if let scan = plan.scan {
                do {
                    let output = try SmartOutput(url: temporary, container: request.container, content: probe, scan: scan,
                                                 format: format, settings: settings)
                    copying = (try SmartContent(url: request.content, scan: scan, timeline: contentTimeline, output: format,
                                                threads: request.threads), output)
                } catch where request.smart == .auto {
                    reason = "the encoder cannot match the content: \(SpliceSession.reason(error))"
                }
            }
            let sink: StitchOutput = try copying?.output
                ?? EncodedOutput(url: temporary, container: request.container, format: format, settings: settings)
            let output = OpenOutput(sink: sink, smart: copying, feed: copying?.content ?? DecodedContent(source: source, output: format),
                                    smartReason: reason)
            open = output
            surface.attach(sink)
            return output
        } catch {
            abort()
            if let f = error as? StitchFailure { throw f }
            if case MediaError.unsupported(let s) = error { throw StitchFailure.invalidOption(s) }
            if case MediaError.ffmpeg(_, _, let message) = error {
                throw StitchFailure.outputUnwritable("cannot write \(request.output): \(message)")
            }
            throw StitchFailure.outputUnwritable("cannot write \(request.output): \(SpliceSession.reason(error))")
        }
    }

    deinit { if !finished { abort() } }

    /// Stream time reached: the end of the last frame written.
    public var streamTime: MediaTime { surface.streamTime }
    /// Video frames written.
    public var videoFrames: Int64 { surface.presentedFrames }
    /// Audio samples per channel written.
    public var audioSamples: Int64 { surface.presentedSamples }
    /// Seconds the encoding thread has spent encoding (it overlaps decoding).
    public var encodeSeconds: Double { sink?.encodeSeconds ?? 0 }
    /// Seconds the encoding thread has spent muxing.
    public var muxSeconds: Double { sink?.muxSeconds ?? 0 }
    /// Seconds the frame loop has waited for the encoder, including the final flush.
    public var encoderWaitSeconds: Double { (sink?.waitSeconds ?? 0) + finishSeconds }
    private var finishSeconds: Double = 0

    /// Plays content from where it stands up to the first frame at or after `cue` (which is held
    /// for the next call), or to its end when `cue` is nil. Returns the frames written.
    @discardableResult
    public func playContent(until cue: MediaTime?) throws -> Int64 {
        var resumed = false
        let period = format.frameDuration
        let onFrame: (MediaTime) -> Bool = { [self] pts in
            let at = surface.streamTime - period
            if !resumed { resumed = true; onEvent?(.contentResumed(contentTime: pts, streamTime: at)) }
            contentTime = pts
            onEvent?(.contentProgress(contentTime: pts, streamTime: at))
            return true
        }
        let outcome = try opened().feed.play(until: cue, surface: surface, onFrame: onFrame)
        if outcome.frames > 0 {
            contentChapters += 1
            chapters.append(OutputChapter(title: "Content \(contentChapters)", start: outcome.streamStart, end: outcome.streamEnd))
            timeline.segments.append(.init(contentStart: outcome.sourceStart, contentEnd: outcome.sourceEnd,
                                           streamStart: outcome.streamStart, streamEnd: outcome.streamEnd))
        }
        if contentEnded, !endReported {
            endReported = true
            if let e = source.reader.readError, !warnings.contains(where: { $0.hasPrefix("content ended early") }) {
                warnings.append("content ended early: \(e)")
            }
            try checkCompleteness(cue: cue)
            onEvent?(.contentEnded(contentTime: contentTime ?? .zero, streamTime: streamTime))
        }
        return outcome.frames
    }

    /// Content has ended: an error when it decoded more than a second short of its declared
    /// duration (unless `allowTruncated`, then a warning), or not at all, or before `cue`.
    private func checkCompleteness(cue: MediaTime?) throws {
        let real = timeline.segments.last?.contentEnd
        switch ContentCompleteness.judge(declared: contentDuration, real: real, guessed: durationGuessed) {
        case .complete: return
        case .empty:
            throw StitchFailure.contentTruncated("content \(request.content) has no decodable video frames (\(contentDuration.seconds) s declared)")
        case .truncated(let real):
            guard request.allowTruncated else {
                throw StitchFailure.contentTruncated("content \(request.content) decodes to \(real.seconds) s of its declared \(contentDuration.seconds) s (cut short or damaged); --allow-truncated stitches what there is")
            }
            if let cue, cue > real { throw StitchFailure.cuePastEnd(cue: cue, duration: real) }
            warnings.append("content truncated: \(real.seconds) s decodable of \(contentDuration.seconds) s declared; stitched as it is (--allow-truncated)")
        }
    }

    /// Marks the start of an ad break at the current stream time; content paused at `contentTime`.
    public func beginBreak(id: String, contentTime: MediaTime) {
        breakStart = (id, contentTime, streamTime, breakCount)
        onEvent?(.breakStarted(index: breakCount, id: id, contentTime: contentTime, streamTime: streamTime))
    }

    /// Marks the end of the current ad break.
    public func endBreak() {
        guard let b = breakStart else { return }
        timeline.breaks.append(.init(id: b.id, contentTime: b.contentTime, streamStart: b.stream, streamEnd: streamTime))
        packagedBreaks.append(PackagedBreak(id: b.id, start: b.stream, end: streamTime, ads: packagedAds))
        packagedAds = []
        onEvent?(.breakEnded(index: b.index, streamTime: streamTime))
        breakStart = nil
        breakCount += 1
    }

    /// Plays ad media (measured by `AdMediaProbe`) to its end as ad `position` of `totalAds` in the
    /// current break. `onFrame` sees each ad frame's ad time (from its first frame) and stream time,
    /// and returns false to stop the ad after that frame (skip). Throws when the media fails while
    /// playing; frames already written stay.
    public func playAd(_ media: AdMedia, position: Int, totalAds: Int,
                       onFrame: (MediaTime, MediaTime) -> Bool = { _, _ in true }) throws -> PlacedAd {
        let sink = try opened().sink
        let start = streamTime
        let t0 = monotonicSeconds(), wait0 = sink.waitSeconds
        let index = breakStart?.index ?? breakCount
        let period = format.frameDuration
        var skipped = false
        let handler: (MediaTime) -> Bool = { [self] pts in
            let at = surface.streamTime - period
            onEvent?(.adProgress(breakIndex: index, position: position, adTime: pts, streamTime: at))
            let go = onFrame(pts, at)
            if !go { skipped = true }
            return go
        }
        // Each ad rounds to whole output frames; the rounding is carried into the next ad's end
        // (as audio carries samples), so the ads' total stays within half a frame of their sum.
        let adjustment = .zero - adRounding
        let started: () -> Void = { [self] in onEvent?(.adStarted(breakIndex: index, position: position, totalAds: totalAds, media: media, streamTime: start)) }
        let outcome: SegmentOutcome, levelled: LoudnessNormalizer.Applied?
        var cacheUse: TranscodeCacheUse?
        if let smart, layers.all.isEmpty, let transcoding {
            (outcome, levelled, cacheUse) = try transcoding.play(
                media.url, output: smart.output, surface: surface, format: format, threads: request.threads,
                endAdjustment: adjustment, loudness: { [self] in try loudness.attach(to: $0, hasAudio: $1, url: media.url) }, started: started, onFrame: handler)
        } else {
            let ad = try MediaSource(url: media.url, output: format, threads: request.threads, policy: .adMedia)
            levelled = try loudness.attach(to: ad.audio, hasAudio: ad.hasAudio, url: media.url)
            started()
            let cursor = SegmentCursor(source: ad, output: format)
            cursor.endAdjustment = adjustment
            outcome = try cursor.play(until: nil, on: surface, isAd: true, onFrame: handler)
        }
        let duration = outcome.streamEnd - outcome.streamStart
        if !skipped { adRounding = adRounding + duration - media.duration }
        if let declared = media.declaredDuration, declared - media.duration > period {
            warnings.append("ad media \(media.url) is short: \(media.duration.seconds) s decodable of \(declared.seconds) s declared (VAST 202); played as measured")
        }
        onEvent?(.adEnded(breakIndex: index, position: position, duration: duration, streamTime: streamTime))
        chapters.append(OutputChapter(title: "Ad \(breakStart?.id ?? "") \(position)/\(totalAds): \((media.url as NSString).lastPathComponent)",
                                      start: start, end: streamTime))
        let name = (media.url as NSString).lastPathComponent
        packagedAds.append(PackagedAd(id: media.adID ?? name, mediaFile: media.url, start: start, end: streamTime))
        let busy = (monotonicSeconds() - t0) - (sink.waitSeconds - wait0)
        var placed = PlacedAd(mediaFile: media.url, streamTime: start, duration: duration, mediaDuration: media.duration,
                              podPosition: position, totalAds: totalAds, frames: outcome.frames, conformSeconds: max(0, busy))
        placed.loudness = levelled?.report
        placed.transcodeCache = cacheUse
        return placed
    }

    /// Flushes the encoders, writes the trailer and moves the output into place.
    public func finish() throws {
        guard !finished else { return }
        let sink = try opened().sink
        do {
            let t0 = monotonicSeconds()
            defer { finishSeconds += monotonicSeconds() - t0 }
            for c in OutputChapter.flattened(chapters) { sink.addChapter(title: c.title, start: c.start, end: c.end) }
            try sink.finish()
            // With `deferCommit` the finished file stays at `OutputTarget.temporaryPath(for:)` for the caller.
            if request.container == .hls {
                try HLSOutput.publish(mp4: temporary, to: request.output, duration: streamTime, breaks: packagedBreaks,
                                      settings: request.hls, startDate: startDate, overwrite: request.overwrite)
            } else if !toStdout, !request.deferCommit {
                try OutputTarget.commit([(temporary, request.output)], overwrite: request.overwrite)
            }
            finished = true
        } catch {
            abort()
            if let f = error as? StitchFailure { throw f }
            throw StitchFailure.encodingFailed("cannot finish \(request.output): \(SpliceSession.reason(error))")
        }
    }

    /// Gives up: removes the temporary output. Nothing appears at the output path.
    public func abort() {
        finished = true
        if let sink { surface.detach(sink) }
        if !toStdout { OutputTarget.discard(temporary) }
    }

    /// A summary of the output written so far.
    public var outputSummary: MediaSummary {
        MediaSummary(uri: request.output, duration: format.time(ofFrame: surface.presentedFrames), width: format.width,
                     height: format.height, frameRate: format.frameRate, sampleRate: format.sampleRate,
                     channels: request.container == .y4m ? 0 : format.channels)
    }

    /// The content ↔ stream mapping so far.
    public var timelineMap: TimelineMap { timeline }

    /// Whether content packets are copied (smart rendering in use): layers added now cannot draw
    /// on content frames. Before the first frame, whether they will be with the layers there now.
    public var copiesContent: Bool {
        if let open { return open.smart != nil }
        return plan.scan != nil && !layers.drawsOnContent
    }

    /// Records a break that overlapped content (a double box, `overlapsContent`) on the timeline,
    /// in stream order.
    public func recordOverlappingBreak(_ b: TimelineMap.Break) {
        timeline.breaks.append(b)
        timeline.breaks.sort { $0.streamStart < $1.streamStart }
    }
    /// Marks a double-box break that played over content (see `DoubleBoxLayer.packagedBreak`): a
    /// date range per ad in HLS, a chapter per ad in MP4 (content chapters are split around it).
    public func markOverlappingBreak(_ b: PackagedBreak) {
        packagedBreaks.append(b)
        chapters += b.ads.enumerated().map { i, ad in
            OutputChapter(title: "Ad \(b.id) \(i + 1)/\(b.ads.count) (double box): \((ad.mediaFile as NSString).lastPathComponent)",
                          start: ad.start, end: ad.end, overlapsContent: true)
        }
    }
    /// Content problems met so far.
    public var contentWarnings: [String] { warnings }

    static func outputFormat(_ request: StitchRequest, video: StreamInfo, audio: StreamInfo?) throws -> OutputFormat {
        try OutputFormat.forContent(video: video, audio: audio, size: request.size, frameRate: request.frameRate)
    }

    static func reason(_ error: Error) -> String {
        if let e = error as? MediaError { return e.description }
        if let e = error as? StitchFailure { return e.description }
        return "\(error)"
    }
}
