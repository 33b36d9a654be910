import Foundation
import Manifest
import Playback
import Timing

/// The one writer of a session's DASH MPD (VOD: static), from the same timelines its HLS
/// playlists are written from: a Period per run of the timeline (each content run between two
/// breaks, each ad, each slate fill) with `Period@start` the run's start on the session's clock
/// and `@duration` its exact length, so that each Period ends where the next starts, to the
/// microsecond the document writes and to the 90 kHz tick.
///
/// Each Period keeps its media's own clock: a segment is sent as CMAF tracks made from its
/// stored MPEG-TS (`CMAFTracks`), timestamps untouched, and the Period's
/// `presentationTimeOffset` is the PTS of its first picture, so content and ad segments are
/// the same URLs for every session. A Representation per rung lists its segments
/// (`SegmentList`: a content run mixes a cut's re-encoded pieces with the stored segments,
/// which no one template names) and their exact times (`SegmentTimeline`); one audio
/// Representation, the top rung's. An ad's video segment URLs carry the session's signed beacon
/// place, as in HLS: their fetch fires its server-side beacons.
///
/// Each ad Period names its ad (`AssetIdentifier`, DASH-IF's scheme) and carries an event of
/// Interlude's ad scheme; a break's first Period carries the SCTE-35 `splice_insert` out of
/// network (`urn:scte:scte35:2014:xml+bin`) with the break's duration at its first picture's
/// PTS, the Period after it the `splice_insert` back.
enum SessionMPD {
    /// One rung: its rendition, its codecs (the HLS variant's `CODECS`) and its timeline.
    struct Rung {
        var rendition: Rendition
        var codecs: String
        var timeline: SessionTimeline
        /// Live: the media sequence number of the timeline's first item (its playlists'), what
        /// numbers the segments of every Period (`SegmentList@startNumber`) across updates.
        var firstSequence: Int? = nil
        /// Live: the channel's rendition key (a language rung shares its store rendition with
        /// the rung it takes its video from).
        var key: String? = nil
    }

    /// Live: another audio language, its language rung and `lang`.
    struct Language {
        var language: String?
        var rung: Rung
    }

    /// The MPD timescale: MPEG-TS's 90 kHz, what every stored segment's timestamps count.
    static let timescale: Int64 = 90_000

    /// A run of the timeline: items `range`.
    struct Run {
        var range: Range<Int>
        var kind: SessionItem.Kind
    }

    /// `items` split where a new stream starts, or content kept as it came changes its keying
    /// (`SessionItem.startsRun`).
    static func runs(_ items: [SessionItem]) -> [Run] {
        var out: [Run] = []
        for (i, item) in items.enumerated() {
            if item.startsRun(after: i > 0 ? items[i - 1] : nil) { out.append(Run(range: i..<(i + 1), kind: item.kind)) } else { out[out.count - 1].range = out[out.count - 1].range.lowerBound..<(i + 1) }
        }
        return out
    }

    /// Whether two timelines split into runs of the same kinds and lengths (rungs of one session do).
    static func sameRuns(_ a: [SessionItem], _ b: [SessionItem]) -> Bool {
        let ra = runs(a), rb = runs(b)
        guard ra.count == rb.count else { return false }
        return zip(ra, rb).allSatisfy { x, y in
            SessionTimeline.startsNewStream(a[x.range.lowerBound], b[y.range.lowerBound]) == false &&
                a[x.range].reduce(MediaTime.zero) { $0 + $1.segment.duration } == b[y.range].reduce(MediaTime.zero) { $0 + $1.segment.duration }
        }
    }

    /// The segment list of `items` (one run of one rung) for `part` (video or audio), nil when
    /// the PTS of the run's first picture is unknown.
    /// `runStart`: where the run began on the session's clock when its first items are not listed
    /// (a live window's first run): the offset is that time's PTS on the run's clock.
    /// `initialization`: the initialization segment's URL when it is not the first item's (a live
    /// rung's kept one, the same in every update).
    /// `shifted`: the segments are sent on the session's clock (their wire PTS), not their stored one.
    static func list(_ items: ArraySlice<SessionItem>, video: Bool, runStart: MediaTime? = nil, initialization: String? = nil,
                     shifted: Bool = false, url: (SessionItem, CMAFTracks.Part) -> String) -> DASH.SegmentList? {
        guard let first = items.first, let origin = shifted ? first.wirePTS : first.storedPTS else { return nil }
        var ticks: [Int64] = []
        for item in items { ticks.append((origin + (item.start - first.start)).mpegTicks) }
        let end = (origin + (items.last!.end - first.start)).mpegTicks
        let segments = ticks.indices.map { k in (start: ticks[k], duration: (k + 1 < ticks.count ? ticks[k + 1] : end) - ticks[k]) }
        let offset = (origin - (first.start - (runStart ?? first.start))).mpegTicks
        return DASH.SegmentList(timescale: timescale, presentationTimeOffset: offset,
                                initialization: initialization ?? url(first, video ? .videoInit : .audioInit),
                                timeline: DASH.SegmentTemplate.timeline(segments),
                                media: items.map { url($0, video ? .video : .audio) })
    }

    /// `list` numbered from `rung`'s first sequence number (live), by the items' place in its timeline.
    static func list(_ items: ArraySlice<SessionItem>, of rung: Rung, video: Bool, runStart: MediaTime?, initialization: String?,
                     shifted: Bool, url: (SessionItem, CMAFTracks.Part) -> String) -> DASH.SegmentList? {
        var l = list(items, video: video, runStart: runStart, initialization: initialization, shifted: shifted, url: url)
        if let n = rung.firstSequence { l?.startNumber = n + items.startIndex }
        return l
    }

    /// The static MPD of `rungs` (top first) for `session`: segment URLs by `url(item, rung,
    /// part)`, peak bit rates from `bytes(path)` (the stored TS's size, an upper bound of its
    /// tracks'). Rungs whose runs differ from the top's are left out.
    static func vod(_ session: ServeSession, rungs given: [Rung], url: (SessionItem, String, CMAFTracks.Part) -> String,
                    bytes: (String) -> Int, text: (_ contentSpan: Range<Int64>?) -> [DASH.AdaptationSet] = { _ in [] },
                    defaultLanguage: String? = nil, languages offered: [(track: AudioTrack, rung: Rung)] = [],
                    protected: (cmaf: ProtectedCMAF, url: (String) -> String)? = nil) -> DASH.MPD? {
        guard let top = given.first, !top.timeline.items.isEmpty else { return nil }
        let rungs = given.filter { sameRuns(top.timeline.items, $0.timeline.items) }
        let topRuns = runs(top.timeline.items)
        let rungRuns = rungs.map { runs($0.timeline.items) }
        let languages = offered.filter { sameRuns(top.timeline.items, $0.rung.timeline.items) }
        let languageRuns = languages.map { runs($0.rung.timeline.items) }
        var periods: [DASH.Period] = []
        var contentAt = MediaTime.zero
        for (n, run) in topRuns.enumerated() {
            let items = top.timeline.items[run.range]
            let start = items.first!.start, duration = items.reduce(MediaTime.zero) { $0 + $1.segment.duration }
            let slices = rungs.indices.map { g in (rungs[g], rungs[g].timeline.items[rungRuns[g][n].range]) }
            guard var (sets, pto) = adaptationSets(slices, url: url, bytes: bytes) else { return nil }
            if let protected, items.first?.segment.encryption?.isCMAF == true {
                sets = protectedSets(sets, rungs: rungs, protected.cmaf, from: MediaTime(value: pto, timescale: timescale), length: duration, url: protected.url)
            }
            // the origin's audio renditions: the ladder's sound is the default's, each other
            // language its rung's sound, cut and filled with ads at the same frames
            if let lang = defaultLanguage, let i = sets.firstIndex(where: { $0.contentType == "audio" }) { sets[i].language = lang }
            for (k, l) in languages.enumerated() {
                let slice = l.rung.timeline.items[languageRuns[k][n].range]
                guard let codec = audioCodec(l.rung.codecs),
                      let list = list(slice, of: l.rung, video: false, runStart: nil, initialization: nil, shifted: false,
                                      url: { url($0, l.rung.rendition.name, $1) }) else { continue }
                var rep = DASH.Representation(id: "audio-\(k + 1)", bandwidth: max(1, l.rung.rendition.audioBitrate), codecs: codec)
                rep.segmentList = list
                sets.append(DASH.AdaptationSet(id: 3 + k, contentType: "audio", mimeType: "audio/mp4", language: l.track.language,
                                               segmentTemplate: nil, representations: [rep]))
            }
            // the content time a content Period shows (its subtitles' span); nil for an ad's or slate's
            var span: Range<Int64>?
            if case .content = run.kind {
                span = contentAt.mpegTicks..<(contentAt + duration).mpegTicks
                contentAt += duration
            }
            var period = DASH.Period(id: periodID(run.kind, n), start: start, duration: duration, adaptationSets: sets + text(span))
            period.assetIdentifier = adID(session, run.kind).map { DASH.Descriptor(schemeIdUri: DASH.assetIdentifierScheme, value: $0) }
            let all = top.timeline.items
            // a break lasts its runs from here on
            func length(_ b: Int) -> MediaTime? {
                var sum = MediaTime.zero
                for r in topRuns[n...] {
                    guard all[r.range.lowerBound].breakIndex == b else { break }
                    for item in all[r.range] { sum += item.segment.duration }
                }
                return sum
            }
            let before = n > 0 ? all[topRuns[n - 1].range.lowerBound].breakIndex : nil
            period.eventStreams = events(run.kind, breakBefore: before, pto: pto, adID: { adID(session, $0) },
                                         breakID: { session.breaks[$0].id }, breakLength: length, adDuration: duration)
            periods.append(period)
        }
        return DASH.MPD(type: .static, profiles: [DASH.mainProfile], mediaPresentationDuration: top.timeline.duration,
                        minBufferTime: MediaTime(seconds: 2), periods: periods)
    }

    /// The adaptation sets of one Period from the run's items in each rung (top first): a video
    /// Representation per rung that has the run, the top rung's sound as the one audio
    /// Representation; with the Period's presentation time offset (the top rung's). Nil when no
    /// rung's run has a known clock. `runStart` as for `list`.
    static func adaptationSets(_ slices: [(Rung, ArraySlice<SessionItem>)], runStart: MediaTime? = nil,
                               initialization: ((Rung, CMAFTracks.Part) -> String)? = nil, shifted: Bool = false,
                               url: (SessionItem, String, CMAFTracks.Part) -> String, bytes: (String) -> Int) -> ([DASH.AdaptationSet], Int64)? {
        guard let (top, topItems) = slices.first else { return nil }
        var videos: [DASH.Representation] = []
        var pto: Int64?
        for (rung, slice) in slices {
            guard let list = list(slice, of: rung, video: true, runStart: runStart, initialization: initialization?(rung, .videoInit),
                                  shifted: shifted, url: { url($0, rung.rendition.name, $1) }) else { continue }
            pto = pto ?? list.presentationTimeOffset
            var rep = videoRepresentation(rung, items: slice, bytes: bytes)
            rep.segmentList = list
            videos.append(rep)
        }
        guard !videos.isEmpty, let pto else { return nil }
        var sets = [DASH.AdaptationSet(id: 1, contentType: "video", mimeType: "video/mp4", segmentTemplate: nil, representations: videos)]
        sets[0].segmentAlignment = Set(videos.map { $0.segmentList!.timeline.map(\.duration) }).count == 1
        if let audioCodec = audioCodec(top.codecs),
           let list = list(topItems, of: top, video: false, runStart: runStart, initialization: initialization?(top, .audioInit),
                           shifted: shifted, url: { url($0, top.rendition.name, $1) }) {
            var rep = DASH.Representation(id: "audio", bandwidth: max(1, top.rendition.audioBitrate), codecs: audioCodec)
            rep.segmentList = list
            sets.append(DASH.AdaptationSet(id: 2, contentType: "audio", mimeType: "audio/mp4", segmentTemplate: nil, representations: [rep]))
        }
        return (sets, pto)
    }

    /// A content Period's `sets` of an encrypted origin's segments kept as they came
    /// (`ProtectedCMAF`): the video AdaptationSet with the origin's `ContentProtection` and
    /// codecs (its sample entries are the origin's), the sound the origin's own segments that
    /// cover the Period's `length` from video time `from` (the first may begin before it, the
    /// last end after it: the Period's bounds trim them), `presentationTimeOffset` the audio time
    /// of `from` on the origin's one presentation timeline, and each other language the same way
    /// (an AdaptationSet each, with its `lang`); URLs by `url(path)`.
    static func protectedSets(_ sets: [DASH.AdaptationSet], rungs: [Rung], _ protected: ProtectedCMAF, from: MediaTime, length: MediaTime,
                              url: (String) -> String) -> [DASH.AdaptationSet] {
        var out = sets.filter { $0.contentType == "video" }
        for i in out.indices {
            out[i].contentProtection = protected.video
            for r in out[i].representations.indices {
                let id = out[i].representations[r].id
                if let codecs = rungs.first(where: { $0.rendition.name == id })?.codecs.split(separator: ",").first { out[i].representations[r].codecs = String(codecs) }
            }
        }
        // the sound, then each other language
        for (k, a) in protected.audioTracks.enumerated() {
            let lo = (from + a.zeroTime).rescaled(to: a.timescale, rounding: .nearest).value
            let hi = (from + length + a.zeroTime).rescaled(to: a.timescale, rounding: .nearest).value
            let covering = a.segments.filter { $0.start < hi && $0.start + $0.duration > lo }
            guard !covering.isEmpty else { continue }
            var rep = DASH.Representation(id: k == 0 ? "audio" : "audio-\(k)", bandwidth: a.bandwidth, codecs: a.codecs,
                                          audioSamplingRate: a.sampleRate, audioChannels: a.channels)
            rep.segmentList = DASH.SegmentList(timescale: a.timescale, presentationTimeOffset: lo, initialization: url(a.initialization),
                                               timeline: DASH.SegmentTemplate.timeline(covering.map { (start: $0.start, duration: $0.duration) }),
                                               media: covering.map { url($0.path) })
            var set = DASH.AdaptationSet(id: 2 + k, contentType: "audio", mimeType: "audio/mp4", language: a.language, segmentTemplate: nil, representations: [rep])
            set.contentProtection = a.protection
            out.append(set)
        }
        return out
    }

    /// `rung`'s video Representation over `items` (not empty), its segments not yet named:
    /// `@bandwidth` the peak bit rate of their stored TS (`bytes(path)`), an upper bound of the
    /// video track's (which leaves out audio and TS's overhead).
    static func videoRepresentation(_ rung: Rung, items: ArraySlice<SessionItem>, bytes: (String) -> Int) -> DASH.Representation {
        let target = max(1, Int(items.map(\.segment.duration).max()!.rescaled(to: 1, rounding: .up).value))
        let peak = SegmentBitRate.of(items.map { (bytes($0.segment.path), $0.segment.duration) }, targetDuration: target).peak
        let r = rung.rendition
        return DASH.Representation(id: r.name, bandwidth: max(1, peak), codecs: videoCodec(rung.codecs), width: r.width, height: r.height,
                                   frameRate: r.frameRate.map(\.description), sar: "1:1")
    }

    /// The video entry of a variant's CODECS, with the sample entry the CMAF tracks have (`avc3`, `hev1`).
    static func videoCodec(_ codecs: String) -> String {
        let v = codecs.split(separator: ",").first.map(String.init) ?? "avc3"
        if v.hasPrefix("avc1.") { return "avc3." + v.dropFirst(5) }
        if v.hasPrefix("hvc1.") { return "hev1." + v.dropFirst(5) }
        return v
    }

    /// The audio entry of a variant's CODECS, nil when it has none.
    static func audioCodec(_ codecs: String) -> String? {
        codecs.split(separator: ",").map(String.init).first { $0.hasPrefix("mp4a") || $0 == "ac-3" || $0 == "ec-3" || $0 == "opus" }
    }

    /// A Period's id: `content-R`, `break-B-ad-A`, `break-B-slate-A` (or `…-slate` for live's fill).
    static func periodID(_ kind: SessionItem.Kind, _ n: Int) -> String {
        switch kind {
        case .content(let r): "content-\(r)"
        case .ad(let b, let a, _, _, _): "break-\(b)-ad-\(a)"
        case .slate(let b, let a): a.map { "break-\(b)-slate-\($0)" } ?? "break-\(b)-slate-\(n)"
        }
    }

    /// The VAST ad id an ad Period plays.
    static func adID(_ session: ServeSession, _ kind: SessionItem.Kind) -> String? {
        guard case .ad(let b, let a, _, _, _) = kind, session.breaks.indices.contains(b), session.breaks[b].ads.indices.contains(a) else { return nil }
        return session.breaks[b].ads[a].id
    }

    /// The events of a Period of `kind` after one of break `before` (nil: content, or none), its
    /// picture at `pto` (90 kHz): the SCTE-35 out at a break's first Period (with the break's
    /// length when `breakLength` knows it), back in at the Period after a break, the ad's own event
    /// at each ad Period (`adID`, its break's `breakID`; lasting `adDuration` when given).
    static func events(_ kind: SessionItem.Kind, breakBefore before: Int?, pto: Int64, adID: (SessionItem.Kind) -> String?,
                       breakID: (Int) -> String, breakLength: (Int) -> MediaTime?, adDuration: MediaTime?) -> [DASH.EventStream] {
        let this = kind.breakIndex
        let at = MediaTime(value: pto, timescale: timescale)
        var splices: [DASH.Event] = []
        if let b = before, b != this {
            splices.append(DASH.Event(id: UInt32(2 * b + 2), presentationTime: pto,
                                      payload: .scte35(SCTE35.spliceInsert(eventID: UInt32(b + 1), outOfNetwork: false, at: at, breakDuration: nil))))
        }
        if let b = this, b != before {
            let length = breakLength(b)
            splices.append(DASH.Event(id: UInt32(2 * b + 1), presentationTime: pto, duration: length?.mpegTicks,
                                      payload: .scte35(SCTE35.spliceInsert(eventID: UInt32(b + 1), outOfNetwork: true, at: at, breakDuration: length))))
        }
        var out: [DASH.EventStream] = []
        if !splices.isEmpty {
            var s = DASH.EventStream(schemeIdUri: DASH.scte35Scheme, timescale: timescale, events: splices)
            s.presentationTimeOffset = pto
            out.append(s)
        }
        if case .ad(let b, let a, _, _, _) = kind, let id = adID(kind) {
            var s = DASH.EventStream(schemeIdUri: DASH.adScheme, value: breakID(b), timescale: timescale,
                                     events: [DASH.Event(id: UInt32(a + 1), presentationTime: pto, duration: adDuration?.mpegTicks, payload: .message(id))])
            s.presentationTimeOffset = pto
            out.append(s)
        }
        return out
    }
}

extension SessionMPD {
    /// A live Period's id: its kind and its start in 90 kHz ticks on the session's clock
    /// (`content-T`, `avail-B-ad-A-T`, `avail-B-slate-T`), the same in every update.
    static func liveID(_ kind: SessionItem.Kind, _ start: MediaTime) -> String {
        let t = start.mpegTicks
        switch kind {
        case .content: return "content-\(t)"
        case .ad(let b, let a, _, _, _): return "avail-\(b)-ad-\(a)-\(t)"
        case .slate(let b, _): return "avail-\(b)-slate-\(t)"
        }
    }

    /// The dynamic MPD of a live viewer's `rungs` (top first; each timeline what its playlist
    /// lists now, on the session's clock, with each item's wire PTS): a Period per run as for
    /// VOD, the first one starting where its run began even when its first segments slid out
    /// (`SessionTimeline.firstRun`), every Period but the last lasting up to the next (the last
    /// open: the channel goes on). What an update writes of a Period never changes afterwards: its
    /// id, start, offset and segments come from items that are only appended and slid, and its
    /// events carry no length the break may still change (the SCTE-35 out without a break
    /// duration, the back-in at the Period after the break, the ad's event without duration).
    /// `availabilityStart` is the session's clock zero as a date (what its HLS program dates
    /// count from), `updatePeriod` the playlists' target duration, `location` the MPD's own URL,
    /// `initialization` each rung's initialization segments (the same in every Period and update:
    /// `avc3`/`hev1` sample entries, each ad's parameter sets in band, as HLS's one map),
    /// `template(representation id)` the `SegmentTemplate@media` that names a Representation's
    /// segments by number (the items' media sequence numbers, `SegmentTemplate@startNumber`), on
    /// the session's clock (each item's timestamps moved as in HLS: `presentationTimeOffset`
    /// the wire PTS at the Period's start).
    /// With other audio `languages`: an audio AdaptationSet each (`audio-N`, its `lang`; the
    /// main one's `lang` `mainLanguage`), its language rung's sound cut and filled as the video.
    /// `kept`: the channel is sample-encrypted CMAF kept as it came (`keptCMAFSets`): how its
    /// encryption is said, and the URL of a kept file.
    static func live(rungs given: [Rung], availabilityStart: Date, published: Date, updatePeriod: MediaTime, location: String?,
                     adID: (SessionItem.Kind) -> String?, breakID: (Int) -> String, initialization: @escaping (Rung, CMAFTracks.Part) -> String,
                     template: (String) -> String, bytes: (String) -> Int, mainLanguage: String? = nil,
                     languages offered: [Language] = [], subtitles: LiveText? = nil,
                     kept: KeptCMAF? = nil) -> DASH.MPD? {
        guard let top = given.first, let first = top.timeline.firstRun else { return nil }
        let rungs = given.filter { sameRuns(top.timeline.items, $0.timeline.items) }
        let all = top.timeline.items
        let topRuns = runs(all)
        let rungRuns = rungs.map { runs($0.timeline.items) }
        let languages = offered.filter { sameRuns(top.timeline.items, $0.rung.timeline.items) }
        let languageRuns = languages.map { runs($0.rung.timeline.items) }
        var periods: [DASH.Period] = []
        for (n, run) in topRuns.enumerated() {
            let start = n == 0 ? first.start : all[run.range.lowerBound].start
            let next = n + 1 < topRuns.count ? all[topRuns[n + 1].range.lowerBound].start : nil
            let slices = rungs.indices.map { g in (rungs[g], rungs[g].timeline.items[rungRuns[g][n].range]) }
            // each Representation's segments by number (`template(id)`, `$Number$` the media
            // sequence number): the template players expect of a live presentation, so no
            // segment URL is written (nor signed) per item
            guard var (sets, pto) = adaptationSets(slices, runStart: start, initialization: initialization, shifted: true,
                                                   url: { _, _, _ in "" }, bytes: bytes) else { return nil }
            if let lang = mainLanguage, let i = sets.firstIndex(where: { $0.contentType == "audio" }) { sets[i].language = lang }
            for (k, l) in languages.enumerated() {
                let slice = l.rung.timeline.items[languageRuns[k][n].range]
                guard let codec = audioCodec(l.rung.codecs),
                      let list = list(slice, of: l.rung, video: false, runStart: start, initialization: initialization(l.rung, .audioInit),
                                      shifted: true, url: { _, _ in "" }) else { continue }
                var rep = DASH.Representation(id: "audio-\(k + 1)", bandwidth: max(1, l.rung.rendition.audioBitrate), codecs: codec)
                rep.segmentList = list
                sets.append(DASH.AdaptationSet(id: 3 + k, contentType: "audio", mimeType: "audio/mp4", language: l.language,
                                               segmentTemplate: nil, representations: [rep]))
            }
            for a in sets.indices {
                for r in sets[a].representations.indices {
                    guard let list = sets[a].representations[r].segmentList else { continue }
                    let id = sets[a].representations[r].id
                    sets[a].representations[r].segmentTemplate = DASH.SegmentTemplate(
                        timescale: list.timescale, initialization: list.initialization, media: template(id), startNumber: list.startNumber ?? 1,
                        presentationTimeOffset: list.presentationTimeOffset, timeline: list.timeline)
                    sets[a].representations[r].segmentList = nil
                }
            }
            if let subtitles, let video = sets.first?.representations.first?.segmentTemplate {
                sets += textSets(subtitles, like: video, template: template)
            }
            // sample-encrypted content kept as it came: its own timelines, maps and protection
            if let kept {
                let languageSlices = languages.indices.map { k in languages[k].rung.timeline.items[languageRuns[k][n].range] }
                if case .content = run.kind {
                    sets = keptCMAFSets(sets, slices: slices, languages: languageSlices, periodStart: start, said: kept.said, soundSaid: kept.soundSaid, url: kept.url)
                } else {
                    // (the run's first item, slid out or not: what names its initialization segments in every update)
                    let firsts = rungs.indices.map { g in n == 0 ? rungs[g].timeline.firstRunItem : rungs[g].timeline.items[rungRuns[g][n].range].first }
                    let languageFirsts = languages.indices.map { k in n == 0 ? languages[k].rung.timeline.firstRunItem : languageSlices[k].first }
                    sets = ownInitializations(sets, rungs: rungs, firsts: firsts, languages: languages.map(\.rung), languageFirsts: languageFirsts, kept.initialization)
                }
            }
            var period = DASH.Period(id: liveID(run.kind, start), start: start, duration: next.map { $0 - start }, adaptationSets: sets)
            period.assetIdentifier = adID(run.kind).map { DASH.Descriptor(schemeIdUri: DASH.assetIdentifierScheme, value: $0) }
            // the first Period's splice-in: the break before its run, slid out or not
            let before = n > 0 ? all[topRuns[n - 1].range.lowerBound].breakIndex : first.breakBefore
            period.eventStreams = events(run.kind, breakBefore: before, pto: pto, adID: adID, breakID: breakID,
                                         breakLength: { _ in nil }, adDuration: nil)
            periods.append(period)
        }
        return dynamic(periods, availabilityStart: availabilityStart, published: published, updatePeriod: updatePeriod,
                       window: top.timeline.duration, location: location)
    }

    /// A live MPD of `periods`: `availabilityStartTime`, `publishTime`, `minimumUpdatePeriod` the
    /// playlists' target, `timeShiftBufferDepth` the viewer's `window`, three targets of
    /// `suggestedPresentationDelay`, `Location` the MPD's own URL.
    static func dynamic(_ periods: [DASH.Period], availabilityStart: Date, published: Date, updatePeriod: MediaTime, window: MediaTime,
                        location: String?) -> DASH.MPD {
        var mpd = DASH.MPD(type: .dynamic, profiles: [DASH.mainProfile], mediaPresentationDuration: nil,
                           minBufferTime: MediaTime(seconds: 2), periods: periods)
        mpd.availabilityStartTime = availabilityStart
        mpd.publishTime = published
        mpd.minimumUpdatePeriod = updatePeriod
        mpd.timeShiftBufferDepth = window
        mpd.suggestedPresentationDelay = updatePeriod * 3
        mpd.location = location
        return mpd
    }
}

extension SessionMPD {
    /// The live MPD of `live(…)` as one Period (`?periods=single`), for players that do not
    /// follow DASH-IF's multi-period live rules: the viewer's items (content, ads, slate) are
    /// one timeline on the channel's clock, which the session's CMAF tracks already carry (each
    /// ad's and slate's timestamps moved onto it, the one initialization segment per track with
    /// `avc3`/`hev1` sample entries: parameter sets in band), so the joins need no Period. The
    /// Period starts at the session's clock zero, `presentationTimeOffset` the wire PTS there
    /// (the same in every update), each segment's `S@t` its wire PTS (a hole the channel stepped
    /// over stays a hole); the breaks are Events of the Period at the wire PTS of their first
    /// and resuming pictures, as in `live` (the SCTE-35 out and back in, each ad's event). What
    /// an update wrote never changes: segments are only appended and slid.
    static func liveSinglePeriod(rungs given: [Rung], availabilityStart: Date, published: Date, updatePeriod: MediaTime, location: String?,
                                 adID: (SessionItem.Kind) -> String?, breakID: (Int) -> String, initialization: (Rung, CMAFTracks.Part) -> String,
                                 template: (String) -> String, bytes: (String) -> Int, mainLanguage: String? = nil,
                                 languages: [Language] = [], subtitles: LiveText? = nil) -> DASH.MPD? {
        guard let top = given.first, let first = top.timeline.items.first, let firstWire = first.wirePTS else { return nil }
        let rungs = given.filter { $0.timeline.items.count == top.timeline.items.count }
        let pto = firstWire.mpegTicks - first.start.mpegTicks
        func timeline(_ items: [SessionItem]) -> [DASH.TimelineEntry] {
            DASH.SegmentTemplate.timeline(items.map { (start: pto + $0.start.mpegTicks, duration: $0.end.mpegTicks - $0.start.mpegTicks) })
        }
        func segments(_ rung: Rung, id: String, part: CMAFTracks.Part) -> DASH.SegmentTemplate {
            DASH.SegmentTemplate(timescale: timescale, initialization: initialization(rung, part), media: template(id),
                                 startNumber: rung.firstSequence ?? 1, presentationTimeOffset: pto, timeline: timeline(rung.timeline.items))
        }
        var videos: [DASH.Representation] = []
        for rung in rungs {
            var rep = videoRepresentation(rung, items: rung.timeline.items[...], bytes: bytes)
            rep.segmentTemplate = segments(rung, id: rung.rendition.name, part: .videoInit)
            videos.append(rep)
        }
        var sets = [DASH.AdaptationSet(id: 1, contentType: "video", mimeType: "video/mp4", segmentTemplate: nil, representations: videos)]
        if let codec = audioCodec(top.codecs) {
            var rep = DASH.Representation(id: "audio", bandwidth: max(1, top.rendition.audioBitrate), codecs: codec)
            rep.segmentTemplate = segments(top, id: "audio", part: .audioInit)
            sets.append(DASH.AdaptationSet(id: 2, contentType: "audio", mimeType: "audio/mp4", language: languages.isEmpty ? nil : mainLanguage,
                                           segmentTemplate: nil, representations: [rep]))
            // each other language: its language rung's sound, when it lists the same items
            for (k, l) in languages.enumerated() where l.rung.timeline.items.count == top.timeline.items.count {
                var rep = DASH.Representation(id: "audio-\(k + 1)", bandwidth: max(1, l.rung.rendition.audioBitrate), codecs: codec)
                rep.segmentTemplate = segments(l.rung, id: "audio-\(k + 1)", part: .audioInit)
                sets.append(DASH.AdaptationSet(id: 3 + k, contentType: "audio", mimeType: "audio/mp4", language: l.language,
                                               segmentTemplate: nil, representations: [rep]))
            }
        }
        if let subtitles, let video = videos.first?.segmentTemplate { sets += textSets(subtitles, like: video, template: template) }
        // each run's events at its first picture, on the Period's clock, gathered by scheme and value
        var streams: [DASH.EventStream] = []
        let all = top.timeline.items
        let runs = runs(all)
        for (n, run) in runs.enumerated() {
            let at = pto + all[run.range.lowerBound].start.mpegTicks
            let before = n > 0 ? all[runs[n - 1].range.lowerBound].breakIndex : top.timeline.firstRun?.breakBefore
            for var s in events(run.kind, breakBefore: before, pto: at, adID: adID, breakID: breakID, breakLength: { _ in nil }, adDuration: nil) {
                s.presentationTimeOffset = pto
                if let i = streams.firstIndex(where: { $0.schemeIdUri == s.schemeIdUri && $0.value == s.value }) {
                    streams[i].events += s.events.filter { e in !streams[i].events.contains { $0.id == e.id } }
                } else {
                    streams.append(s)
                }
            }
        }
        var period = DASH.Period(id: "live", start: .zero, adaptationSets: sets)
        period.eventStreams = streams
        return dynamic([period], availabilityStart: availabilityStart, published: published, updatePeriod: updatePeriod,
                       window: top.timeline.duration, location: location)
    }
}

extension SessionMPD {
    /// Live: the channel's subtitle tracks as DASH text: each track's `lang` (in order: track
    /// `K` is Representation `text-K`) and the one initialization segment of them all
    /// (`WebVTTMP4.initialization`).
    struct LiveText {
        var languages: [String?]
        var initialization: String
    }

    /// A live Period's text AdaptationSets: per subtitle track `K` a `wvtt` Representation
    /// `text-K` (`Role` subtitle) whose segments are the Period's video segments (`video`: the top
    /// rung's template there; the same numbers, times and `presentationTimeOffset`), named by
    /// `template("text-K")`: each a `WebVTTMP4` media segment of the cues its span shows, an ad's
    /// or slate's empty, so no cue shows during an ad.
    static func textSets(_ text: LiveText, like video: DASH.SegmentTemplate, template: (String) -> String) -> [DASH.AdaptationSet] {
        text.languages.enumerated().map { k, language in
            let id = "text-\(k)"
            var rep = DASH.Representation(id: id, bandwidth: 1_000, codecs: "wvtt")
            rep.segmentTemplate = DASH.SegmentTemplate(timescale: video.timescale, initialization: text.initialization, media: template(id),
                                                       startNumber: video.startNumber, presentationTimeOffset: video.presentationTimeOffset,
                                                       timeline: video.timeline)
            var set = DASH.AdaptationSet(id: 20 + k, contentType: "text", mimeType: "application/mp4", language: language,
                                         segmentTemplate: nil, representations: [rep])
            set.role = "subtitle"
            return set
        }
    }
}
