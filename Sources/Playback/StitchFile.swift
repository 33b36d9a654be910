import Files
import Foundation
import Media
import Threads
import Threads
import Timing

/// The stitch file: the output a stitching player's surface writes (`Player(stitching:)`), and
/// after `close()` the facts of the stitch (format, frames, timeline, smart rendering, warnings,
/// timings).
///
/// It opens when the first frame is written (so smart rendering is decided knowing every layer
/// added before it): content packets copied into a `SmartOutput` where the content and the layers
/// allow it, else every frame encoded (`EncodedOutput`); that sink is what is attached to the
/// surface. Around it, what only a file needs: ads from the transcode cache, loudness, the rounding
/// carried from ad to ad, the content's completeness, chapters, HLS markers, and the commit that
/// moves the temporary file into place (nothing is visible at the output path before). The
/// player's frame loop calls it on its thread only (what it changes is a `LoopBound` of the loop's
/// thread, asserted in debug builds); its facts are read once the loop has ended.
package final class StitchFile {
    /// The conformed output format.
    public let format: OutputFormat
    /// The content's duration as its container declares it.
    public let contentDuration: MediaTime
    /// Content facts for reports.
    public let content: MediaSummary

    private let request: StitchRequest
    /// The content decoded (the loop's feed unless packets are copied).
    let contentSource: MediaSource
    private let probe: Demuxer
    private let contentTimeline: ContentTimeline
    /// Smart rendering as decided from the request and the layers there at init (the keyframe
    /// scan, or why not); decided again when the output opens if a layer drawing on content
    /// frames was added since.
    private let plan: (scan: SmartContentScan?, reason: String?)
    /// Where the file stands: reserved (nothing written yet), written to, or done (finished or
    /// removed). It opens when the first frame is written (`opened()`), so smart rendering is
    /// decided knowing every layer added before it: a layer that draws on content frames turns
    /// copying off there (`auto`, with the reason) or fails the stitch (`on`).
    private var phase: Phase { get { writing.value.phase } set { writing.value.phase = newValue } }
    private enum Phase { case reserved, writing, done }
    /// The output once opened.
    private var output: OpenOutput? { get { writing.value.output } set { writing.value.output = newValue } }
    private struct OpenOutput {
        let sink: StitchOutput
        /// Content copied (smart rendering), or nil: every frame encoded.
        let smart: (content: SmartContent, output: SmartOutput)?
        let smartReason: String?
    }
    private var sink: StitchOutput? { output?.sink }
    private var smart: (content: SmartContent, output: SmartOutput)? { output?.smart }
    /// The transcode cache, opened when the first ad that can use it plays (smart rendering, no
    /// layers): a stitch whose ads carry layers never touches the cache's folder.
    private var transcoding: AdTranscoding? {
        if let opened = writing.value.transcoding { return opened }
        let t = smart == nil ? nil : request.transcodeCache.flatMap {
            (try? AdTranscodeCache(directory: URL(fileURLWithPath: $0), maxBytes: request.transcodeCacheMaxBytes)).map(AdTranscoding.init)
        }
        writing.value.transcoding = .some(t)
        return t
    }
    private let temporary: String
    private let toStdout: Bool
    private let durationGuessed: Bool
    /// Output time the ads played so far exceed their measured durations by (under half a frame).
    private var adRounding: MediaTime { get { writing.value.adRounding } set { writing.value.adRounding = newValue } }
    private(set) var warnings: [String] { get { writing.value.warnings } _modify { yield &writing.value.warnings } }
    private var packagedBreaks: [PackagedBreak] { get { writing.value.packagedBreaks } _modify { yield &writing.value.packagedBreaks } }
    private var packagedAds: [PackagedAd] { get { writing.value.packagedAds } _modify { yield &writing.value.packagedAds } }
    /// Ad chapters and double-box chapters; content chapters are the timeline's segments.
    private var chapters: [OutputChapter] { get { writing.value.chapters } _modify { yield &writing.value.chapters } }
    private let startDate = Date()
    private var loudness: LoudnessNormalizer {
        if let l = writing.value.loudness { return l }
        let l = LoudnessNormalizer(mode: request.loudness, content: request.content, format: format)
        writing.value.loudness = l
        return l
    }

    /// What writing the file changes: the frame loop's thread owns it while the loop runs (it
    /// alone writes the file), init sets it up before, the app reads the facts after.
    private struct Writing {
        var phase = Phase.reserved
        var output: OpenOutput?
        /// The transcode cache once asked for (`.some(nil)`: none for this stitch).
        var transcoding: AdTranscoding??
        var adRounding = MediaTime.zero
        var warnings: [String] = []
        var packagedBreaks: [PackagedBreak] = []   // for HLS markers
        var packagedAds: [PackagedAd] = []
        var chapters: [OutputChapter] = []
        var loudness: LoudnessNormalizer?
        var finishSeconds: Double = 0
    }
    private let writing: LoopBound<Writing>
    /// Whether content packets are being copied, and how many so far.
    public var smartRendering: SmartRenderingSummary? {
        guard request.smart != .off, request.container == .mp4 || request.container == .hls else { return nil }
        return SmartRenderingSummary(used: smart != nil, reason: output.map { $0.smartReason } ?? plan.reason, copiedFrames: smart?.content.copiedFrames ?? 0,
                                     encodedContentFrames: smart?.content.encodedFrames ?? 0,
                                     copiedAudioPackets: smart.map { $0.content.copiedAudioPackets }.flatMap { $0 > 0 ? $0 : nil },
                                     cachedAudioPackets: smart.map { $0.output.reusedAudioPackets }.flatMap { $0 > 0 ? $0 : nil })
    }

    /// The layers drawn on every frame written (ad UI, overlays, PiP windows) and mixed into the audio.
    public let layers: LayerStack
    /// Where every frame is composed and its audio mixed, then written to the file's sink
    /// (attached when the file opens): the frame loop presents into it.
    public let surface: RenderSurface

    /// Opens the content and reserves the output (a temporary file beside it, written from the
    /// first frame on), drawing the layers of `layerStack`: one that draws on content frames when
    /// the first frame is written turns smart rendering off (with `auto`, the report says why;
    /// `on` is refused), and ads with layers are encoded rather than taken from the transcode
    /// cache (whose entries hold pictures without them). `request.breaks` is not used.
    init(request: StitchRequest, layerStack: LayerStack, owner: ThreadOwner) throws {
        writing = LoopBound(Writing(), owner: owner, name: "the stitch file's writing")
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
            probe = try Demuxer(url: request.content, policy: request.contentIsAdMedia ? .adMedia : .trusted)
        } catch {
            throw StitchFailure.contentUnreadable("cannot read content \(request.content): \(StitchFile.reason(error))")
        }
        guard let videoIndex = probe.bestStream(.video) else { throw StitchFailure.contentHasNoVideo(request.content) }
        let video = probe.streams[videoIndex]
        let audio = probe.bestStream(.audio).map { probe.streams[$0] }
        self.probe = probe
        // Ad media as content (a service's ad rendition) counts from its first video frame, as
        // an ad in a break does; content, as players count it (`ContentTimeline`).
        let contentTimeline = request.contentIsAdMedia ? ContentTimeline(zeroBased: false, earliest: video.startTime ?? .zero)
                                                       : ContentTimeline(probe)
        self.contentTimeline = contentTimeline
        guard let duration = contentTimeline.end(of: video) ?? probe.duration, duration > .zero else {
            throw StitchFailure.contentUnreadable("content \(request.content) has no duration")
        }
        contentDuration = duration
        durationGuessed = video.duration == nil && probe.durationIsGuessed
        var format = try OutputFormat.forContent(video: video, audio: audio, size: request.size, frameRate: request.frameRate)
        if let a = request.audio { format.sampleRate = a.sampleRate; format.channels = a.channels }
        self.format = format
        if request.size == nil, let w = OutputFormat.downscaleWarning(video: video, output: format) { writing.value.warnings.append(w) }
        content = MediaSummary(uri: request.content, duration: duration, width: video.displaySize.width,
                               height: video.displaySize.height, frameRate: video.frameRate,
                               sampleRate: audio?.sampleRate ?? 0, channels: audio?.channels ?? 0,
                               timelineOrigin: contentTimeline.reported)
        do {
            contentSource = try MediaSource(url: request.content, output: format, threads: request.threads,
                                            policy: request.contentIsAdMedia ? .adMedia : .trusted, timeline: contentTimeline)
        } catch {
            throw StitchFailure.contentUnreadable("cannot read content \(request.content): \(StitchFile.reason(error))")
        }
        plan = try SmartRender.decide(request, format: format, layersDrawOnContent: layerStack.drawsOnContent)
        temporary = toStdout ? "pipe:1" : try OutputTarget.createTemporary(for: request.output)
        surface = RenderSurface(format: format, layers: layerStack)
    }

    /// Opens the output before the first frame is written (later calls change nothing): copying
    /// content packets when the plan allows it and no layer draws on content frames, else
    /// encoding every frame. Returns how content then reaches the loop: its packets copied, or
    /// nil: decoded from `contentSource`. A failure here removes the temporary file.
    func open() throws -> SmartContent? { try opened().smart?.content }

    private func opened() throws -> OpenOutput {
        switch (phase, output) {
        case (.writing, let o?): return o
        case (.done, _): throw StitchFailure.invalidOption("the stitch of \(request.output) has already ended")
        default: break
        }
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
                                                 format: format, settings: settings, owner: writing.owner)
                    // encoded audio kept in the transcode cache and reused, as the ads' video (no layers)
                    if let folder = request.transcodeCache, layers.all.isEmpty,
                       let cache = try? AdTranscodeCache(directory: URL(fileURLWithPath: folder), maxBytes: request.transcodeCacheMaxBytes) {
                        output.keepAudioRuns(in: cache)
                    }
                    copying = (try SmartContent(url: request.content, scan: scan, timeline: contentTimeline, output: format,
                                                threads: request.threads), output)
                } catch where request.smart == .auto {
                    reason = "the encoder cannot match the content: \(StitchFile.reason(error))"
                }
            }
            let sink: StitchOutput = try copying?.output
                ?? EncodedOutput(url: temporary, container: request.container, format: format, settings: settings)
            let output = OpenOutput(sink: sink, smart: copying, smartReason: reason)
            self.output = output
            copyingDecided.withLock { $0 = copying != nil }
            phase = .writing
            surface.attach(sink)
            return output
        } catch {
            abort()
            if let f = error as? StitchFailure { throw f }
            if case MediaError.unsupported(let s) = error { throw StitchFailure.invalidOption(s) }
            if case MediaError.ffmpeg(_, _, let message) = error {
                throw StitchFailure.outputUnwritable("cannot write \(request.output): \(message)")
            }
            throw StitchFailure.outputUnwritable("cannot write \(request.output): \(StitchFile.reason(error))")
        }
    }

    deinit { if phase != .done { abort() } }

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
    private var finishSeconds: Double { get { writing.value.finishSeconds } set { writing.value.finishSeconds = newValue } }

    /// Content has ended (`readError`: the read error that ended it early, if any): a warning for
    /// that, and the completeness check (see `checkCompleteness`).
    func contentEnded(timeline: TimelineMap, cue: MediaTime?, readError: MediaError?) throws {
        if let e = readError, !warnings.contains(where: { $0.hasPrefix("content ended early") }) {
            warnings.append("content ended early: \(e)")
        }
        try checkCompleteness(timeline, cue: cue)
    }

    /// Content has ended: an error when it decoded more than a second short of its declared
    /// duration (unless `allowTruncated`, then a warning), or not at all, or before `cue`.
    private func checkCompleteness(_ timeline: TimelineMap, cue: MediaTime?) throws {
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

    /// Ad break `id` ended: its ads (since the last break ended) become an HLS marker.
    func breakEnded(id: String, start: MediaTime, end: MediaTime) {
        packagedBreaks.append(PackagedBreak(id: id, start: start, end: end, ads: packagedAds))
        packagedAds = []
    }

    /// Plays ad media (measured by `AdMediaProbe`) as ad `position` of `totalAds` in break
    /// `breakID`: `run` (the frame loop's one ad path) steps its frames from the feed given, its
    /// packets from the transcode cache when the file copies content and no layer is drawn, else
    /// decoded with the rounding carried from the ads before it; its loudness is levelled. The ad
    /// then gets its chapter and HLS marker and is placed. Throws when the media fails while
    /// playing; frames already written stay.
    func playAd(_ media: AdMedia, position: Int, totalAds: Int, breakID: String?,
                run: (any Feed) throws -> AdRun) throws -> (PlacedAd, AdRun) {
        let sink = try opened().sink
        let start = streamTime
        let t0 = monotonicSeconds(), wait0 = sink.waitSeconds
        // Each ad rounds to whole output frames; the rounding is carried into the next ad's end
        // (as audio carries samples), so the ads' total stays within half a frame of their sum.
        let adjustment = .zero - adRounding
        let ran: AdRun, levelled: LoudnessNormalizer.Applied?
        var cacheUse: TranscodeCacheUse?
        if let smart, layers.all.isEmpty, let transcoding {
            (ran, levelled, cacheUse) = try transcoding.play(
                media.url, output: smart.output, surface: surface, threads: request.threads, endAdjustment: adjustment,
                loudness: { [self] in try loudness.attach(to: $0, hasAudio: $1, url: media.url) }, run: run)
        } else {
            let ad = try MediaSource(url: media.url, output: format, threads: request.threads, policy: .adMedia)
            levelled = try loudness.attach(to: ad.audio, hasAudio: ad.hasAudio, url: media.url)
            ran = try run(DecodedFeed(source: ad, output: format, isAd: true, endAdjustment: adjustment))
        }
        let duration = ran.outcome.streamEnd - ran.outcome.streamStart
        if ran.end == .playedOut { adRounding = adRounding + duration - media.duration }
        if let declared = media.declaredDuration, declared - media.duration > format.frameDuration {
            warnings.append("ad media \(media.url) is short: \(media.duration.seconds) s decodable of \(declared.seconds) s declared (VAST 202); played as measured")
        }
        chapters.append(OutputChapter(title: "Ad \(breakID ?? "") \(position)/\(totalAds): \((media.url as NSString).lastPathComponent)",
                                      start: start, end: streamTime))
        let name = (media.url as NSString).lastPathComponent
        packagedAds.append(PackagedAd(id: media.adID ?? name, mediaFile: media.url, start: start, end: streamTime))
        let busy = (monotonicSeconds() - t0) - (sink.waitSeconds - wait0)
        var placed = PlacedAd(mediaFile: media.url, streamTime: start, duration: duration, mediaDuration: media.duration,
                              podPosition: position, totalAds: totalAds, frames: ran.outcome.frames, conformSeconds: max(0, busy))
        placed.loudness = levelled?.report
        placed.transcodeCache = cacheUse
        return (placed, ran)
    }

    /// Flushes the encoders, writes the chapters (one per content segment of `timeline`, one per
    /// ad) and the trailer, and moves the output into place. `timeline` is the stitch's.
    func finish(timeline: TimelineMap) throws {
        timelineMap = timeline
        if phase == .done { return }
        let sink = try opened().sink
        do {
            let t0 = monotonicSeconds()
            defer { finishSeconds += monotonicSeconds() - t0 }
            let content = timeline.segments.enumerated().map { i, s in
                OutputChapter(title: "Content \(i + 1)", start: s.streamStart, end: s.streamEnd)
            }
            let written = OutputChapter.flattened(OutputChapter.inStreamOrder(content + chapters))
            for c in written { sink.addChapter(title: c.title, start: c.start, end: c.end) }
            try sink.finish()
            // the content's other languages: tracks of the MP4, and of an HLS package made from it
            // (CMAF: tracks; MPEG-TS: audio renditions, `TSAudioRenditions`)
            if !toStdout, request.container == .mp4 || request.container == .hls {
                keepOtherAudioTracks(timeline, chapters: written)
            }
            // With `deferCommit` the finished file stays at `OutputTarget.temporaryPath(for:)` for the caller.
            if request.container == .hls {
                try HLSOutput.publish(mp4: temporary, to: request.output, duration: streamTime, breaks: packagedBreaks,
                                      settings: request.hls, startDate: startDate, overwrite: request.overwrite)
            } else if !toStdout, !request.deferCommit {
                try OutputTarget.commit([(temporary, request.output)], overwrite: request.overwrite)
            }
            phase = .done
        } catch {
            abort()
            if let f = error as? StitchFailure { throw f }
            throw StitchFailure.encodingFailed("cannot finish \(request.output): \(StitchFile.reason(error))")
        }
    }

    /// The content's other audio streams made tracks of the finished MP4 (`ContentAudioTracks`),
    /// laid on `timeline` with the ads played; one that cannot be made leaves the file with the
    /// tracks it has, and a warning.
    private func keepOtherAudioTracks(_ timeline: TimelineMap, chapters: [OutputChapter]) {
        let policy: Demuxer.OpenPolicy = request.contentIsAdMedia ? .adMedia : .trusted
        var streams = ContentAudioTracks.streams(of: probe)
        guard !streams.others.isEmpty else { return }
        // each track decodes the content's sound again: a file of dozens of streams is not a catalogue's
        if streams.others.count > ContentAudioTracks.maxTracks {
            warnings.append("the content has \(streams.others.count + 1) audio tracks: the first \(ContentAudioTracks.maxTracks + 1) are kept")
            streams.others = Array(streams.others.prefix(ContentAudioTracks.maxTracks))
        }
        let ads = packagedBreaks.flatMap(\.ads) + packagedAds
        let origin = smart?.content.audioOrigin ?? contentSource.audio.origin
        let tracks = ContentAudioTracks(spans: ContentAudioTracks.spans(timeline: timeline, ads: ads), format: format,
                                        total: audioSamples) { [self] url in
            // an ad's sound from its first picture, levelled as the main track's
            let ad = try MediaSource(url: url, output: format, threads: 1, policy: .adMedia)
            _ = try ad.nextFrame()
            _ = try loudness.attach(to: ad.audio, hasAudio: ad.hasAudio, url: url)
            return ad.audio
        }
        do {
            try tracks.add(to: URL(fileURLWithPath: temporary), streams: streams.others, mainLanguage: streams.main?.language,
                           content: request.content, policy: policy, origin: origin,
                           bitRate: request.encoder.audioBitRate, chapters: chapters.map { ($0.title, $0.start, $0.end) })
        } catch {
            warnings.append("the content's other audio tracks were not kept: \(StitchFile.reason(error))")
        }
    }

    /// Gives up: removes the temporary output. Nothing appears at the output path.
    func abort() {
        phase = .done
        if let sink { surface.detach(sink) }
        if !toStdout { TemporaryFiles.discard(temporary) }
    }

    /// A summary of the output written so far.
    public var outputSummary: MediaSummary {
        MediaSummary(uri: request.output, duration: format.time(ofFrame: surface.presentedFrames), width: format.width,
                     height: format.height, frameRate: format.frameRate, sampleRate: format.sampleRate,
                     channels: request.container == .y4m ? 0 : format.channels)
    }

    /// The content ↔ stream mapping of the stitch (the player's timeline once its loop has ended).
    public private(set) var timelineMap = TimelineMap()

    /// Whether content packets are copied (smart rendering in use): layers added now cannot draw
    /// on content frames. Before the first frame, whether they will be with the layers there now.
    public var copiesContent: Bool {
        if let decided = copyingDecided.withLock({ $0 }) { return decided }
        return plan.scan != nil && !layers.drawsOnContent
    }
    /// Whether the opened output copies content, published by the loop when it opens the file
    /// for any thread to read (nil before).
    private let copyingDecided = Locked<Bool?>(nil)

    /// Marks a double-box break that played over content (see `DoubleBoxLayer.packagedBreak`): a
    /// date range per ad in HLS, a chapter per ad in MP4 (content chapters are split around it).
    func markOverlappingBreak(_ b: PackagedBreak) {
        packagedBreaks.append(b)
        chapters += b.ads.enumerated().map { i, ad in
            OutputChapter(title: "Ad \(b.id) \(i + 1)/\(b.ads.count) (double box): \((ad.mediaFile as NSString).lastPathComponent)",
                          start: ad.start, end: ad.end, overlapsContent: true)
        }
    }
    /// Content problems met so far.
    public var contentWarnings: [String] { warnings }

    static func reason(_ error: Error) -> String {
        if let e = error as? MediaError { return e.description }
        if let e = error as? StitchFailure { return e.description }
        return "\(error)"
    }
}
