import Ads
import Foundation
import Manifest
import Interlude
import Timing

/// One viewer's live session: its own playlist per rung over the channel's sliding window, each
/// signalled break replaced by the ads its own ad request brought, fitted to the break, and
/// slate for the rest, frame-exact at both ends.
///
/// The playlist advances when it is asked for: items are published in channel order while they
/// end at least `hold` before the origin's live edge (the time an ad decision has), so every
/// viewer is as late as the origin plus one segment. What is published is never changed; a break
/// that ends early (its end signalled before the planned duration) cuts the item it ends in.
public actor LiveViewer {
    /// The session id.
    public nonisolated let id: String
    /// The channel's name.
    public nonisolated let channelName: String
    /// Who fires the beacons.
    public nonisolated let reporting: ReportingMode
    /// The date of the viewer's first frame (its playlists' `EXT-X-PROGRAM-DATE-TIME`).
    public nonisolated let programDate: Date
    /// The channel's rungs, top first.
    public nonisolated let rungs: [LiveRung]
    /// The channel's subtitle renditions (`LiveChannel.subtitleRenditions`) when the viewer
    /// started: a playlist of each follows the top rung's items.
    public nonisolated let subtitles: [HLS.Rendition]
    /// The channel's other audio languages when the viewer started (`LiveChannels.languages`),
    /// each a language rung with a playlist of its own.
    public nonisolated let languages: [LiveLanguage]
    /// The origin's default audio rendition (the variants' own sound) when there are other
    /// languages; nil without.
    public nonisolated let mainLanguage: HLS.Rendition?

    /// What the viewer needs from the service.
    public struct Context: Sendable {
        /// The channel.
        public var channel: LiveChannel
        /// The store.
        public var media: any LiveMedia
        /// The ad tag template.
        public var adsTemplate: String
        /// How the ad request goes out besides its URL (`GET`, or `POST` with a body).
        public var adsRequest = ADSRequestTemplate()
        /// The CDN prefixes of the playlists' segment URLs.
        public var cdn = CDNPrefixes.none
        /// Clips around each break's ads.
        public var bumpers = Bumpers.none
        /// The live pre-roll (`LivePreroll`); nil: none.
        public var preroll: LivePreroll?
        /// Live ad prefetch: the longest a break's ad requests are spread over (`--live-prefetch-window`);
        /// zero: each viewer asks when it first sees the break.
        public var prefetchWindow: Double = 0
        /// The viewer's player parameters.
        public var playerParams: [String: String]
        /// The viewer's User-Agent.
        public var userAgent: String
        /// Seconds an ad request may take.
        public var adsTimeout: Double
        /// The break length assumed when a signal carries none, seconds.
        public var defaultAvail: Int
        /// Fires Error URLs of failed ad requests.
        public var beacons: BeaconSender
        /// Counts breaks, fill and slate.
        public var metrics: ServeMetrics
        /// The longest ad or slate segment the store makes, whole seconds: the playlists' target
        /// duration is at least this, from the first playlist on (a target may not change).
        public var longestSegment: Int
        /// Signs the ad segment URLs' beacon places.
        public var signature: SegmentSignature
        /// Hears what could not be published (logged once per viewer and rung).
        public var log: ServeLog?
        /// A break whose ready ads leave more than this unfilled plays the channel's content
        /// instead (MediaTailor's personalization threshold); nil: off.
        public var personalizationThreshold: MediaTime?
        /// Which breaks are left to the channel's content from where the live edge was when the
        /// session started (MediaTailor's avail suppression); nil: off.
        public var availSuppression: AvailSuppression?
        /// Where the fleet keeps its live viewers (`--redis`): any node continues this viewer;
        /// nil: this node's alone.
        public var store: (any LiveViewerStore)?
        /// How long after a break ends, behind the oldest item listed, its avail keeps its ads
        /// (`retireOldAvails`).
        public var availRetirement = MediaTime(seconds: 600)

        /// A context.
        public init(channel: LiveChannel, media: any LiveMedia, adsTemplate: String, playerParams: [String: String], userAgent: String,
                    adsTimeout: Double, defaultAvail: Int, beacons: BeaconSender, metrics: ServeMetrics, longestSegment: Int = 6,
                    signature: SegmentSignature = .random(), log: ServeLog? = nil, personalizationThreshold: MediaTime? = nil,
                    availSuppression: AvailSuppression? = nil) {
            self.channel = channel; self.media = media; self.adsTemplate = adsTemplate; self.playerParams = playerParams
            self.userAgent = userAgent; self.adsTimeout = adsTimeout; self.defaultAvail = defaultAvail; self.beacons = beacons
            self.metrics = metrics; self.longestSegment = longestSegment; self.signature = signature; self.log = log
            self.personalizationThreshold = personalizationThreshold
            self.availSuppression = availSuppression
        }
    }

    struct Track: Codable {
        /// The rendition's session timeline over the channel's sliding window: the items its
        /// playlist lists now, oldest first (the same as `playlist.window`).
        var timeline: SessionTimeline
        /// The playlist: appended to as items are published, slid, never rewritten.
        var playlist: HLS.LivePlaylist
        /// The last item published, as the writer saw it.
        var last: SessionPlaylist.Item?
        var cursor: Int64
        /// The channel ended (`EXT-X-ENDLIST`): once everything is published, so does the playlist.
        var ended = false
        /// The origin's edge when the last item was published.
        var edge: Int64 = .min
        /// An item could not be published (over the target duration): the next starts a new stream.
        var gap = false
        /// The top rung's: a playlist per subtitle rendition, a segment beside each of its own
        /// (the same durations, discontinuities and dates); nil for other rungs.
        var subtitles: [HLS.LivePlaylist]? = nil
        /// The last subtitle item published (the same for every subtitle playlist but its URI).
        var lastSubtitle: SessionPlaylist.Item? = nil
    }

    let context: Context
    /// The channel PTS the viewer starts at.
    public nonisolated let startPTS: Int64
    var tracks: [String: Track] = [:]
    var avails: [LiveAvail] = []
    var availByBreak: [String: Int] = [:]
    /// The origin's live edge when the session started (what avail suppression counts from).
    var joinEdge: Int64?
    /// The channel PTS the viewer's clock starts at: `startPTS`, or the pre-roll's start.
    var originPTS: Int64
    /// The pre-roll's avail, when one plays.
    var prerollAvail: Int?
    /// Beacons fired (`avail/ad/event`), each once.
    var fired: Set<String> = []
    private var advancing: [String: Task<Void, Never>] = [:]
    /// Changes made so far, as the fleet counts them (`LiveViewerRecord.version`); 0: never stored.
    var version = 0
    /// The viewer's record expired in the fleet's store: the session is over.
    var gone = false
    /// A call is changing the viewer (`shared`); those waiting for their turn.
    var inTurn = false
    var turns: [CheckedContinuation<Void, Never>] = []

    /// A viewer starting at `startPTS` (the first segment of the channel's window when it joined).
    public init(id: String, channelName: String, reporting: ReportingMode, rungs: [LiveRung], startPTS: Int64,
                context: Context, programDate: Date = Date(), subtitles: [HLS.Rendition] = [],
                languages: (main: HLS.Rendition?, others: [LiveLanguage]) = (nil, [])) {
        self.id = id; self.channelName = channelName; self.reporting = reporting; self.rungs = rungs; self.subtitles = subtitles
        self.languages = languages.others; mainLanguage = languages.main
        self.startPTS = startPTS; self.context = context; self.programDate = programDate
        originPTS = startPTS
    }

    /// Ticks a viewer stays behind the origin's edge: one target duration.
    static func hold(_ w: LiveWindow) -> Int64 { w.targetDuration.mpegTicks }

    /// The rung with this store rendition name (or channel key); a language rung by its key.
    public nonisolated func rung(named name: String) -> LiveRung? {
        rungs.first { $0.rendition.name == name || $0.key == name } ?? languages.first { $0.rung.key == name }?.rung
    }

    /// Asks the ad server for every break of the window not asked yet; when the viewer starts
    /// inside a break, waits for that answer (so a mid-break joiner sees the rest of the break
    /// with ads when they fit).
    public func prepare() async {
        guard let top = rungs.first, let w = await context.channel.window(rendition: top.key) else { return }
        if joinEdge == nil, let last = w.segments.last { joinEdge = last.firstPTS + last.duration.mpegTicks }
        if let p = context.preroll, prerollAvail == nil, originPTS == startPTS, avails.isEmpty { await preparePreroll(p) }
        requestAds(w)
        if let b = activeBreak(at: startPTS, in: w, rung: top), let i = availByBreak[b.id], avails[i].ads == nil {
            let deadline = monotonicSeconds() + context.adsTimeout + 0.5
            while avails[i].ads == nil && monotonicSeconds() < deadline { try? await Task.sleep(nanoseconds: 20_000_000) }
        }
    }

    /// The viewer's media playlist for `rung`, advanced to the channel's current window; nil
    /// when the channel has nothing for it or the viewer is gone (`isGone`).
    public func playlist(rung: LiveRung) async -> String? {
        await shared(saving: true) {
            await advance(rung)
            return tracks[rung.key]?.playlist.text
        } ?? nil
    }

    /// The viewer's MPEG-TS playlist for `rung` as its sound only: each segment's packed audio
    /// (`ServeService.packedAudio`), what the audio renditions of a master with other languages
    /// name (the top rung's for the main language, a language rung's for its language).
    public func packedAudioPlaylist(rung: LiveRung) async -> String? {
        await shared(saving: true) {
            await advance(rung)
            return tracks[rung.key].map { HLS.write(ServeService.packedAudio($0.playlist.playlist)) }
        } ?? nil
    }

    /// The viewer's playlist of subtitle rendition `track`, advanced with the top rung; nil
    /// when there is no such track or nothing to list.
    public func subtitlePlaylist(track: Int) async -> String? {
        guard let top = rungs.first, subtitles.indices.contains(track) else { return nil }
        return await shared(saving: true) {
            await advance(top)
            return tracks[top.key]?.subtitles.flatMap { $0.indices.contains(track) ? $0[track].text : nil }
        } ?? nil
    }

    /// Advances `rung`'s track once at a time: a second caller waits for the first.
    func advance(_ rung: LiveRung) async {
        if let t = advancing[rung.key] { await t.value; return }
        let t = Task { await self.step(rung) }
        advancing[rung.key] = t
        await t.value
        advancing[rung.key] = nil
    }

    private func step(_ rung: LiveRung) async {
        guard let w = await context.channel.window(rendition: rung.key), let last = w.segments.last else { return }
        requestAds(w)
        let edge = last.firstPTS + last.duration.mpegTicks
        // an ended channel has no decision left to wait for: everything is published
        let limit = w.ended ? edge : edge - Self.hold(w)
        var track = tracks[rung.key] ?? newTrack(w, rung: rung)
        track.ended = w.ended
        for _ in 0..<1_000 {
            guard let item = await nextItem(&track, window: w, rung: rung, limit: limit) else { break }
            guard item.endPTS <= limit else { break }
            track.cursor = item.endPTS
            track.edge = edge
            publish(item, on: &track, rung: rung)
            count(item)
        }
        if track.ended && track.cursor >= track.edge && !track.playlist.ended { track.playlist.end() }
        tracks[rung.key] = track
        retireOldAvails()
    }

    /// Avails that ended `availRetirement` before the oldest item any rung lists keep only their
    /// place (their index names them in segment URLs and beacon keys): the ad server's answer,
    /// the pod and the beacons fired for them are dropped, so that the viewer's state — its
    /// record, read and written at every refresh in a fleet — stays bounded however long the
    /// session plays. They leave the tracking JSON with them.
    func retireOldAvails() {
        guard let oldest = tracks.values.compactMap({ $0.timeline.items.first?.startPTS }).min() else { return }
        for i in avails.indices where !avails[i].retired {
            guard let end = avails[i].endPTS, end + context.availRetirement.mpegTicks < oldest else { continue }
            avails[i].retired = true
            avails[i].ads = []
            avails[i].planned = nil
            avails[i].pod = nil
            fired = fired.filter { !$0.hasPrefix("\(i)/") }
        }
    }

    private func count(_ item: SessionItem) {
        guard let a = item.breakIndex, item.endPTS > avails[a].countedThrough else { return }
        let from = max(item.startPTS, avails[a].countedThrough)
        let n = item.endPTS - from
        let slate = if case .slate = item.kind { true } else { false }
        if slate { avails[a].slateTicksPublished += n } else { avails[a].adTicksPublished += n }
        avails[a].countedThrough = item.endPTS
        context.metrics.liveBreakTime(ad: slate ? 0 : Double(n) / 90_000, slate: slate ? Double(n) / 90_000 : 0)
    }


    // MARK: content

    /// The next item at the track's cursor, or nil when nothing can be published yet.
    private func nextItem(_ track: inout Track, window w: LiveWindow, rung: LiveRung, limit: Int64) async -> SessionItem? {
        if let pa = prerollAvail, track.cursor < startPTS {
            // the pre-roll, then the channel from where the viewer joined
            if var item = await prerollItem(pa, track: track, rung: rung) {
                if item.endPTS == startPTS { item.leadsInto = Self.leadIn(at: startPTS, in: w) }
                return item
            }
            guard avails[pa].pod.map({ track.cursor >= avails[pa].startPTS + $0.adTicks }) ?? true else { return nil }
            track.cursor = startPTS
        }
        guard let first = w.segments.first else { return nil }
        var jumped = false
        if track.cursor < first.firstPTS {
            // the viewer fell behind the origin's window: on from its start, as a new stream
            track.cursor = first.firstPTS
            jumped = true
        }
        if let b = activeBreak(at: track.cursor, in: w, rung: rung), !playsContent(b) {
            let item = await breakItem(b, track: track, window: w, rung: rung, limit: limit)
            // the pod decided just now may have left the break to the channel's content
            if item != nil || !playsContent(b) { return item }
        }
        guard let seg = w.segments.first(where: { $0.firstPTS <= track.cursor && track.cursor < $0.firstPTS + $0.duration.mpegTicks }) else {
            // a hole on the channel's clock (a skipped segment's time, an EXTINF shorter than its frames): on at the next segment
            guard let next = w.segments.first(where: { $0.firstPTS > track.cursor }) else { return nil }
            track.cursor = next.firstPTS
            return await nextItem(&track, window: w, rung: rung, limit: limit)
        }
        let end = seg.firstPTS + seg.duration.mpegTicks
        let previousIsContent = track.timeline.last.map { if case .content = $0.kind { true } else { false } } ?? true
        if let encryption = seg.encryption {
            // encrypted (AES-128 or SAMPLE-AES): whole, as it came, on its own clock (breaks are at its boundaries)
            guard track.cursor == seg.firstPTS else {
                // (never cut: a cursor inside one goes on at its end, a new stream)
                track.cursor = end
                track.gap = true
                return end <= limit ? await nextItem(&track, window: w, rung: rung, limit: limit) : nil
            }
            return SessionItem(kind: .content(index: seg.sequence), segment: StoredSegment(path: seg.storePath, duration: seg.duration, encryption: encryption),
                               start: Self.time(seg.firstPTS),
                               discontinuity: jumped || !previousIsContent || (seg.discontinuity && !track.timeline.items.isEmpty))
        }
        // a break that plays the channel's content for this viewer (suppressed) cuts nothing
        var nextStart = w.breaks.filter { !playsContent($0) }.compactMap { b -> Int64? in
            let s = aligned(b.startPTS, in: w)
            return s.flatMap { $0 > track.cursor && $0 < end ? $0 : nil }
        }.min()
        // longer than the playlist's target (the origin's target grew): cut at the last frame within it
        let target = Int64(track.playlist.targetDuration)
        if MediaTime(value: (nextStart ?? end) - track.cursor, timescale: 90_000).rescaled(to: 1, rounding: .nearest).value > target,
           let frame = seg.framePTS.last(where: { $0 > track.cursor && $0 <= track.cursor + target * 90_000 }) {
            nextStart = frame
        }
        let startsAtSegment = track.cursor == seg.firstPTS
        let discontinuity = jumped || !previousIsContent || (startsAtSegment && seg.discontinuity && !track.timeline.items.isEmpty)
        let to = nextStart ?? end
        // a segment the channel re-anchored is moved onto its clock (and cut at its own PTS)
        let shift = Self.time(Self.shift(to: seg.clockOffset, from: 0))
        // content after an ad or slate has its sound from its first picture (`CutSound`): a
        // whole segment whose own sound starts later is made again as a piece
        let afterJoin = !previousIsContent && !track.timeline.items.isEmpty
        if startsAtSegment && nextStart == nil && !afterJoin {
            return SessionItem(kind: .content(index: seg.sequence), segment: StoredSegment(path: seg.storePath, duration: seg.duration),
                               start: Self.time(seg.firstPTS), shift: shift, discontinuity: discontinuity)
        }
        let piece = try? await context.media.segmentPiece(seg.storePath, rendition: rung.rendition,
                                                           from: startsAtSegment ? nil : seg.filePTS(track.cursor), to: nextStart.map(seg.filePTS),
                                                           afterJoin: afterJoin)
        guard let piece else {
            // nothing to show there (or the piece could not be made): skip the span, a new stream after it
            track.cursor = to
            return to <= limit ? await nextItem(&track, window: w, rung: rung, limit: limit) : nil
        }
        return SessionItem(kind: .content(index: seg.sequence),
                           segment: StoredSegment(path: piece.path, duration: Self.time(to - track.cursor)),
                           start: Self.time(track.cursor), shift: shift, discontinuity: discontinuity || !startsAtSegment)
    }

    // MARK: breaks

    /// The first content frame at or after `pts`, from the frames of the segment holding it; nil
    /// when that segment is not in the window yet. In an encrypted segment (never cut) the
    /// boundary nearest `pts` instead, the earlier of two as near.
    func aligned(_ pts: Int64, in w: LiveWindow) -> Int64? {
        guard let first = w.segments.first else { return nil }
        if pts < first.firstPTS { return pts }
        guard let seg = w.segments.first(where: { pts < $0.firstPTS + $0.duration.mpegTicks }) else { return nil }
        if pts <= seg.firstPTS { return seg.firstPTS }
        let end = seg.firstPTS + seg.duration.mpegTicks
        if seg.encryption != nil { return pts - seg.firstPTS <= end - pts ? seg.firstPTS : end }
        return seg.framePTS.first { $0 >= pts } ?? end
    }

    /// What the item ending at `pts` must lead into: the counters of the encrypted segment that
    /// starts there (its bytes cannot be marked as a new stream); nil for a clear one.
    static func leadIn(at pts: Int64, in w: LiveWindow) -> [TSDiscontinuity.Counter]? {
        guard let next = w.segments.first(where: { $0.firstPTS == pts }), next.encryption != nil, !next.counters.isEmpty else { return nil }
        return Array(next.counters.prefix(8))
    }

    /// The planned end of a break (unaligned): its signalled end, or start + planned duration,
    /// whichever is sooner.
    func plannedEnd(_ b: LiveBreak) -> Int64 {
        let planned = b.startPTS + (b.plannedDuration ?? MediaTime(seconds: Int64(context.defaultAvail))).mpegTicks
        return min(planned, b.endPTS ?? .max)
    }

    /// The break the viewer is in at `pts`, if any.
    func activeBreak(at pts: Int64, in w: LiveWindow, rung: LiveRung) -> LiveBreak? {
        w.breaks.first { b in
            guard let s = aligned(b.startPTS, in: w), s <= pts else { return false }
            let end = aligned(plannedEnd(b), in: w) ?? plannedEnd(b)
            return pts < end
        }
    }

    /// Starts an ad request for each break of `w` this viewer has not asked for.
    private func requestAds(_ w: LiveWindow) {
        for b in w.breaks where availByBreak[b.id] == nil {
            let end = plannedEnd(b)
            guard end > startPTS else { continue }   // over before the viewer came
            let start = max(b.startPTS, startPTS)
            let index = avails.count
            avails.append(LiveAvail(breakID: b.id, startPTS: start, requestedTicks: end - start, countedThrough: start))
            availByBreak[b.id] = index
            if let suppression = context.availSuppression, suppression.suppresses(breakStart: b.startPTS, edge: joinEdge ?? startPTS) {
                // no ad request: the break plays the channel's content for this viewer
                avails[index].playsContent = true
                avails[index].ads = []   // answered: a viewer joining inside it has nothing to wait for
                context.log?.event("live_break_suppressed", ["session": id, "break": b.id])
                continue
            }
            context.metrics.liveAvail()
            // prefetch: a break seen ahead of when it is due is asked for at a time of this
            // viewer's own within the lead it leaves (less the request's timeout), so that a
            // channel's viewers do not all ask at once (MediaTailor's traffic shaping)
            let delay = Self.prefetchDelay(window: context.prefetchWindow, leadTicks: start - (edgeOf(w) - Self.hold(w)),
                                           timeout: context.adsTimeout, session: id, breakID: b.id)
            avails[index].requestedAt = Date().timeIntervalSince1970 + delay
            context.metrics.liveRequestDelayed(delay)
            let seconds = max(1, Int(((Double(end - start) / 90_000)).rounded()))
            let values = TagTemplate.Values(sessionID: id, playerParams: context.playerParams, availDurationSeconds: seconds,
                                            availIndex: index + 1, userAgent: context.userAgent, scte: b.scte)
            let tag = TagTemplate.expand(context.adsTemplate, values), request = context.adsRequest.request(values)
            let ctx = context, rungs = self.rungs
            Task.detached {
                if delay > 0 { try? await Task.sleep(nanoseconds: UInt64(delay * 1e9)) }
                let content = PreparedContent(name: ctx.channel.name, duration: MediaTime(seconds: Int64(seconds)), renditions: [], originCues: [])
                let d = await AdDecision.decide(tag: tag, request: request, content: content, timeout: ctx.adsTimeout, sender: ctx.beacons)
                ctx.metrics.adsRequest(d.latency, failed: d.failed)
                let ads = d.breaks.flatMap(\.ads)
                for ad in ads { for r in rungs { _ = ctx.media.ad(mediaURL: ad.mediaURL, rendition: r.rendition) } }
                await self.answeredShared(index, ads: ads)
            }
        }
    }

    /// The ad server's answer for avail `index`, taken into the viewer's latest state.
    private func answeredShared(_ index: Int, ads: [PlannedAd]) async {
        _ = await shared(saving: true) { if avails.indices.contains(index), avails[index].ads == nil { answered(index, ads: ads) } }
    }

    func answered(_ index: Int, ads: [PlannedAd]) {
        // the configuration's bumpers around the ad server's ads
        var pod = context.bumpers.wrap(ads)
        for i in pod.indices { pod[i].sequence = i + 1 }
        for ad in pod where ad.isBumper { for r in rungs { _ = context.media.ad(mediaURL: ad.mediaURL, rendition: r.rendition) } }
        avails[index].ads = pod
        avails[index].planned = PlannedBreak(id: avails[index].breakID, position: .midroll(.zero), ads: pod)
    }

    /// The pod of avail `i`, fitted now if not yet: the answered ads that are in the store in
    /// every rung, in order, as long as they fit. Past the personalization threshold (more than
    /// it left unfilled) the break plays the channel's content instead: no ads, no slate, no
    /// markers, logged once.
    private func pod(_ i: Int, plannedEnd: Int64) -> LivePod {
        if let p = avails[i].pod { return p }
        let avail = plannedEnd - avails[i].startPTS
        let decided = avails[i].ads ?? []
        let p = LivePod.fit(decided.map(readyLength), availTicks: avail, startBumper: decided.firstIndex { $0.isBumper && $0.id == "bumper-start" },
                            endBumper: decided.firstIndex { $0.isBumper && $0.id == "bumper-end" })
        avails[i].pod = p
        if let threshold = context.personalizationThreshold, avail - p.adTicks > threshold.mpegTicks {
            avails[i].playsContent = true
            context.log?.event("live_break_content", ["session": id, "break": avails[i].breakID,
                                                      "unfilledSeconds": Double(avail - p.adTicks) / 90_000,
                                                      "thresholdSeconds": threshold.seconds])
        }
        return p
    }

    /// The length (ticks, of the top rung) of `ad` when it is in the store in every rung (a bumper
    /// only up to `Bumpers.longest`); nil otherwise, its transcodes queued for later viewers.
    func readyLength(_ ad: PlannedAd) -> Int64? {
        var length: Int64?
        for r in rungs {
            guard case .ready(_, let d) = context.media.ad(mediaURL: ad.mediaURL, rendition: r.rendition) else { return nil }
            if ad.isBumper && d > Bumpers.longest { return nil }
            if length == nil { length = d.mpegTicks }
        }
        return length
    }

    /// Whether break `b` plays the channel's content for this viewer (personalization threshold).
    private func playsContent(_ b: LiveBreak) -> Bool {
        availByBreak[b.id].map { avails[$0].playsContent } ?? false
    }

    /// The next item of break `b` at the track's cursor; the break's end is recorded once an
    /// item reaches it.
    private func breakItem(_ b: LiveBreak, track: Track, window w: LiveWindow, rung: LiveRung, limit: Int64) async -> SessionItem? {
        guard let ai = availByBreak[b.id] else { return nil }
        let end = aligned(plannedEnd(b), in: w)   // nil: still ahead of the window
        var item = await breakItem(b, avail: ai, end: end, track: track, window: w, rung: rung, limit: limit)
        if let i = item, let end, i.endPTS >= end, i.endPTS <= limit { avails[ai].endPTS = end }
        if let i = item, let end, i.endPTS == end { item?.leadsInto = Self.leadIn(at: end, in: w) }
        return item
    }

    private func breakItem(_ b: LiveBreak, avail ai: Int, end: Int64?, track: Track, window w: LiveWindow, rung: LiveRung,
                           limit: Int64) async -> SessionItem? {
        let cursor = track.cursor
        // encrypted content comes back at a segment boundary: the pod fits up to it once it is known
        let endGuess = (w.segments.last?.encryption != nil ? end : nil) ?? plannedEnd(b)
        if !avails[ai].started {
            // the viewer's break starts at its first frame (or where the viewer joined)
            avails[ai].startPTS = cursor; avails[ai].countedThrough = cursor; avails[ai].started = true
        }
        // Until the ad server answered, publish nothing of the break, however far behind the edge
        // it already is (a viewer refreshing once a target duration sees a break first when its
        // start is seconds below the limit: publishing then would fill with slate a break whose
        // ads are ready and whose answer is a moment away); the playlist holds three target
        // durations, so a player rides the wait out. Once the request's time is up, what has not
        // answered gets slate.
        if avails[ai].pod == nil, avails[ai].ads == nil, Date().timeIntervalSince1970 < avails[ai].requestedAt + context.adsTimeout + 0.5 { return nil }
        let pod = pod(ai, plannedEnd: endGuess)
        if avails[ai].playsContent { return nil }
        let start = avails[ai].startPTS
        let (slot, within) = pod.locate(cursor - start)
        let firstOfBreak = !(track.timeline.last.map { $0.breakIndex == ai } ?? false)
        if let slot {
            switch await adItem(avail: ai, slot: slot, within: within, cursor: cursor, firstOfBreak: firstOfBreak, end: end, rung: rung) {
            case .item(let item): return item
            case .notYet: return nil
            case .notInStore: break   // slate in its place
            }
        }
        // slate: pieces of one stream (about a second each, whole frames of the channel's rate)
        // from where the ads end (or where an ad that is gone from the store would have
        // played), the last one up to the break's end
        let slateStart = slot == nil ? cursor - within : cursor
        let into = cursor - slateStart
        let second = rung.rendition.slatePiece.mpegTicks
        var remaining = end.map { $0 - cursor } ?? .max
        if let slot { remaining = min(remaining, pod.slots[slot].ticks - within) }
        // slate between the ads and the end bumper stops where the bumper starts
        if slot == nil, let next = pod.nextSlotStart(after: cursor - start) { remaining = min(remaining, start + next - cursor) }
        let length = min(second - into % second, remaining)
        let total = MediaTime(value: into + length, timescale: 90_000)
        guard let pieces = try? await context.media.slate(rendition: rung.rendition, duration: total),
              let piece = pieces.last, let first = pieces.first,
              let clock = context.media.firstPTS(ofSegment: first.path) else { return nil }
        return SessionItem(kind: .slate(breakIndex: ai, ad: nil), segment: StoredSegment(path: piece.path, duration: Self.time(length)),
                           start: Self.time(cursor), shift: Self.time(Self.shift(to: slateStart, from: clock)),
                           discontinuity: firstOfBreak || into == 0 || !(track.timeline.last.map { if case .slate = $0.kind { true } else { false } } ?? false))
    }

    /// The item of slot `slot` of avail `ai`'s pod at `cursor`, `within` ticks into the ad: the
    /// ad segment holding it, moved onto the channel's clock where the ad starts; when the break
    /// ends (`end`) inside that segment, a piece of it up to its last frame that ends by then.
    func adItem(avail ai: Int, slot: Int, within: Int64, cursor: Int64, firstOfBreak: Bool, end: Int64?,
                rung: LiveRung) async -> AdItem {
        guard let pod = avails[ai].pod, let ad = avails[ai].ads?[pod.slots[slot].ad],
              case .ready(let segments, _) = context.media.ad(mediaURL: ad.mediaURL, rendition: rung.rendition) else { return .notInStore }
        var offset: Int64 = 0
        for (k, s) in segments.enumerated() {
            let d = s.duration.mpegTicks
            defer { offset += d }
            guard within < offset + d else { continue }
            let adStart = cursor - within
            guard let clock = context.media.firstPTS(ofSegment: segments[0].path) else { return .notYet }
            let shift = Self.time(Self.shift(to: adStart, from: clock))
            var item = SessionItem(kind: .ad(breakIndex: ai, ad: pod.slots[slot].ad, segment: k, count: segments.count, cut: false),
                                   segment: s, start: Self.time(cursor), offsetInAd: Self.time(within), shift: shift,
                                   discontinuity: k == 0 || firstOfBreak)
            if let end, cursor + d > end {
                // The break ended inside this segment: it stops at its last frame that ends by
                // the break's end (an ad at another frame rate leaves a gap under a frame,
                // never an overlap with the content that follows).
                let frames = context.media.framePTS(ofSegment: s.path)
                guard let segClock = frames.first else { return .notYet }
                let frame = frames.count > 1 ? frames[1] - frames[0] : 1
                guard let piece = try? await context.media.segmentPiece(s.path, rendition: rung.rendition, from: nil,
                                                                         to: segClock + (end - cursor) - frame + 1, afterJoin: false) else { return .notYet }
                item.kind = .ad(breakIndex: ai, ad: pod.slots[slot].ad, segment: k, count: segments.count, cut: true)
                item.segment = StoredSegment(path: piece.path, duration: Self.time(end - cursor))
            }
            return .item(item)
        }
        return .notInStore
    }

    /// What `adItem` found: the item, nothing to publish yet, or an ad not in the store.
    enum AdItem { case item(SessionItem), notYet, notInStore }

    /// The channel PTS where window `w` ends (its live edge).
    func edgeOf(_ w: LiveWindow) -> Int64 { w.segments.last.map { $0.firstPTS + $0.duration.mpegTicks } ?? startPTS }

    /// How long a viewer holds its ad request for a break seen `leadTicks` before it is due
    /// (before the viewers' publication limit reaches it): a share of `min(window, lead −
    /// timeout − 0.5 s)` fixed by the session and the break (a hash, spread evenly over the
    /// viewers), so the answer is in before the break is due; 0 with no window or no lead
    /// (a break signalled as it starts is asked for at once).
    static func prefetchDelay(window: Double, leadTicks: Int64, timeout: Double, session: String, breakID: String) -> Double {
        let room = min(window, Double(leadTicks) / 90_000 - timeout - 0.5)
        guard room > 0 else { return 0 }
        var h: UInt64 = 0xcbf2_9ce4_8422_2325   // FNV-1a over the ids
        for b in (session + "|" + breakID).utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return room * Double(h >> 11) / Double(1 << 53)
    }

    /// `ticks` of the channel's 90 kHz clock as a time (items, tracking).
    static func time(_ ticks: Int64) -> MediaTime { MediaTime(value: ticks, timescale: 90_000) }

    /// The shift (90 kHz, within ±2^32) that moves a stream whose first frame is at `clock`
    /// (mod 2^33) to `target` on the channel's clock (mod 2^33).
    static func shift(to target: Int64, from clock: Int64) -> Int64 {
        var d = ((target - clock) % LivePTS.wrap + LivePTS.wrap) % LivePTS.wrap
        if d > LivePTS.wrap / 2 { d -= LivePTS.wrap }
        return d
    }
}
