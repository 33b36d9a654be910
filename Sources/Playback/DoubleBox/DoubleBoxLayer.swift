import Draw
import Foundation
import Media
import Threads
import Timing

/// A double-box break drawn over content that keeps playing: from the first content frame at or
/// after `cue`, for as many output frames as its ads last, the layer decodes the ads itself (each
/// opened with the ad-media policy and conformed to the output format) and draws the ad frame
/// full size with the content (`SurfaceFrameInfo.original`) scaled into a window, or the reverse;
/// in `mixAudio` it scales the content by the style's gain and adds the ads' audio at full level.
///
/// Content stays the played track: every content frame appears once, in order, and content time
/// advances through the break. The layer records where the break and each ad landed
/// (`placement`), which the stitch turns into a break that overlaps content on the timeline.
/// What it decodes and draws is a `LoopBound` of the frame loop that draws it (`LoopOwnedLayer`):
/// the loop, or whoever runs while the loop waits for it (`ThreadOwner.lend`: an ad's end handler
/// queueing the next ad). Where the break landed (`placement`, `finished`, `failure`) is read from
/// any thread.
package final class DoubleBoxLayer: LoopOwnedLayer {
    /// The break's identifier.
    public let breakId: String
    /// Content time at which the break starts (the first content frame at or after it).
    public let cue: MediaTime
    /// The ads, measured, in play order (set by `configure`, or queued by `enqueue`).
    public private(set) var ads: [AdMedia] { get { showing.value.ads } _modify { yield &showing.value.ads } }
    /// How it shows.
    public let style: DoubleBoxStyle
    /// The output format (set by `configure`).
    private(set) var format: OutputFormat { get { outcome.withLock { $0.format } } set { outcome.withLock { $0.format = newValue } } }
    private let threads: Int
    private let window: PictureInPictureLayer
    /// The frame loop that draws the layer (`LoopOwnedLayer`).
    package let loopOwner: ThreadOwner

    /// What the drawing loop keeps: the ads and their handlers, the ad showing and its decoder,
    /// the audio plan, the scalers.
    private struct Showing {
        var ads: [AdMedia] = []
        var handlers: [(onFrame: FrameHandler?, done: EndHandler?)] = []
        var ended: Set<Int> = []
        var placedIndex = -1
        var outsideLock = false
        var pendingEnds = 0
        var adIndex = -1
        var source: MediaSource?
        var current: TimedFrame?
        var upcoming: TimedFrame?
        var adFrame: Int64 = 0
        var adFrames: Int64 = 0
        var adOrigin: MediaTime = .zero
        var audioPlan: [(start: Int64, end: Int64, track: AudioTrack)] = []
        var scratch: [[Float]] = []
        let scaler = FrameScaler()
        let adScaler = FrameScaler()
    }
    private let showing: LoopBound<Showing>

    /// What any thread may read: where the break landed and how it ended; the format.
    private struct Outcome {
        var placement: (firstFrame: Int64, streamTime: MediaTime, contentTime: MediaTime, ads: [AdPlacement])?
        var finished = false
        var failure: Error?
        var format = OutputFormat(width: 16, height: 16, frameRate: Rational(25, 1), sampleRate: 48000, channels: 2)
    }
    private let outcome = Locked(Outcome())

    /// Where one ad of the break landed.
    public struct AdPlacement: Sendable, Equatable {
        /// The media.
        public var media: AdMedia
        /// Output frame index of its first frame.
        public var firstFrame: Int64
        /// Output frames.
        public var frames: Int64
        /// Stream time of its first frame.
        public var streamTime: MediaTime
    }

    /// Where the break landed: its first output frame and content time, and its ads; nil until it starts.
    public private(set) var placement: (firstFrame: Int64, streamTime: MediaTime, contentTime: MediaTime, ads: [AdPlacement])? {
        get { outcome.withLock { $0.placement } }
        set { outcome.withLock { $0.placement = newValue } }
    }
    /// Whether every ad has been shown.
    public private(set) var finished: Bool { get { outcome.withLock { $0.finished } } set { outcome.withLock { $0.finished = newValue } } }
    /// An error met while decoding an ad (the break ends early, content goes on).
    public private(set) var failure: Error? { get { outcome.withLock { $0.failure } } set { outcome.withLock { $0.failure = newValue } } }
    /// Hears the break start and end (`doubleBoxStarted`, `doubleBoxEnded`), on the frame loop.
    public var onEvent: ((SpliceEvent) -> Void)?
    /// Where the ads' frame and end handlers run. nil (a stitch): at once, while the layer draws.
    /// Set (the live player: `RenderSurface.afterPresenting`): each call is handed over and runs
    /// once the frame is presented, outside the surface's lock, so a handler may wait for the
    /// app's main queue; an ad's end is then reported right after its last frame (so the next
    /// ad can be queued before the following frame), and a handler's false ends the ad after
    /// that frame, as it does at once.
    public var deferCall: ((@escaping () -> Void) -> Void)?

    /// Called for each frame of an ad with its ad time and stream time; false ends the ad there.
    public typealias FrameHandler = (MediaTime, MediaTime) -> Bool
    /// Called once when an ad has shown its last frame, with where it landed.
    public typealias EndHandler = (AdPlacement) -> Void
    private var handlers: [(onFrame: FrameHandler?, done: EndHandler?)] { get { showing.value.handlers } _modify { yield &showing.value.handlers } }
    /// Ads whose end handler has run.
    private var ended: Set<Int> { get { showing.value.ended } _modify { yield &showing.value.ended } }
    /// The ad whose placement is the last of `placement.ads`.
    private var placedIndex: Int { get { showing.value.placedIndex } _modify { yield &showing.value.placedIndex } }
    /// Handlers are being run outside the surface's lock (with `deferCall`).
    private var outsideLock: Bool { get { showing.value.outsideLock } _modify { yield &showing.value.outsideLock } }
    /// End handlers handed to `deferCall` and not run yet: the next ad may still be queued by them.
    private var pendingEnds: Int { get { showing.value.pendingEnds } _modify { yield &showing.value.pendingEnds } }

    // the ad now showing
    private var adIndex: Int { get { showing.value.adIndex } _modify { yield &showing.value.adIndex } }
    private var source: MediaSource? { get { showing.value.source } _modify { yield &showing.value.source } }
    private var current: TimedFrame? { get { showing.value.current } _modify { yield &showing.value.current } }
    private var upcoming: TimedFrame? { get { showing.value.upcoming } _modify { yield &showing.value.upcoming } }
    private var adFrame: Int64 { get { showing.value.adFrame } _modify { yield &showing.value.adFrame } }
    private var adFrames: Int64 { get { showing.value.adFrames } _modify { yield &showing.value.adFrames } }
    private var adOrigin: MediaTime { get { showing.value.adOrigin } _modify { yield &showing.value.adOrigin } }
    // audio: stream sample where each placed ad starts, and its track
    private var audioPlan: [(start: Int64, end: Int64, track: AudioTrack)] { get { showing.value.audioPlan } _modify { yield &showing.value.audioPlan } }
    private var scratch: [[Float]] { get { showing.value.scratch } _modify { yield &showing.value.scratch } }

    /// A double-box break at content time `cue`; its ads and the output format come with
    /// `configure(ads:format:)`, before the first frame.
    public init(breakId: String, cue: MediaTime, style: DoubleBoxStyle, threads: Int = 0) {
        self.breakId = breakId
        self.cue = cue
        self.style = style
        self.threads = threads
        window = PictureInPictureLayer(corner: style.corner)
        let owner = ThreadOwner(name: "the frame loop drawing double-box break \(breakId)")
        loopOwner = owner
        showing = LoopBound(Showing(), owner: owner, name: "its ads and decoder")
    }

    /// A double-box break at content time `cue` playing the measured `ads` on output `format`.
    public convenience init(breakId: String, cue: MediaTime, ads: [AdMedia], style: DoubleBoxStyle, format: OutputFormat, threads: Int = 0) {
        self.init(breakId: breakId, cue: cue, style: style, threads: threads)
        configure(ads: ads, format: format)
    }

    /// Sets the ads (measured, in play order) and the output format.
    public func configure(ads: [AdMedia], format: OutputFormat) {
        self.ads = ads
        handlers = ads.map { _ in (nil, nil) }
        self.format = format
        scratch = Array(repeating: [], count: format.channels)
    }

    /// Ads given one at a time (an `AdsManager` playing a pod): each ad's end handler may
    /// `enqueue` the next; the break ends when, after an ad's end, none is queued.
    public func beginStreaming(format: OutputFormat) {
        configure(ads: [], format: format)
    }

    /// Adds an ad to play after those queued; `onFrame` hears each of its frames, `completion`
    /// its end (at once, with no frame, when the break has already ended).
    public func enqueue(_ media: AdMedia, onFrame: FrameHandler?, completion: EndHandler?) {
        guard !finished else {
            completion?(AdPlacement(media: media, firstFrame: 0, frames: 0, streamTime: .zero))
            return
        }
        ads.append(media)
        handlers.append((onFrame, completion))
    }


    /// The break's stream time: `plannedFrames` output frames.
    public var plannedDuration: MediaTime { format.time(ofFrame: plannedFrames) }

    /// Output frames the break lasts: each ad rounded to whole frames.
    public var plannedFrames: Int64 {
        ads.reduce(0) { $0 + FrameSelection.frameCount(from: .zero, to: $1.duration, period: format.frameDuration) }
    }

    /// The window's rectangle on the output picture.
    public var windowRect: PixelRect { window.windowRect(width: format.width, height: format.height) }

    /// The layer draws on content frames.
    public var drawsOnContent: Bool { true }

    /// True on the content frames of the break (from the first at or after the cue) that show an ad frame; it opens
    /// each ad in turn and ends the break when no ad is left or one fails to decode.
    public func isVisible(_ frame: SurfaceFrameInfo) -> Bool {
        guard !finished, !frame.isAd else { return false }
        if placement == nil {
            guard let t = frame.sourceTime, t >= cue else { return false }
            placement = (frame.index, frame.streamTime, t, [])
            onEvent?(.doubleBoxStarted(id: breakId, style: style, contentTime: t, streamTime: frame.streamTime))
        }
        do {
            while current == nil || adFrame >= adFrames {
                finishAd()
                guard try openNextAd(at: frame) else {
                    // an end handler still to run (deferred) may queue the next ad: ask again next frame
                    if pendingEnds > 0 { return false }
                    end(index: frame.index, streamTime: frame.streamTime)
                    return false
                }
            }
            // the latest ad frame at or before this output frame's ad time
            let at = adOrigin + format.time(ofFrame: adFrame)
            while let u = upcoming, u.pts <= at {
                current = u
                upcoming = try source?.nextFrame()
            }
        } catch {
            failure = error
            end(index: frame.index, streamTime: frame.streamTime)
            return false
        }
        return true
    }

    /// The ad showing has shown its last frame: its end handler runs (it may queue the next ad).
    private func finishAd() {
        guard adIndex >= 0, placedIndex == adIndex, !ended.contains(adIndex), var shown = placement?.ads.last else { return }
        shown.frames = adFrame
        if var p = placement { p.ads[p.ads.count - 1] = shown; placement = p }
        report(adIndex, shown)
    }

    /// Runs ad `i`'s end handler once: at once, or handed to `deferCall` when the layer is
    /// composing (inside the surface's lock: an ad with no frame, a decode error).
    private func report(_ i: Int, _ placed: AdPlacement) {
        guard !ended.contains(i) else { return }
        ended.insert(i)
        guard let later = deferCall, !outsideLock else { handlers[i].done?(placed); return }
        pendingEnds += 1
        later { [self] in
            pendingEnds -= 1
            direct { handlers[i].done?(placed) }
        }
    }

    /// Runs `body` where handlers may be called at once (a deferred call, `endNow`).
    private func direct(_ body: () -> Void) {
        let was = outsideLock
        outsideLock = true
        body()
        outsideLock = was
    }

    private func end(index: Int64, streamTime: MediaTime) {
        finishAd()
        finished = true
        // ads that never showed (their media failed) end with no frame
        var i = 0
        while i < ads.count {
            report(i, AdPlacement(media: ads[i], firstFrame: index, frames: 0, streamTime: streamTime))
            i += 1
        }
        source = nil
        current = nil
        upcoming = nil
        // an ad cut short (a decode error) takes its sound and the ducking with it
        let stop = format.sampleIndex(at: streamTime)
        for i in audioPlan.indices where audioPlan[i].end > stop { audioPlan[i].end = max(audioPlan[i].start, stop) }
        onEvent?(.doubleBoxEnded(id: breakId, streamTime: streamTime))
    }

    /// Opens the next ad with frames; false when none is left.
    private func openNextAd(at frame: SurfaceFrameInfo) throws -> Bool {
        while adIndex + 1 < ads.count {
            adIndex += 1
            let media = ads[adIndex]
            let count = FrameSelection.frameCount(from: .zero, to: media.duration, period: format.frameDuration)
            let empty = AdPlacement(media: media, firstFrame: frame.index, frames: 0, streamTime: frame.streamTime)
            guard count > 0 else { report(adIndex, empty); continue }
            let s = try MediaSource(url: media.url, output: format, threads: threads, policy: .adMedia)
            guard let first = try s.nextFrame() else { report(adIndex, empty); continue }
            placedIndex = adIndex
            source = s
            current = first
            adOrigin = first.pts
            upcoming = try s.nextFrame()
            adFrame = 0
            adFrames = count
            let start = format.sampleIndex(at: frame.streamTime)
            let end = format.sampleIndex(at: frame.streamTime + format.frameDuration * count)
            audioPlan.append((start, end, s.audio))
            placement?.ads.append(AdPlacement(media: media, firstFrame: frame.index, frames: count, streamTime: frame.streamTime))
            return true
        }
        return false
    }

    /// Draws the current ad frame full size with the content in the bordered window, or (`adInWindow`) the ad in the
    /// window over the content; passes each frame to its ad's `onFrame`.
    public func draw(on canvas: Canvas, _ frame: SurfaceFrameInfo) throws {
        guard let ad = current?.frame else { return }
        adFrame += 1
        if let later = deferCall, let pts = current?.pts {
            let index = adIndex, adTime = pts - adOrigin, at = frame.streamTime
            later { [self] in
                guard adIndex == index, !ended.contains(index) else { return }
                direct {
                    if let onFrame = handlers[index].onFrame, !onFrame(adTime, at) { stopAd(after: at) }
                    if adFrame >= adFrames { finishAd() }
                }
            }
        } else if let onFrame = handlers[adIndex].onFrame, let pts = current?.pts, !onFrame(pts - adOrigin, frame.streamTime) {
            stopAd(after: frame.streamTime)
        }
        let bounds = canvas.bounds
        let rect = window.windowRect(width: bounds.width, height: bounds.height)
        if style.adInWindow {
            PictureInPictureLayer.drawBorder(around: rect, on: canvas)
            try canvas.draw(frame: ad, in: rect, scaler: showing.value.adScaler)
        } else {
            try canvas.draw(frame: ad, in: bounds, scaler: showing.value.adScaler)
            PictureInPictureLayer.drawBorder(around: rect, on: canvas)
            try canvas.draw(frame: frame.original, in: rect, scaler: showing.value.scaler)
        }
    }

    /// The ad showing ends after its frame at stream time `at` (skipped or discarded), its sound too.
    private func stopAd(after at: MediaTime) {
        adFrames = adFrame
        let stop = format.sampleIndex(at: at + format.frameDuration)
        if let last = audioPlan.indices.last, audioPlan[last].end > stop { audioPlan[last].end = stop }
    }

    /// Ends the break now, before output frame `frameIndex` at stream time `streamTime` (the
    /// content ended under it): the ad showing ends with the frames it showed, those queued with
    /// none. On the frame loop, or while it waits (asserted).
    public func endNow(frameIndex: Int64, streamTime: MediaTime) {
        guard !finished else { return }
        direct { end(index: frameIndex, streamTime: streamTime) }
    }

    /// True: the ads' sound is mixed into the program.
    public var mixesAudio: Bool { true }

    /// Mixes the ads' sound into the program over their frames, the content under it scaled by the style's gain
    /// (silent when muted).
    public func mixAudio(_ channels: inout [[Float]], count: Int, firstSample: Int64) throws {
        guard let first = audioPlan.first?.start, firstSample + Int64(count) > first else { return }
        let gain = style.contentGain
        for plan in audioPlan {
            let lo = max(plan.start, firstSample), hi = min(plan.end, firstSample + Int64(count))
            guard lo < hi else { continue }
            let n = Int(hi - lo), offset = Int(lo - firstSample)
            for c in 0..<scratch.count { scratch[c].removeAll(keepingCapacity: true) }
            try plan.track.read(from: lo - plan.start, count: n, into: &scratch)
            for c in 0..<min(channels.count, scratch.count) {
                for i in 0..<n { channels[c][offset + i] = channels[c][offset + i] * gain + scratch[c][i] }
            }
        }
        audioPlan.removeAll { $0.end <= firstSample + Int64(count) }   // ads whose audio is done
    }
}
