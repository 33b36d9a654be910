import Foundation
import Media
import Timing

/// Splices ad pods into content and writes the result: the engine's entry point.
///
/// It opens the content, measures every ad (an ad that cannot be opened or decoded is left out of
/// its pod and reported), then runs the frame loop segment by segment — content up to each cue,
/// the break's ads, content again — into one encoder. Output goes to a temporary file beside the
/// target that is renamed at the end, so a failed stitch never leaves a partial file.
public final class Stitcher {
    /// What to stitch.
    public let request: StitchRequest
    /// Called for each event of the frame loop, on the stitching thread.
    public var onEvent: ((SpliceEvent) -> Void)?
    /// Called after each output frame with the stream time reached and the expected total.
    public var onProgress: ((MediaTime, MediaTime) -> Void)?

    /// Prepares a stitch; nothing is opened until `run()`.
    public init(request: StitchRequest) {
        self.request = request
    }

    /// Runs the stitch; throws `StitchFailure` when no output could be made.
    public func run() throws -> StitchResult {
        let started = monotonicSeconds()
        var timings = StageTimings()
        let toStdout = request.output == "-"
        if !toStdout, !request.overwrite, FileManager.default.fileExists(atPath: request.output) {
            throw StitchFailure.outputExists(request.output)
        }
        if request.container == .mp4 && toStdout {
            throw StitchFailure.invalidOption("MP4 cannot be written to standard output; use --format nut or y4m")
        }

        // Content
        let probe: Demuxer
        do {
            probe = try Demuxer(url: request.content)
        } catch {
            throw StitchFailure.contentUnreadable("cannot read content \(request.content): \(Stitcher.reason(error))")
        }
        guard let videoIndex = probe.bestStream(.video) else { throw StitchFailure.contentHasNoVideo(request.content) }
        let contentVideo = probe.streams[videoIndex]
        let contentAudio = probe.bestStream(.audio).map { probe.streams[$0] }
        let format = try outputFormat(video: contentVideo, audio: contentAudio)
        let source: MediaSource
        do {
            source = try MediaSource(url: request.content, output: format, threads: request.threads)
        } catch {
            throw StitchFailure.contentUnreadable("cannot read content \(request.content): \(Stitcher.reason(error))")
        }
        let contentDuration = contentVideo.duration ?? probe.duration
        guard let contentDuration, contentDuration > .zero else {
            throw StitchFailure.contentUnreadable("content \(request.content) has no duration")
        }

        // Breaks: validate cues, measure ads.
        var issues: [StitchIssue] = []
        let ordered = request.breaks.enumerated().sorted { a, b in
            let x = a.element.position.order, y = b.element.position.order
            return x.0 != y.0 ? x.0 < y.0 : (x.1 != y.1 ? x.1 < y.1 : a.offset < b.offset)
        }.map(\.element)
        for b in ordered {
            if case .time(let t) = b.position, t >= contentDuration {
                throw StitchFailure.cuePastEnd(cue: t, duration: contentDuration)
            }
        }
        var pods: [[AdMedia]] = []
        for b in ordered {
            var pod: [AdMedia] = []
            for url in b.ads {
                do {
                    pod.append(try AdMediaProbe.measure(url, threads: request.threads))
                } catch let r as AdMediaProbe.Rejection {
                    issues.append(StitchIssue(code: r.code, message: r.message, mediaFile: url, breakId: b.id))
                } catch {
                    issues.append(StitchIssue(code: 405, message: "ad media \(url): \(error)", mediaFile: url, breakId: b.id))
                }
            }
            pods.append(pod)
        }

        let adTotal = pods.joined().reduce(MediaTime.zero) { $0 + format.frameDuration * FrameSelection.frameCount(from: .zero, to: $1.duration, period: format.frameDuration) }
        let expectedTotal = contentDuration + adTotal
        timings.plan = monotonicSeconds() - started

        // Output
        let target = toStdout ? "pipe:1" : request.output
        let temporary = toStdout ? target : Stitcher.temporaryPath(for: request.output)
        let sink: EncodedOutput
        do {
            sink = try EncodedOutput(url: temporary, container: request.container, format: format,
                                     settings: request.encoder)
        } catch {
            if !toStdout { try? FileManager.default.removeItem(atPath: temporary) }
            if case MediaError.unsupported(let s) = error { throw StitchFailure.invalidOption(s) }
            if case MediaError.ffmpeg(_, _, let message) = error {
                throw StitchFailure.outputUnwritable("cannot write \(request.output): \(message)")
            }
            throw StitchFailure.outputUnwritable("cannot write \(request.output): \(Stitcher.reason(error))")
        }
        do {
            var result = try loop(source: source, breaks: ordered, pods: pods, format: format, sink: sink,
                                  expectedTotal: expectedTotal)
            try sink.finish()
            if !toStdout {
                if FileManager.default.fileExists(atPath: request.output) { try FileManager.default.removeItem(atPath: request.output) }
                try FileManager.default.moveItem(atPath: temporary, toPath: request.output)
            }
            result.issues = issues + result.issues
            timings.encode = sink.encodeSeconds
            timings.total = monotonicSeconds() - started
            timings.decode = max(0, timings.total - timings.plan - timings.encode)
            result.timings = timings
            result.content = MediaSummary(uri: request.content, duration: result.content.duration,
                                          width: contentVideo.displaySize.width, height: contentVideo.displaySize.height,
                                          frameRate: contentVideo.frameRate, sampleRate: contentAudio?.sampleRate ?? 0,
                                          channels: contentAudio?.channels ?? 0)
            return result
        } catch {
            if !toStdout { try? FileManager.default.removeItem(atPath: temporary) }
            if let f = error as? StitchFailure { throw f }
            throw StitchFailure.encodingFailed("stitch failed: \(Stitcher.reason(error))")
        }
    }

    private func outputFormat(video: StreamInfo, audio: StreamInfo?) throws -> OutputFormat {
        var size = video.displaySize
        if let s = request.size { size = s }
        guard size.width >= 16, size.height >= 16, size.width <= 8192, size.height <= 8192 else {
            throw StitchFailure.invalidOption("output size \(size.width)x\(size.height) is out of range (16–8192)")
        }
        let rate = request.frameRate ?? video.frameRate?.standardFrameRate ?? Rational(30, 1)
        guard rate.doubleValue >= 1, rate.doubleValue <= 240 else {
            throw StitchFailure.invalidOption("output frame rate \(rate) is out of range (1–240)")
        }
        return OutputFormat(width: size.width & ~1, height: size.height & ~1, frameRate: rate,
                            sampleRate: audio.map { $0.sampleRate > 0 ? $0.sampleRate : 48000 } ?? 48000,
                            channels: audio.map { min(max($0.channels, 1), 8) } ?? 2)
    }

    // The frame loop proper: content to each cue, the break's ads, content again.
    private func loop(source: MediaSource, breaks: [AdBreakRequest], pods: [[AdMedia]], format: OutputFormat,
                      sink: EncodedOutput, expectedTotal: MediaTime) throws -> StitchResult {
        let splicer = Splicer(output: format, sink: sink)
        var timeline = TimelineMap()
        var placed: [PlacedBreak] = []
        var issues: [StitchIssue] = []
        var warnings: [String] = []
        var contentChapters = 0
        var contentTime = MediaTime.zero
        let emit = onEvent
        let progress = onProgress

        func playContent(until cue: MediaTime?) throws {
            var resumed = false
            let outcome = try splicer.play(source, until: cue) { pts in
                if !resumed { resumed = true; emit?(.contentResumed(contentTime: pts, streamTime: splicer.streamTime - format.frameDuration)) }
                contentTime = pts
                emit?(.contentProgress(contentTime: pts, streamTime: splicer.streamTime - format.frameDuration))
                progress?(splicer.streamTime, expectedTotal)
            }
            if outcome.frames > 0 {
                contentChapters += 1
                sink.addChapter(title: "Content \(contentChapters)", start: outcome.streamStart, end: outcome.streamEnd)
            }
            if outcome.frames > 0 {
                timeline.segments.append(.init(contentStart: outcome.sourceStart, contentEnd: outcome.sourceEnd,
                                               streamStart: outcome.streamStart, streamEnd: outcome.streamEnd))
            }
            if source.ended {
                if let e = source.reader.readError { warnings.append("content ended early: \(e)") }
                emit?(.contentEnded(contentTime: contentTime, streamTime: splicer.streamTime))
            }
        }

        func playBreak(_ index: Int, _ b: AdBreakRequest, pausedAt: MediaTime) throws {
            let start = splicer.streamTime
            emit?(.breakStarted(index: index, id: b.id, contentTime: pausedAt, streamTime: start))
            var ads: [PlacedAd] = []
            let pod = pods[index]
            for (j, media) in pod.enumerated() {
                let adStart = splicer.streamTime
                do {
                    let ad = try MediaSource(url: media.url, output: format, threads: request.threads)
                    emit?(.adStarted(breakIndex: index, position: j + 1, totalAds: pod.count, media: media, streamTime: adStart))
                    let outcome = try splicer.play(ad, until: nil) { pts in
                        emit?(.adProgress(breakIndex: index, position: j + 1, adTime: pts, streamTime: splicer.streamTime - format.frameDuration))
                        progress?(splicer.streamTime, expectedTotal)
                    }
                    let duration = outcome.streamEnd - outcome.streamStart
                    emit?(.adEnded(breakIndex: index, position: j + 1, duration: duration, streamTime: splicer.streamTime))
                    ads.append(PlacedAd(mediaFile: media.url, streamTime: adStart, duration: duration,
                                        mediaDuration: media.duration, podPosition: j + 1, totalAds: pod.count,
                                        frames: outcome.frames))
                } catch {
                    issues.append(StitchIssue(code: 405, message: "ad media \(media.url) failed while splicing: \(Stitcher.reason(error))",
                                              mediaFile: media.url, breakId: b.id))
                }
                sink.addChapter(title: "Ad \(b.id) \(j + 1)/\(pod.count): \((media.url as NSString).lastPathComponent)",
                                start: adStart, end: splicer.streamTime)
            }
            let end = splicer.streamTime
            emit?(.breakEnded(index: index, streamTime: end))
            timeline.breaks.append(.init(id: b.id, contentTime: pausedAt, streamStart: start, streamEnd: end))
            placed.append(PlacedBreak(id: b.id, position: b.position, contentTime: pausedAt, resumeContentTime: nil,
                                      streamTime: start, duration: end - start, ads: ads))
        }

        var lastCue: MediaTime? = nil
        var contentDone = false
        for (i, b) in breaks.enumerated() {
            switch b.position {
            case .start:
                try playBreak(i, b, pausedAt: .zero)
            case .time(let t):
                if t != lastCue, !source.ended { try playContent(until: t); lastCue = t }
                try playBreak(i, b, pausedAt: t)
            case .end:
                if !contentDone { try playContent(until: nil); contentDone = true }
                try playBreak(i, b, pausedAt: contentTime)
            }
            if placed.count >= 1, let p = source.pending?.pts { placed[placed.count - 1].resumeContentTime = p }
        }
        if !contentDone { try playContent(until: nil) }
        let contentEnd = timeline.segments.last?.contentEnd ?? .zero
        for i in placed.indices where placed[i].position == .end { placed[i].contentTime = contentEnd }

        let outputDuration = format.time(ofFrame: splicer.framesOut)
        let summary = MediaSummary(uri: request.output, duration: outputDuration, width: format.width, height: format.height,
                                   frameRate: format.frameRate, sampleRate: format.sampleRate, channels: request.container == .y4m ? 0 : format.channels)
        return StitchResult(content: MediaSummary(uri: request.content, duration: contentEnd, width: 0, height: 0,
                                                  frameRate: nil, sampleRate: 0, channels: 0),
                            output: summary, format: format, videoFrames: splicer.framesOut,
                            audioSamples: splicer.samplesOut, breaks: placed, timeline: timeline,
                            issues: issues, warnings: warnings, timings: StageTimings())
    }

    static func temporaryPath(for output: String) -> String {
        let url = URL(fileURLWithPath: output)
        let dir = url.deletingLastPathComponent().path
        return dir + "/." + url.lastPathComponent + ".\(getpid()).interlude-tmp"
    }

    static func reason(_ error: Error) -> String {
        if let e = error as? MediaError { return e.description }
        if let e = error as? StitchFailure { return e.description }
        return "\(error)"
    }
}
