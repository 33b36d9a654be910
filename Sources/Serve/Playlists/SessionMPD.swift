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
    }

    /// The MPD timescale: MPEG-TS's 90 kHz, what every stored segment's timestamps count.
    static let timescale: Int64 = 90_000

    /// A run of the timeline: items `range`.
    struct Run {
        var range: Range<Int>
        var kind: SessionItem.Kind
    }

    /// `items` split where a new stream starts.
    static func runs(_ items: [SessionItem]) -> [Run] {
        var out: [Run] = []
        for (i, item) in items.enumerated() {
            if i == 0 || item.discontinuity { out.append(Run(range: i..<(i + 1), kind: item.kind)) } else { out[out.count - 1].range = out[out.count - 1].range.lowerBound..<(i + 1) }
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
    static func list(_ items: ArraySlice<SessionItem>, video: Bool, url: (SessionItem, CMAFTracks.Part) -> String) -> DASH.SegmentList? {
        guard let first = items.first, let origin = first.storedPTS else { return nil }
        var ticks: [Int64] = []
        for item in items { ticks.append((origin + (item.start - first.start)).mpegTicks) }
        let end = (origin + (items.last!.end - first.start)).mpegTicks
        let segments = ticks.indices.map { k in (start: ticks[k], duration: (k + 1 < ticks.count ? ticks[k + 1] : end) - ticks[k]) }
        return DASH.SegmentList(timescale: timescale, presentationTimeOffset: ticks[0],
                                initialization: url(first, video ? .videoInit : .audioInit),
                                timeline: DASH.SegmentTemplate.timeline(segments),
                                media: items.map { url($0, video ? .video : .audio) })
    }

    /// The static MPD of `rungs` (top first) for `session`: segment URLs by `url(item, rung,
    /// part)`, peak bit rates from `bytes(path)` (the stored TS's size, an upper bound of its
    /// tracks'). Rungs whose runs differ from the top's are left out.
    static func vod(_ session: ServeSession, rungs given: [Rung], url: (SessionItem, String, CMAFTracks.Part) -> String,
                    bytes: (String) -> Int) -> DASH.MPD? {
        guard let top = given.first, !top.timeline.items.isEmpty else { return nil }
        let rungs = given.filter { sameRuns(top.timeline.items, $0.timeline.items) }
        let topRuns = runs(top.timeline.items)
        let rungRuns = rungs.map { runs($0.timeline.items) }
        var periods: [DASH.Period] = []
        for (n, run) in topRuns.enumerated() {
            let items = top.timeline.items[run.range]
            let start = items.first!.start, duration = items.reduce(MediaTime.zero) { $0 + $1.segment.duration }
            var videos: [DASH.Representation] = []
            var pto: Int64?
            for (g, rung) in rungs.enumerated() {
                let slice = rung.timeline.items[rungRuns[g][n].range]
                guard let list = list(slice, video: true, url: { url($0, rung.rendition.name, $1) }) else { continue }
                pto = pto ?? list.presentationTimeOffset
                let target = max(1, Int(slice.map(\.segment.duration).max()!.rescaled(to: 1, rounding: .up).value))
                let peak = SegmentBitRate.of(slice.map { (bytes($0.segment.path), $0.segment.duration) }, targetDuration: target).peak
                let r = rung.rendition
                // the stored TS's peak: an upper bound of the video track's (which leaves out audio and TS's overhead)
                var rep = DASH.Representation(id: r.name, bandwidth: max(1, peak), codecs: videoCodec(rung.codecs),
                                              width: r.width, height: r.height,
                                              frameRate: r.frameRate.map(\.description),
                                              sar: "1:1")
                rep.segmentList = list
                videos.append(rep)
            }
            guard !videos.isEmpty else { return nil }
            var sets = [DASH.AdaptationSet(id: 1, contentType: "video", mimeType: "video/mp4", segmentTemplate: nil, representations: videos)]
            sets[0].segmentAlignment = Set(videos.map { $0.segmentList!.timeline.map(\.duration) }).count == 1
            if let audioCodec = audioCodec(top.codecs), let list = list(items, video: false, url: { url($0, top.rendition.name, $1) }) {
                var rep = DASH.Representation(id: "audio", bandwidth: max(1, top.rendition.audioBitrate), codecs: audioCodec)
                rep.segmentList = list
                sets.append(DASH.AdaptationSet(id: 2, contentType: "audio", mimeType: "audio/mp4", segmentTemplate: nil, representations: [rep]))
            }
            var period = DASH.Period(id: periodID(run.kind, n), start: start, duration: duration, adaptationSets: sets)
            period.assetIdentifier = adID(session, run.kind).map { DASH.Descriptor(schemeIdUri: DASH.assetIdentifierScheme, value: $0) }
            period.eventStreams = events(session, runs: topRuns, items: top.timeline.items, at: n, pto: pto ?? 0, duration: duration)
            periods.append(period)
        }
        return DASH.MPD(type: .static, profiles: [DASH.mainProfile], mediaPresentationDuration: top.timeline.duration,
                        minBufferTime: MediaTime(seconds: 2), periods: periods)
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

    /// The events of Period `n` (its picture at `pto`, 90 kHz): the SCTE-35 out at a break's first
    /// Period, back in at the Period after a break, the ad's own event at each ad Period.
    static func events(_ session: ServeSession, runs: [Run], items: [SessionItem], at n: Int, pto: Int64, duration: MediaTime) -> [DASH.EventStream] {
        let this = items[runs[n].range.lowerBound].breakIndex
        let before = n > 0 ? items[runs[n - 1].range.lowerBound].breakIndex : nil
        let at = MediaTime(value: pto, timescale: timescale)
        var splices: [DASH.Event] = []
        if let b = before, b != this {
            splices.append(DASH.Event(id: UInt32(2 * b + 2), presentationTime: pto,
                                      payload: .scte35(SCTE35.spliceInsert(eventID: UInt32(b + 1), outOfNetwork: false, at: at, breakDuration: nil))))
        }
        if let b = this, b != before {
            let length = runs[n...].prefix { items[$0.range.lowerBound].breakIndex == b }
                .reduce(MediaTime.zero) { sum, run in sum + items[run.range].reduce(MediaTime.zero) { $0 + $1.segment.duration } }
            splices.append(DASH.Event(id: UInt32(2 * b + 1), presentationTime: pto, duration: length.mpegTicks,
                                      payload: .scte35(SCTE35.spliceInsert(eventID: UInt32(b + 1), outOfNetwork: true, at: at, breakDuration: length))))
        }
        var out: [DASH.EventStream] = []
        if !splices.isEmpty {
            var s = DASH.EventStream(schemeIdUri: DASH.scte35Scheme, timescale: timescale, events: splices)
            s.presentationTimeOffset = pto
            out.append(s)
        }
        if case .ad(let b, let a, _, _, _) = items[runs[n].range.lowerBound].kind, let id = adID(session, items[runs[n].range.lowerBound].kind) {
            var s = DASH.EventStream(schemeIdUri: DASH.adScheme, value: session.breaks[b].id, timescale: timescale,
                                     events: [DASH.Event(id: UInt32(a + 1), presentationTime: pto, duration: duration.mpegTicks, payload: .message(id))])
            s.presentationTimeOffset = pto
            out.append(s)
        }
        return out
    }
}
