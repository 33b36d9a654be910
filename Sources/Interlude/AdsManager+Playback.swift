import Ads
import Foundation
import Playback
import Timing

/// The player integration: how the engine and the manager hand control back and forth. Everything
/// here runs on the manager's queue (the public calls go there through `perform`).
extension AdsManager {
    /// The next content time at which content must pause for a break (0 for a pending pre-roll),
    /// at or after `t`; nil when no break lies ahead. A plain VAST response has none until `start()`.
    package func nextCuePoint(atOrAfter t: MediaTime) -> MediaTime? {
        perform {
            guard !destroyed, isAdRules || started else { return nil }
            return adState.nextCue(atOrAfter: t)
        }
    }

    /// Content has reached content time `t` (paused on the cue frame, or after a seek): the last
    /// scheduled break at or before `t` plays now — earlier ones passed by a seek are skipped.
    /// With a display that plays synchronously the break has played when this returns.
    package func contentDidReachCuePoint(_ t: MediaTime) { perform { reach(t) { _ in } } }

    /// `contentDidReachCuePoint`, then `done(paused)`: whether any break paused content.
    func reach(_ t: MediaTime, then done: @escaping @Sendable (Bool) -> Void) {
        guard !destroyed, isAdRules || started else { done(false); return }
        closeOverlays(reached: t)
        let (next, due) = adState.reaching(t)
        adState = next
        let pausesBefore = pauses, overlaysBefore = overlaysShown
        playBreaks(due.map { ($0, t) }[...]) { [self] in
            let paused = pauses > pausesBefore
            if !isAdRules, !paused, overlaysShown == overlaysBefore, !due.isEmpty {
                reportFatal(record.errors.last ?? AdError(type: .adPlayingFailed, code: 1009, message: "no ad of the response could play"))
            }
            if !isAdRules, adState.breaks.allSatisfy({ $0.state != .scheduled }) { allAdsCompleted() }
            done(paused)
        }
    }

    /// The content ended: post-rolls play, then ALL_ADS_COMPLETED. Calling it again changes nothing.
    public func contentComplete() { perform { contentComplete { } } }

    /// `contentComplete()` from any thread, then `done` on the manager's queue once the post-rolls
    /// have played (at once when nothing is left).
    func completeContent(then done: @escaping @Sendable () -> Void) { perform { contentComplete(then: done) } }

    /// Whether a break that paused content is playing (a double box plays beside it), from any thread.
    var playsBreakPausingContent: Bool { perform { breakPlaying && doubleBox == nil } }

    /// `contentComplete()`, then `done` (on the manager's queue) once the post-rolls have played
    /// (at once when nothing is left).
    func contentComplete(then done: @escaping @Sendable () -> Void) {
        guard phase.completingContent() else { done(); return }
        let display = request.adDisplayContainer.videoDisplay
        let end = display?.timeline.segments.last?.contentEnd ?? display?.contentTime ?? .zero
        closeOverlays(reached: end, contentEnded: true)
        let posts = isAdRules ? adState.scheduledPostrolls.map { ($0, end) } : []
        playBreaks(posts[...]) { [self] in allAdsCompleted(); done() }
    }

    /// Fetches every ad's media into `cache` ahead of playback (IMA's preloading). Failures are
    /// kept and reported when the ad's turn comes. `initialize` starts this by itself when
    /// `enablePreloading` is on and the loader has a cache.
    func preloadMedia(cache: AdMediaCache) async {
        let (running, plans) = perform { (preloadTask, self.plans) }
        // the preloading `initialize` started into this cache already does it: wait for that one
        if let running, cache === mediaCache { await running.value; return }
        await preload(plans, into: cache)
    }

    /// Fetches the media of every break of `plans` into `cache`, all within one deadline.
    func preload(_ plans: [BreakPlan], into cache: AdMediaCache) async {
        let deadline = monotonicSeconds() + cache.preloadTimeout   // one deadline for the whole preload
        for plan in plans { await fetchMedia(of: plan, cache: cache, deadline: deadline) }
    }

    /// One fetch per media URL, however many breaks or callers ask for it at once.
    private func fetch(_ url: String, local: Bool, cache: AdMediaCache, deadline: Double) async -> Result<String, AdMediaCache.Failure> {
        let task = perform { () -> Task<Result<String, AdMediaCache.Failure>, Never>? in
            if let running = mediaFetches[url] { return running }
            let left = deadline - monotonicSeconds()
            guard left > 0 else { return nil }
            let resolved = resolvedMediaURL(url), timeout = min(renderingSettings.effectiveLoadVideoTimeout, left)
            let task = Task { () -> Result<String, AdMediaCache.Failure> in
                do { return .success(try await cache.localPath(for: resolved, timeout: timeout, allowLocal: local)) }
                catch let e as AdMediaCache.Failure { return .failure(e) }
                catch { return .failure(AdMediaCache.Failure(code: 405, message: "\(error)")) }
            }
            mediaFetches[url] = task
            return task
        }
        guard let task else {
            return .failure(AdMediaCache.Failure(code: 402, message: "media \(url) not loaded: the preload deadline (\(cache.preloadTimeout) s) passed"))
        }
        return await task.value
    }

    /// Fetches the media of one break's ads that are not fetched yet, all by `deadline`.
    func fetchMedia(of plan: BreakPlan, cache: AdMediaCache, deadline: Double) async {
        for ad in plan.ads + plan.spares {
            // a linear ad's media file, or a non-linear ad's static image; the companions for the slots
            let main = ad.mediaFile?.url.template.trimmingCharacters(in: .whitespacesAndNewlines) ?? Self.staticImage(ad)?.1
            let local = allowsLocalMedia(ad, plan)
            for url in [main].compactMap({ $0 }) + companionURLs(ad) where perform({ mediaPaths[url] == nil }) {
                let fetched = await fetch(url, local: local, cache: cache, deadline: deadline)
                perform {
                    switch fetched {
                    case .success(let path): mediaPaths[url] = .success(path)
                    case .failure(let e): mediaPaths[url] = .failure(AdError(type: .adPlayingFailed, code: e.code, message: e.message, adId: ad.id))
                    }
                }
            }
        }
    }

    /// Calls `then` on the manager's queue once every network media file of `plan` has been
    /// fetched (at once when none needs fetching, as in a stitch that preloaded everything).
    func ensureMedia(of plan: BreakPlan, then: @escaping @Sendable () -> Void) {
        let missing = (plan.ads + plan.spares).contains { ad in
            let main = ad.mediaFile?.url.template.trimmingCharacters(in: .whitespacesAndNewlines) ?? Self.staticImage(ad)?.1
            return ([main].compactMap { $0 } + companionURLs(ad)).contains { url in
                let scheme = URL(string: url)?.scheme?.lowercased()
                return mediaPaths[url] == nil && (scheme == "http" || scheme == "https")
            }
        }
        guard missing, let cache = mediaCache else { then(); return }
        let preload = preloadTask
        Task {
            await preload?.value
            await self.fetchMedia(of: plan, cache: cache, deadline: monotonicSeconds() + cache.preloadTimeout)
            self.queue.async(execute: then)
        }
    }

    // MARK: breaks

    /// Plays breaks one after another, then calls `done`.
    func playBreaks(_ items: ArraySlice<(Int, MediaTime)>, then done: @escaping @Sendable () -> Void) {
        guard let (index, pausedAt) = items.first else { done(); return }
        playBreak(index, pausedAt: pausedAt) { [self] in playBreaks(items.dropFirst(), then: done) }
    }

    func playBreak(_ index: Int, pausedAt: MediaTime, then done: @escaping @Sendable () -> Void) {
        let plan = plans[index]
        guard request.adDisplayContainer.videoDisplay != nil else {
            recordError(AdError(type: .adPlayingFailed, code: 1202, message: "no video display to play ads in"), urls: [], adId: nil, breakId: plan.id)
            adState = adState.settingBreak(index, to: .failed)
            done()
            return
        }
        if isOverlayBreak(plan) {
            ensureMedia(of: plan) { [self] in showOverlays(index, plan: plan, at: pausedAt); done() }
            return
        }
        if isAdRules, !settings.autoPlayAdBreaks {
            // AD_BREAK_READY: the break plays only if the app calls `start()` while it hears it;
            // the manager goes on once the delegate has answered (content holds at the cue meanwhile)
            phase.ready = .delivering(index)
            deliver(.adBreakReady, ad: nil, data: ["adBreakTime": String(plan.cue.seconds)]) { [self] in
                let startAsked = phase.ready == .startAsked(index)
                phase.ready = .none
                guard startAsked else { adState = adState.settingBreak(index, to: .skipped); done(); return }
                beginLinearBreak(index, plan: plan, pausedAt: pausedAt, then: done)
            }
            return
        }
        beginLinearBreak(index, plan: plan, pausedAt: pausedAt, then: done)
    }

    /// A linear break (or a double box) begins once its media is fetched: skipped inside a double box.
    private func beginLinearBreak(_ index: Int, plan: BreakPlan, pausedAt: MediaTime, then done: @escaping @Sendable () -> Void) {
        if doubleBox != nil {
            // content goes on under a double box: a break cannot start inside it
            deliver(.log, ad: nil, data: ["type": AdErrorType.adPlayingFailed.rawValue, "errorCode": "1201",
                                          "errorMessage": "break \(plan.id) starts inside a double-box break; skipped"])
            adState = adState.settingBreak(index, to: .skipped)
            done()
            return
        }
        phase.beginBreak()
        ensureMedia(of: plan) { [self] in startBreak(index, plan: plan, pausedAt: pausedAt, then: done) }
    }

    /// The pod prepared (media fetched, opened and measured; failures reported, the rest play),
    /// content paused, the ads played one by one.
    private func startBreak(_ index: Int, plan: BreakPlan, pausedAt: MediaTime, then done: @escaping @Sendable () -> Void) {
        var pod: [PodItem] = []
        var spares = plan.spares[...]
        for (j, ad) in plan.ads.enumerated() {
            switch prepare(ad, plan) {
            case .success(let media): pod.append(PodItem(index: j, resolved: ad, media: media.identified(as: ad.id)))
            case .failure(let e):
                recordError(e, urls: ad.errorURLs, adId: ad.id, breakId: plan.id)
                adState = adState.settingAd(j, ofBreak: index, to: .failed)
                // A stand-alone ad of the response takes the failed ad's place, as IMA's fallback does.
                while let spare = spares.popFirst() {
                    switch prepare(spare, plan) {
                    case .success(let media): pod.append(PodItem(index: j, resolved: spare, media: media.identified(as: spare.id)))
                    case .failure(let e2): recordError(e2, urls: spare.errorURLs, adId: spare.id, breakId: plan.id); continue
                    }
                    break
                }
            }
        }
        guard let display = request.adDisplayContainer.videoDisplay, !pod.isEmpty, !destroyed else {
            _ = phase.endBreak()
            deliver(.adBreakFetchError, ad: nil, data: ["adBreakTime": String(plan.cue.seconds)])
            for url in plan.scheduled.trackingURLs(for: "error") {
                var ctx = macroContext(nil); ctx.errorCode = .noAdsAfterWrapper
                appendBreakBeacon("error", MacroExpander.expand(url, context: ctx), plan.id)
            }
            adState = adState.settingBreak(index, to: .failed)
            done()
            return
        }
        adState = adState.settingBreak(index, to: .playing)
        let podDuration = pod.reduce(MediaTime.zero) { $0 + $1.media.duration }
        // a double box (VMAP extension) does not pause content: its ads play beside it
        let box = isAdRules ? startDoubleBox(plan, pausedAt: pausedAt, podDuration: podDuration) : nil
        doubleBox = box
        if box == nil {
            pauses += 1
            watchedPlayer?.pause()   // a player watched holds on the cue frame whenever the app hears this
            toDelegate { d, m in d.adsManagerDidRequestContentPause(m) }
            display.beginBreak(id: plan.id, contentTime: pausedAt)
        }
        let breakStream = display.streamTime
        let breakBeacons = plan.scheduled.trackingURLs(for: "breakStart").map {
            appendBreakBeacon("breakStart", MacroExpander.expand($0, context: macroContext(nil)), plan.id)
        }
        deliver(.adBreakStarted, ad: nil, data: ["adBreakTime": String(plan.cue.seconds)])
        playPod(pod, at: 0, breakIndex: index, plan: plan, podDuration: podDuration, played: []) { [self] played in
            let tracking = breakBeacons + plan.scheduled.trackingURLs(for: "breakEnd").map {
                appendBreakBeacon("breakEnd", MacroExpander.expand($0, context: macroContext(nil)), plan.id)
            }
            deliver(.adBreakEnded, ad: nil, data: ["adBreakTime": String(plan.cue.seconds)])
            if let box { box.end(); doubleBox = nil } else { display.endBreak() }
            adState = adState.settingBreak(index, to: phase.endBreak() ? .discarded : .played)
            record.playedBreaks.append(PlayedBreak(id: plan.id, cuePoint: plan.cue.seconds, contentTime: pausedAt, streamTime: breakStream,
                                          duration: display.streamTime - breakStream, ads: played, tracking: tracking,
                                          doubleBox: box?.style))
            if box == nil { toDelegate { d, m in d.adsManagerDidRequestContentResume(m) } }
            done()
        }
    }

    /// One ad of a prepared pod.
    struct PodItem {
        var index: Int
        var resolved: ResolvedAd
        var media: AdMedia
    }

    /// Plays pod item `k` and the rest after it, then calls `done` with what played.
    private func playPod(_ pod: [PodItem], at k: Int, breakIndex index: Int, plan: BreakPlan, podDuration: MediaTime,
                         played: [PlayedAd], then done: @escaping @Sendable ([PlayedAd]) -> Void) {
        guard k < pod.count else { done(played); return }
        let item = pod[k]
        let next: @Sendable ([PlayedAd]) -> Void = { [self] p in
            playPod(pod, at: k + 1, breakIndex: index, plan: plan, podDuration: podDuration, played: p, then: done)
        }
        guard let display = request.adDisplayContainer.videoDisplay, !discardRequested, !destroyed else {
            adState = adState.settingAd(item.index, ofBreak: index, to: .skipped)
            next(played)
            return
        }
        let ad = makeAd(item.resolved, position: k + 1, total: pod.count, plan: plan, media: item.media)
        if isAdRules { deliver(.loaded, ad: ad) }
        let duration = item.media.duration
        let tracker = AdProgressTracker(duration: duration, skipOffset: item.resolved.skipOffset,
                                        offsets: AdProgressTracker.offsets(of: item.resolved, duration: duration), period: Self.progressPeriod)
        playing = Playing(ad: ad, resolved: item.resolved, media: item.media, breakIndex: index, tracker: tracker, podDuration: podDuration)
        adState = adState.settingAd(item.index, ofBreak: index, to: .playing)
        let adUI = request.adDisplayContainer.adUI
        adUI?.shown = ShownAd(ad: ad, duration: item.media.duration, skipOffset: item.resolved.skipOffset,
                              clickThrough: item.resolved.clickThrough?.template, podDuration: podDuration)
        let companions = loadCompanions(item.resolved, breakId: plan.id, plan: plan)
        request.adDisplayContainer.companionLayout?.show(companions.map(\.1))
        let onFrame: @Sendable (MediaTime, MediaTime) -> Bool = { [weak self] adTime, streamTime in
            self?.adFrame(adTime: adTime, streamTime: streamTime) ?? false
        }
        let completion: @Sendable (Result<PlacedAd, Error>) -> Void = { [self] result in
            var played = played
            switch result {
            case .success(let placement):
                var p = playing!
                fillCompanionSlots(companions, placement: placement)
                let skipped = p.ending == .skipped
                if skipped {
                    p.tracking += beaconsFor(event: "skip", p, at: display.streamTime)
                    deliver(.skipped, ad: p.ad)
                    adState = adState.settingAd(item.index, ofBreak: index, to: .skipped)
                } else if discardRequested || destroyed {
                    adState = adState.settingAd(item.index, ofBreak: index, to: .skipped)
                } else {
                    p.tracking += beaconsFor(event: "complete", p, at: display.streamTime)
                    deliver(.complete, ad: p.ad)
                    adState = adState.settingAd(item.index, ofBreak: index, to: .played)
                }
                played.append(PlayedAd(ad: p.ad, placement: placement, skipped: skipped, tracking: p.tracking, presentation: p.presentation))
            case .failure(let error):
                recordError(AdError(type: .adPlayingFailed, code: 405, message: "ad media \(item.media.url) failed while playing: \(error)",
                                    adId: item.resolved.id), urls: item.resolved.errorURLs, adId: item.resolved.id, breakId: plan.id)
                adState = adState.settingAd(item.index, ofBreak: index, to: .failed)
            }
            playing = nil
            next(played)
        }
        let marks = frameMarks(item)
        if let box = doubleBox {
            box.playAd(item.media, position: k + 1, totalAds: pod.count, marks: marks, queue: queue, onFrame: onFrame, completion: completion)
        } else {
            display.playAd(item.media, position: k + 1, totalAds: pod.count, marks: marks, queue: queue, onFrame: onFrame,
                           completion: completion)
        }
    }

    /// Ad time between two progress reports (`adDidProgress`): about every 100 ms, as Media3's
    /// ad progress updates.
    static let progressPeriod = MediaTime(value: 1, timescale: 10)

    /// The frames of `item` on which `adFrame` decides something: the first (STARTED,
    /// impressions), the quartiles, the `progress` offsets, the skip offset (from its frame on,
    /// `skip()` is accepted) and one per progress period. The display's loop computes them from
    /// the frames' exact ad times and hands the manager's queue these only, without waiting:
    /// `adFrame` fires everything on the frame it is due on, however late the queue runs it.
    func frameMarks(_ item: PodItem) -> AdFrameMarks {
        let d = item.media.duration
        var offsets = item.resolved.trackingEvents.compactMap { t in t.event == "progress" ? t.offset?.resolved(duration: d) : nil }
        if let skip = item.resolved.skipOffset { offsets.append(skip) }
        return AdFrameMarks(duration: d, quartiles: true, offsets: offsets, period: Self.progressPeriod, waits: waitsOnAdFrames)
    }

    /// Each ad frame shown (`frameMarks`): what it sets off (`AdProgressTracker`: STARTED and
    /// impressions on the first, quartiles and progress offsets from the measured media time,
    /// progress reports every 100 ms and on the frame the ad becomes skippable), fired in order.
    /// Returns false to stop the ad.
    func adFrame(adTime: MediaTime, streamTime: MediaTime) -> Bool {
        guard var p = playing, !destroyed else { return false }
        let moments = p.tracker.frame(at: adTime)
        p.frameStreamTime = streamTime
        playing = p
        let quartiles: [(AdEventType, String)] = [(.firstQuartile, "firstQuartile"), (.midpoint, "midpoint"), (.thirdQuartile, "thirdQuartile")]
        for moment in moments {
            // a delegate deciding in step may have changed the ad (a skip) on the event before
            guard var p = playing else { break }
            switch moment {
            case .started:
                for url in p.resolved.impressions { p.tracking.append(beacon("impression", url, p, at: streamTime)) }
                p.tracking += beaconsFor(event: "creativeView", p, at: streamTime)
                p.tracking += beaconsFor(event: "start", p, at: streamTime)
                p.presentation = currentPresentation
                playing = p
                deliver(.started, ad: p.ad, data: ["presentation": p.presentation.rawValue], at: streamTime)
            case .quartile(let n):
                let (type, name) = quartiles[n - 1]
                p.tracking += beaconsFor(event: name, p, at: streamTime)
                playing = p
                deliver(type, ad: p.ad, at: streamTime)
            case .progressOffset(let i):
                p.tracking.append(beacon("progress", p.resolved.trackingEvents[i].url, p, at: streamTime))
                playing = p
            case .report:
                let d = p.media.duration
                let progress = AdProgressData(currentTime: adTime.seconds, duration: d.seconds, adPosition: p.ad.adPodInfo.adPosition,
                                              totalAds: p.ad.adPodInfo.totalAds, adBreakDuration: p.podDuration.seconds,
                                              adPeriodDuration: p.podDuration.seconds)
                toDelegate { d, m in
                    d.adsManager(m, adDidProgressToTime: progress.currentTime, totalTime: progress.duration)
                    d.adsManager(m, adDidProgress: progress)
                }
            }
        }
        guard let now = playing else { return false }
        return now.ending == .playsOut && !discardRequested && !destroyed
    }

    // MARK: ads

    func prepare(_ ad: ResolvedAd, _ plan: BreakPlan) -> Result<AdMedia, AdError> {
        guard let file = ad.mediaFile else {
            return .failure(AdError(type: .adPlayingFailed, code: ad.mediaSelection.errorCode?.rawValue ?? 403,
                                    message: "no media file fits: \(ad.mediaSelection.reason)", adId: ad.id))
        }
        let url = file.url.template.trimmingCharacters(in: .whitespacesAndNewlines)
        let path: String
        if let known = mediaPaths[url] {
            switch known { case .success(let p): path = p; case .failure(var e): e.adId = ad.id; return .failure(e) }
        } else {
            let scheme = URL(string: url)?.scheme?.lowercased()
            if let scheme, scheme != "file", scheme != "http", scheme != "https" {
                return .failure(AdError(type: .adPlayingFailed, code: 403,
                                        message: "media \(Printable.escaped(url)): URL scheme '\(Printable.escaped(scheme))' refused (only http, https and local files)", adId: ad.id))
            }
            guard scheme == nil || scheme == "file" else {
                return .failure(AdError(type: .adPlayingFailed, code: 402, message: "media \(url) was not preloaded (call preloadMedia)", adId: ad.id))
            }
            guard allowsLocalMedia(ad, plan) else {
                return .failure(AdError(type: .adPlayingFailed, code: 403, message: "media \(url) is a local file named by a network document; refused", adId: ad.id))
            }
            path = scheme == "file" ? (URL(string: url)?.path ?? url) : resolvedMediaURL(url)
        }
        guard let display = request.adDisplayContainer.videoDisplay else {
            return .failure(AdError(type: .adPlayingFailed, code: 1202, message: "no video display", adId: ad.id))
        }
        do {
            return .success(try display.prepareAd(mediaPath: path))
        } catch {
            var e = error
            e.adId = ad.id
            // Name the ad's media URL, not the cache file it was fetched into; a local file by the
            // path tried (a relative one resolved against its document's folder).
            if path != url, let scheme = URL(string: url)?.scheme?.lowercased(), scheme == "http" || scheme == "https" {
                e.message = e.message.replacingOccurrences(of: path, with: url)
            }
            return .failure(e)
        }
    }

    /// A relative media path of a local document, made absolute against the document's folder.
    func resolvedMediaURL(_ url: String) -> String {
        guard URL(string: url)?.scheme == nil, !url.hasPrefix("/"), let base = mediaBase else { return url }
        return base.appendingPathComponent(url).path
    }

    /// Local media is allowed only when every document on the way to the ad was local.
    func allowsLocalMedia(_ ad: ResolvedAd, _ plan: BreakPlan) -> Bool {
        localOrigin && (plan.scheduled.adTagURI.map(AdsLoader.isLocal) ?? true) && ad.wrappers.allSatisfy { AdsLoader.isLocal($0.tagURL) }
    }

    func makeAd(_ r: ResolvedAd, position: Int, total: Int, plan: BreakPlan, media: AdMedia?) -> Ad {
        let file = r.mediaFile
        let duration = media?.duration.seconds ?? r.duration?.seconds ?? -1
        return Ad(adId: r.id ?? "", adTitle: r.title ?? "", adDescription: r.adDescription ?? "",
                  adSystem: r.adSystem?.name ?? "", duration: duration, skipTimeOffset: r.skipOffset?.seconds ?? -1,
                  isUiDisabled: renderingSettings.disableUi && r.uiHideable != false, isLinear: r.isLinear,
                  adPodInfo: AdPodInfo(adPosition: position, totalAds: total, podIndex: plan.podIndex,
                                       timeOffset: plan.cue.seconds, maxDuration: -1, isBumper: plan.scheduled.breakTypes.contains("bumper")),
                  creativeID: r.creativeId ?? "", creativeAdID: r.creativeAdId ?? "",
                  universalAdIDs: r.universalAdIds.map { UniversalAdID(adIDValue: $0.value, adIDRegistry: $0.registry) },
                  wrapperAdIDs: r.wrapperAdIds, wrapperSystems: r.wrapperSystems, wrapperCreativeIDs: r.wrapperCreativeIds,
                  vastMediaWidth: file?.width ?? 0, vastMediaHeight: file?.height ?? 0, vastMediaBitrate: file?.bitrate ?? 0,
                  contentType: file?.type ?? "", traffickingParameters: r.adParameters ?? "",
                  advertiserName: r.advertiser ?? "", mediaURL: file?.url.template)
    }

    /// Re-runs media selection with the rendering settings' MIME types and bitrate.
    func reselectMedia() {
        var prefs = MediaSelectionPreferences()
        if !renderingSettings.mimeTypes.isEmpty { prefs.mimeTypes = renderingSettings.mimeTypes }
        prefs.targetBitrate = renderingSettings.bitrate
        for i in plans.indices {
            for j in plans[i].ads.indices {
                let ad = plans[i].ads[j]
                guard let linear = ad.inline.creatives.first(where: { $0.linear != nil && ($0.id == ad.creativeId || ad.creativeId == nil) })?.linear
                        ?? ad.inline.creatives.compactMap(\.linear).first else { continue }
                var adPrefs = prefs
                adPrefs.allowLocalFiles = allowsLocalMedia(ad, plans[i])
                let selection = MediaFileSelector.select(mediaFiles: linear.mediaFiles, mezzanines: linear.mezzanines, preferences: adPrefs)
                plans[i].ads[j].mediaSelection = selection
                plans[i].ads[j].mediaFile = selection.chosen
            }
        }
        for i in plans.indices {
            let plan = plans[i]
            plans[i].spares = plans[i].spares.map { ad in
                var ad = ad
                if let linear = ad.inline.creatives.compactMap(\.linear).first {
                    var adPrefs = prefs
                    adPrefs.allowLocalFiles = allowsLocalMedia(ad, plan)
                    ad.mediaSelection = MediaFileSelector.select(mediaFiles: linear.mediaFiles, mezzanines: linear.mezzanines, preferences: adPrefs)
                    ad.mediaFile = ad.mediaSelection.chosen
                }
                return ad
            }
        }
    }

    func allAdsCompleted() {
        guard phase.completingAllAds() else { return }
        deliver(.allAdsCompleted, ad: nil)
    }

    @discardableResult
    func appendBreakBeacon(_ event: String, _ url: String, _ breakId: String) -> TrackedBeacon {
        let display = request.adDisplayContainer.videoDisplay
        let b = TrackedBeacon(event: event, streamTime: display?.streamTime ?? .zero, contentTime: display?.contentTime ?? .zero,
                              url: url, adId: nil, breakId: breakId)
        emit(b)
        return b
    }
}
