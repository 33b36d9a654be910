import Foundation
import Manifest
import Timing

extension LiveViewer {
    /// The viewer's dynamic DASH MPD (`SessionMPD.live`), every rung advanced to the channel's
    /// window first: a Period per run of its tracks (content, each ad, slate), on the viewer's
    /// clock (zero at its first frame, `availabilityStartTime` its program date), each Period's
    /// segments the items its HLS playlists list now, by their media sequence numbers
    /// (`/v1/sessions/ID/dash/REP/$Number$.m4s`: `item(rung:number:)`), as CMAF tracks on the
    /// channel's clock like its HLS/CMAF playlists (`presentationTimeOffset` the wire PTS at each
    /// Period's start). `location` is the MPD's own URL
    /// (`Location`), `bytes` the stored size of a segment (the Representations' bit rates). Nil
    /// as `playlist(rung:)`; a problem of DASH's timing rules (`DASH.MPD.validate`) is logged and
    /// answered as nil too.
    /// `singlePeriod`: the same timeline as one Period (`SessionMPD.liveSinglePeriod`), for
    /// players that do not follow multi-period live.
    public func mpd(location: String, singlePeriod: Bool = false, bytes: @escaping (String) -> Int) async -> String? {
        await shared(saving: true) {
            for rung in rungs + languages.map(\.rung) { await advance(rung) }
            return liveMPD(location: location, singlePeriod: singlePeriod, bytes: bytes)
        } ?? nil
    }

    /// The MPD of the tracks as they are now (see `mpd(location:bytes:)`).
    func liveMPD(location: String, singlePeriod: Bool = false, bytes: (String) -> Int, published: Date = Date()) -> String? {
        let present = rungs.compactMap { r in tracks[r.key].map { (r, $0) } }
        guard let top = present.first?.1, !top.timeline.items.isEmpty else { return nil }
        func mpdRung(_ r: LiveRung, _ track: Track) -> SessionMPD.Rung {
            SessionMPD.Rung(rendition: r.rendition, codecs: r.info.codecs, timeline: onViewerClock(track.timeline),
                            firstSequence: track.playlist.window.first?.sequence, key: r.key)
        }
        let mpdRungs = present.map(mpdRung)
        // each other language: its language rung's track (`audio-N`)
        let languages = self.languages.compactMap { l in tracks[l.rung.key].map { SessionMPD.Language(language: l.rendition.language, rung: mpdRung(l.rung, $0)) } }
        let id = self.id
        let avails = self.avails
        func adID(_ kind: SessionItem.Kind) -> String? {
            guard case .ad(let b, let a, _, _, _) = kind, avails.indices.contains(b), let ads = avails[b].ads, ads.indices.contains(a) else { return nil }
            return ads[a].id
        }
        func breakID(_ b: Int) -> String { avails.indices.contains(b) ? avails[b].breakID : "avail-\(b)" }
        let initialization: (SessionMPD.Rung, CMAFTracks.Part) -> String = { [self] rung, part in
            initializationURL(rung.key ?? self.rung(named: rung.rendition.name)?.key ?? rung.rendition.name, part)
        }
        // presentation time 0 as a date such that each segment becomes available when it is
        // published: the viewer lists what ends one target behind the origin's edge, which was
        // this far ahead of its clock's zero when it joined
        let hold = MediaTime(seconds: Int64(top.playlist.targetDuration)).mpegTicks
        let lead = max(0, (joinEdge ?? originPTS) - hold - originPTS)
        let availabilityStart = programDate.addingTimeInterval(-Double(lead) / 90_000)
        let update = MediaTime(seconds: Int64(top.playlist.targetDuration))
        let template: (String) -> String = { "/v1/sessions/\(id)/dash/\($0)/$Number$.m4s" }
        // sample-encrypted CMAF kept as it came: its content Periods under the origin's maps and protection (multi-period only)
        let channel = context.channel, said = channel.encryptedCMAFSaid
        let signature = context.signature, cdn = context.cdn
        let made = singlePeriod
            ? SessionMPD.liveSinglePeriod(rungs: mpdRungs, availabilityStart: availabilityStart, published: published, updatePeriod: update, location: location,
                                          adID: adID, breakID: breakID, initialization: initialization, template: template, bytes: bytes,
                                          mainLanguage: mainLanguage?.language, languages: languages, subtitles: liveText)
            : SessionMPD.live(rungs: mpdRungs, availabilityStart: availabilityStart, published: published, updatePeriod: update, location: location,
                              adID: adID, breakID: breakID, initialization: initialization, template: template, bytes: bytes,
                              mainLanguage: mainLanguage?.language, languages: languages, subtitles: liveText,
                              kept: said.map { said in
                                  SessionMPD.KeptCMAF(said: { channel.encryptedCMAFSaid(initialization: $0) ?? said },
                                                      soundSaid: { channel.soundProtection(initialization: $0) }, url: { SegmentURL(path: $0).text(signedBy: signature, cdn: cdn) },
                                                      initialization: { item, rendition, part in
                                                          item.cmafURL(part, session: id, rendition: rendition, shifted: true).text(signedBy: signature, cdn: cdn)
                                                      })
                              })
        guard let mpd = made else { return nil }
        if let problem = mpd.validate() {
            context.log?.event("playlist_failed", ["session": id, "error": "MPD: \(problem)"])
            return nil
        }
        return DASH.write(mpd)
    }

    /// The channel's subtitle tracks as the MPD's text (`SessionMPD.textSets`), nil without any.
    nonisolated var liveText: SessionMPD.LiveText? {
        guard !subtitles.isEmpty else { return nil }
        return SessionMPD.LiveText(languages: subtitles.map(\.language),
                                   initialization: context.cdn.prefix(forPath: "content/") + "/v1/subtitles/" + WebVTTMP4.initializationName)
    }

    /// The item numbered `number` (its playlists' media sequence number) on `rung`'s track
    /// now, what `/v1/sessions/ID/dash/REP/N.m4s` serves; nil when the window does not list it.
    public func item(rung: LiveRung, number: Int) async -> SessionItem? {
        await shared(saving: false) {
            guard let t = tracks[rung.key], let first = t.playlist.window.first?.sequence, number >= first else { return nil }
            let i = number - first
            return t.timeline.items.indices.contains(i) ? t.timeline.items[i] : nil
        } ?? nil
    }

    /// `timeline` with each item's start on the viewer's clock (time since its first frame) and
    /// its wire PTS (the channel's clock, 33 bits, where the item's timestamps are moved to), so
    /// that its stored PTS (`SessionItem.storedPTS`) is the stored segment's own.
    func onViewerClock(_ timeline: SessionTimeline) -> SessionTimeline {
        timeline.moved(by: MediaTime(value: -originPTS, timescale: 90_000)) { Self.wirePTS(of: $0) }
    }

    /// An item's first frame's PTS on the wire: its stored segment's own PTS (33 bits) moved by
    /// its shift onto the channel's clock.
    nonisolated static func wirePTS(of item: SessionItem) -> MediaTime {
        let stored = ((item.startPTS - item.shift.mpegTicks) % LivePTS.wrap + LivePTS.wrap) % LivePTS.wrap
        return MediaTime(value: stored, timescale: 90_000) + item.shift
    }
}
