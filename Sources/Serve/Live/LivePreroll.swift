import Foundation
import Timing

/// MediaTailor's live pre-roll (`LivePreRollConfiguration`): when a live session starts, one ad
/// request (to its own tag template, or the service's) for at most `maxDuration`, whose ads that
/// are in the store in every rung and fit play before the viewer's first frame of the channel.
/// The pre-roll is as long as those ads (no slate); the viewer's stream starts with it and the
/// channel follows from where the viewer joined, so the viewer is that much further behind the
/// live edge. No ad, no pre-roll. Bumpers do not play in it (MediaTailor's rule).
public struct LivePreroll: Sendable, Hashable {
    /// The longest pre-roll.
    public var maxDuration: MediaTime
    /// Its own ad tag template; nil: the service's `--ads`.
    public var adsTemplate: String?

    /// A pre-roll of at most `maxDuration` (0 < it ≤ 600 s).
    public init(maxDuration: MediaTime, adsTemplate: String? = nil) {
        self.maxDuration = maxDuration
        self.adsTemplate = adsTemplate
    }
}

extension LiveViewer {
    /// Asks for the pre-roll (at most the ad request's timeout) and fits it: its avail is the
    /// viewer's first, starting `length` before `startPTS`, where the viewer's clock starts.
    func preparePreroll(_ p: LivePreroll) async {
        let values = TagTemplate.Values(sessionID: id, playerParams: context.playerParams,
                                        availDurationSeconds: max(1, Int(p.maxDuration.seconds.rounded(.down))), availIndex: 1,
                                        userAgent: context.userAgent)
        let tag = TagTemplate.expand(p.adsTemplate ?? context.adsTemplate, values)
        let content = PreparedContent(name: context.channel.name, duration: p.maxDuration, renditions: [], originCues: [])
        context.metrics.liveAvail()
        let d = await AdDecision.decide(tag: tag, request: context.adsRequest.request(values), content: content,
                                        timeout: context.adsTimeout, sender: context.beacons)
        context.metrics.adsRequest(d.latency, failed: d.failed)
        var ads = d.breaks.flatMap(\.ads)
        for i in ads.indices { ads[i].sequence = i + 1 }
        // an ad not in the store yet is queued for the next viewers and left out
        let fitted = LivePod.fit(ads.map(readyLength), availTicks: p.maxDuration.mpegTicks)
        guard fitted.adTicks > 0 else {
            context.log?.event("live_preroll_empty", ["session": id, "ads": ads.count, "problems": d.problems])
            return
        }
        let length = fitted.adTicks
        let start = startPTS - length
        var avail = LiveAvail(breakID: "preroll", startPTS: start, requestedTicks: length, countedThrough: start)
        avail.ads = ads
        avail.planned = PlannedBreak(id: "preroll", position: .preroll, ads: ads)
        avail.pod = LivePod(slots: fitted.slots, availTicks: length)
        avail.endPTS = startPTS
        avail.started = true
        prerollAvail = avails.count
        avails.append(avail)
        originPTS = start
    }

    /// The pre-roll's item at the track's cursor (before `startPTS`), or nil when nothing can be
    /// published yet.
    func prerollItem(_ ai: Int, track: Track, rung: LiveRung) async -> SessionItem? {
        guard let pod = avails[ai].pod else { return nil }
        let (slot, within) = pod.locate(track.cursor - avails[ai].startPTS)
        guard let slot else { return nil }
        let first = !(track.timeline.last.map { $0.breakIndex == ai } ?? false)
        if case .item(let item) = await adItem(avail: ai, slot: slot, within: within, cursor: track.cursor, firstOfBreak: first,
                                                 end: startPTS, rung: rung) {
            return item
        }
        return nil
    }
}
