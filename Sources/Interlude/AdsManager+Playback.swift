import Ads
import Foundation
import Playback
import Timing

/// The player integration: how the engine and the manager hand control back and forth.
extension AdsManager {
    /// The next content time at which content must pause for a break (0 for a pending pre-roll),
    /// at or after `t`; nil when no break lies ahead. A plain VAST response has none until `start()`.
    public func nextCuePoint(atOrAfter t: MediaTime) -> MediaTime? {
        guard !destroyed, isAdRules || started else { return nil }
        return state.nextCue(atOrAfter: t)
    }

    /// Content has reached content time `t` (paused on the cue frame, or after a seek): the last
    /// scheduled break at or before `t` plays now — earlier ones passed by a seek are skipped.
    public func contentDidReachCuePoint(_ t: MediaTime) {
        guard !destroyed, isAdRules || started else { return }
        let (next, due) = state.reaching(t)
        state = next
        for index in due { playBreak(index, pausedAt: t) }
        if !isAdRules, state.breaks.allSatisfy({ $0.state != .scheduled }) { allAdsCompleted() }
    }

    /// The content ended: post-rolls play, then ALL_ADS_COMPLETED. Calling it again changes nothing.
    public func contentComplete() {
        guard !contentCompleted, !destroyed else { return }
        contentCompleted = true
        let display = request.adDisplayContainer.videoDisplay
        let end = display?.timeline.segments.last?.contentEnd ?? display?.contentTime ?? .zero
        for i in state.scheduledPostrolls where isAdRules { playBreak(i, pausedAt: end) }
        allAdsCompleted()
    }

    /// Fetches every ad's media into `cache` ahead of playback (IMA's preloading). Failures are
    /// kept and reported when the ad's turn comes.
    public func preloadMedia(cache: AdMediaCache) async {
        let timeout = renderingSettings.effectiveLoadVideoTimeout
        let deadline = monotonicSeconds() + cache.preloadTimeout   // one deadline for the whole preload
        for plan in plans {
            for ad in plan.ads + plan.spares {
                guard let url = ad.mediaFile?.url.template.trimmingCharacters(in: .whitespacesAndNewlines),
                      mediaPaths[url] == nil else { continue }
                let local = allowsLocalMedia(ad, plan)
                let left = deadline - monotonicSeconds()
                guard left > 0 else {
                    mediaPaths[url] = .failure(AdError(type: .adPlayingFailed, code: 402, message: "media \(url) not loaded: the preload deadline (\(cache.preloadTimeout) s) passed", adId: ad.id))
                    continue
                }
                do {
                    mediaPaths[url] = .success(try await cache.localPath(for: resolvedMediaURL(url), timeout: min(timeout, left), allowLocal: local))
                } catch {
                    mediaPaths[url] = .failure(AdError(type: .adPlayingFailed, code: error.code, message: error.message, adId: ad.id))
                }
            }
        }
    }

    // MARK: breaks

    func playBreak(_ index: Int, pausedAt: MediaTime) {
        let plan = plans[index]
        guard let display = request.adDisplayContainer.videoDisplay else {
            recordError(AdError(type: .adPlayingFailed, code: 1202, message: "no video display to play ads in"), urls: [], adId: nil, breakId: plan.id)
            state = state.settingBreak(index, to: .failed)
            return
        }
        if isAdRules, !settings.autoPlayAdBreaks {
            readyBreak = index; startDuringReady = false
            deliver(.adBreakReady, ad: nil, data: ["adBreakTime": String(plan.cue.seconds)])
            readyBreak = nil
            guard startDuringReady else { state = state.settingBreak(index, to: .skipped); return }
        }
        // Prepare the pod: media fetched, opened and measured; failures reported, the rest play.
        var pod: [(index: Int, resolved: ResolvedAd, media: AdMedia)] = []
        var spares = plan.spares[...]
        for (j, ad) in plan.ads.enumerated() {
            switch prepare(ad, plan) {
            case .success(let media): pod.append((j, ad, media))
            case .failure(let e):
                recordError(e, urls: ad.errorURLs, adId: ad.id, breakId: plan.id)
                state = state.settingAd(j, ofBreak: index, to: .failed)
                // A stand-alone ad of the response takes the failed ad's place, as IMA's fallback does.
                while let spare = spares.popFirst() {
                    switch prepare(spare, plan) {
                    case .success(let media): pod.append((j, spare, media))
                    case .failure(let e2): recordError(e2, urls: spare.errorURLs, adId: spare.id, breakId: plan.id); continue
                    }
                    break
                }
            }
        }
        guard !pod.isEmpty, !destroyed else {
            deliver(.adBreakFetchError, ad: nil, data: ["adBreakTime": String(plan.cue.seconds)])
            for url in plan.scheduled.trackingURLs(for: "error") {
                var ctx = macroContext(nil); ctx.errorCode = .noAdsAfterWrapper
                appendBreakBeacon("error", MacroExpander.expand(url, context: ctx), plan.id)
            }
            state = state.settingBreak(index, to: .failed)
            return
        }
        state = state.settingBreak(index, to: .playing)
        if !destroyed { delegate?.adsManagerDidRequestContentPause(self) }
        display.beginBreak(id: plan.id, contentTime: pausedAt)
        breakPlaying = true
        let breakStream = display.streamTime
        var breakBeacons = plan.scheduled.trackingURLs(for: "breakStart").map {
            appendBreakBeacon("breakStart", MacroExpander.expand($0, context: macroContext(nil)), plan.id)
        }
        deliver(.adBreakStarted, ad: nil, data: ["adBreakTime": String(plan.cue.seconds)])
        var played: [PlayedAd] = []
        for (k, item) in pod.enumerated() {
            if discardRequested || destroyed { state = state.settingAd(item.index, ofBreak: index, to: .skipped); continue }
            let ad = makeAd(item.resolved, position: k + 1, total: pod.count, plan: plan, media: item.media)
            if isAdRules { deliver(.loaded, ad: ad) }
            playing = Playing(ad: ad, resolved: item.resolved, media: item.media, breakIndex: index)
            state = state.settingAd(item.index, ofBreak: index, to: .playing)
            do {
                let placement = try display.playAd(item.media, position: k + 1, totalAds: pod.count) { adTime, streamTime in
                    self.adFrame(adTime: adTime, streamTime: streamTime)
                }
                var p = playing!
                let skipped = p.skipRequested
                if skipped {
                    p.tracking += beaconsFor(event: "skip", p, at: display.streamTime)
                    deliver(.skipped, ad: p.ad)
                    state = state.settingAd(item.index, ofBreak: index, to: .skipped)
                } else if discardRequested || destroyed {
                    state = state.settingAd(item.index, ofBreak: index, to: .skipped)
                } else {
                    p.tracking += beaconsFor(event: "complete", p, at: display.streamTime)
                    deliver(.complete, ad: p.ad)
                    state = state.settingAd(item.index, ofBreak: index, to: .played)
                }
                played.append(PlayedAd(ad: p.ad, placement: placement, skipped: skipped, tracking: p.tracking))
            } catch {
                recordError(AdError(type: .adPlayingFailed, code: 405, message: "ad media \(item.media.url) failed while playing: \(error)",
                                    adId: item.resolved.id), urls: item.resolved.errorURLs, adId: item.resolved.id, breakId: plan.id)
                state = state.settingAd(item.index, ofBreak: index, to: .failed)
            }
            playing = nil
        }
        breakBeacons += plan.scheduled.trackingURLs(for: "breakEnd").map {
            appendBreakBeacon("breakEnd", MacroExpander.expand($0, context: macroContext(nil)), plan.id)
        }
        deliver(.adBreakEnded, ad: nil, data: ["adBreakTime": String(plan.cue.seconds)])
        display.endBreak()
        breakPlaying = false
        state = state.settingBreak(index, to: discardRequested ? .discarded : .played)
        discardRequested = false
        playedBreaks.append(PlayedBreak(id: plan.id, cuePoint: plan.cue.seconds, contentTime: pausedAt, streamTime: breakStream,
                                      duration: display.streamTime - breakStream, ads: played, tracking: breakBeacons))
        if !destroyed { delegate?.adsManagerDidRequestContentResume(self) }
    }

    /// Each ad frame: STARTED and impressions on the first, quartiles and progress offsets from the
    /// measured media time, progress callbacks every 200 ms. Returns false to stop the ad.
    func adFrame(adTime: MediaTime, streamTime: MediaTime) -> Bool {
        guard var p = playing, !destroyed else { return false }
        p.adTime = adTime
        p.frameStreamTime = streamTime
        if !p.started {
            p.started = true
            for url in p.resolved.impressions { p.tracking.append(beacon("impression", url, p, at: streamTime)) }
            p.tracking += beaconsFor(event: "creativeView", p, at: streamTime)
            p.tracking += beaconsFor(event: "start", p, at: streamTime)
            playing = p
            deliver(.started, ad: p.ad, at: streamTime)
            p = playing ?? p
        }
        let d = p.media.duration
        let quartiles: [(AdEventType, String)] = [(.firstQuartile, "firstQuartile"), (.midpoint, "midpoint"), (.thirdQuartile, "thirdQuartile")]
        while p.quartilesFired < 3, adTime * 4 >= d * Int64(p.quartilesFired + 1) {
            let (type, name) = quartiles[p.quartilesFired]
            p.quartilesFired += 1
            p.tracking += beaconsFor(event: name, p, at: streamTime)
            playing = p
            deliver(type, ad: p.ad, at: streamTime)
            p = playing ?? p
        }
        for (i, t) in p.resolved.trackingEvents.enumerated() where t.event == "progress" && !p.progressFired.contains(i) {
            guard let offset = t.offset?.resolved(duration: d), adTime >= offset else { continue }
            p.progressFired.insert(i)
            p.tracking.append(beacon("progress", t.url, p, at: streamTime))
        }
        playing = p
        if p.lastProgressReport.value < 0 || adTime - p.lastProgressReport >= MediaTime(value: 1, timescale: 5) {
            p.lastProgressReport = adTime
            playing = p
            if !destroyed { delegate?.adsManager(self, adDidProgressToTime: adTime.seconds, totalTime: d.seconds) }
        }
        guard let now = playing else { return false }
        return !now.skipRequested && !discardRequested && !destroyed
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
            // Name the ad's media URL, not the cache file it was fetched into.
            if path != url { e.message = e.message.replacingOccurrences(of: path, with: url) }
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
        guard !allAdsCompletedFired else { return }
        allAdsCompletedFired = true
        deliver(.allAdsCompleted, ad: nil)
    }

    @discardableResult
    func appendBreakBeacon(_ event: String, _ url: String, _ breakId: String) -> TrackedBeacon {
        let display = request.adDisplayContainer.videoDisplay
        let b = TrackedBeacon(event: event, streamTime: display?.streamTime ?? .zero, contentTime: display?.contentTime ?? .zero,
                              url: url, adId: nil, breakId: breakId)
        beacons.append(b)
        return b
    }
}
