import Foundation
import Manifest
import Timing

extension SessionMPD {
    /// A live MPD's channel of sample-encrypted CMAF kept as it came: how the encryption under a
    /// kept initialization segment (by store path) is said, the URL of a kept file (by store
    /// path), and of an item's CMAF initialization segment (its
    /// rung's name; an ad's or slate's Period names its first item's, there being no clear content
    /// segment whose tracks every Period could share).
    struct KeptCMAF {
        var said: (String?) -> LiveChannel.EncryptedCMAF
        /// The `ContentProtection`s of the sound under a kept initialization segment (by store
        /// path): another language's (empty when it is clear).
        var soundSaid: (String) -> [DASH.ContentProtection]
        var url: (String) -> String
        var initialization: (SessionItem, String, CMAFTracks.Part) -> String
    }

    /// An ad's or slate's Period `sets` of such a channel: each Representation under its run's
    /// first item's initialization segment in its rung (`firsts`, by `rungs`' order: the same in
    /// every update, slid out or not; `avc3`/`hev1` sample entries with each segment's parameter
    /// sets in band, so one serves the run); each other language's (`audio-N`) under its
    /// language rung's (`languages`, `languageFirsts`).
    static func ownInitializations(_ sets: [DASH.AdaptationSet], rungs: [Rung], firsts: [SessionItem?], languages: [Rung], languageFirsts: [SessionItem?],
                                   _ initialization: (SessionItem, String, CMAFTracks.Part) -> String) -> [DASH.AdaptationSet] {
        var out: [DASH.AdaptationSet] = []
        for var set in sets {
            for r in set.representations.indices {
                let id = set.representations[r].id
                if set.contentType == "video", let g = rungs.firstIndex(where: { $0.rendition.name == id }), let first = firsts[g] {
                    set.representations[r].segmentTemplate?.initialization = initialization(first, rungs[g].rendition.name, .videoInit)
                } else if set.contentType == "audio", id == LiveViewer.cmafAudio, let top = rungs.first, let first = firsts.first ?? nil {
                    set.representations[r].segmentTemplate?.initialization = initialization(first, top.rendition.name, .audioInit)
                } else if set.contentType == "audio", let k = languageIndex(id) {
                    // (a language whose run's first item is not known is left out of the Period)
                    guard languages.indices.contains(k), let first = languageFirsts[k] else { set.representations = []; break }
                    set.representations[r].segmentTemplate?.initialization = initialization(first, languages[k].rendition.name, .audioInit)
                }
            }
            if !set.representations.isEmpty { out.append(set) }
        }
        return out
    }

    /// The place in a live MPD's other languages of one's Representation id (`audio-N`: N − 1).
    static func languageIndex(_ id: String) -> Int? {
        guard id.hasPrefix("audio-"), let n = Int(id.dropFirst(6)), n >= 1 else { return nil }
        return n - 1
    }

    /// A live Period's `sets` whose run is sample-encrypted CMAF kept as it came
    /// (`LiveChannel+EncryptedCMAF`): each video Representation's segments the origin's, on their
    /// own track's timeline (`timescale` the track's, `presentationTimeOffset` and each `S@t` the
    /// media times their boxes carry — the origin's timestamps, never moved), under the origin's
    /// initialization segment, its codecs the origin's sample entry's, the AdaptationSet under
    /// the `video` descriptors `said` of that initialization segment (a run has one: a key
    /// rotation starts a Period, `SessionItem.startsRun`); the sound the origin's audio segments
    /// beside them, on the audio track's timeline, under its `audio` descriptors; each other
    /// language's (`audio-N`) its language rung's (`languages`, in order) kept sound the same
    /// way, under the descriptors `soundSaid` of its initialization segment (a language whose
    /// sound cannot be listed is left out of the Period); the text keeps its own template (the
    /// channel's cues on the wire clock). `url(path)` names a kept file. Unchanged when the run
    /// is not such content.
    static func keptCMAFSets(_ sets: [DASH.AdaptationSet], slices: [(Rung, ArraySlice<SessionItem>)], languages: [ArraySlice<SessionItem>] = [],
                             periodStart: MediaTime, said saying: (String?) -> LiveChannel.EncryptedCMAF,
                             soundSaid: (String) -> [DASH.ContentProtection] = { _ in [] }, url: (String) -> String) -> [DASH.AdaptationSet] {
        guard let top = slices.first?.1, let first = top.first, first.segment.encryption?.mediaStart != nil else { return sets }
        let said = saying(first.segment.encryption?.initialization)
        var out: [DASH.AdaptationSet] = []
        var videoOffset: MediaTime?
        for var set in sets {
            switch set.contentType {
            case "video":
                set.contentProtection = said.video
                for r in set.representations.indices {
                    let id = set.representations[r].id
                    guard let (rung, items) = slices.first(where: { $0.0.rendition.name == id }), let old = set.representations[r].segmentTemplate,
                          let kept = videoTemplate(items, periodStart: periodStart, like: old, url: url) else { continue }
                    set.representations[r].segmentTemplate = kept
                    set.representations[r].codecs = rung.codecs.split(separator: ",").first.map(String.init) ?? set.representations[r].codecs
                    videoOffset = videoOffset ?? MediaTime(value: kept.presentationTimeOffset, timescale: kept.timescale)
                }
                out.append(set)
            case "audio":
                guard let id = set.representations.first?.id else { continue }
                if id == LiveViewer.cmafAudio {
                    // the main sound: its segments the origin's beside the top rung's
                    if let offset = videoOffset, let old = set.representations[0].segmentTemplate,
                       let kept = audioTemplate(top, offset: offset, like: old, url: url) {
                        set.representations[0].segmentTemplate = kept
                    }
                    set.contentProtection = said.audio
                } else {
                    // another language: its language rung's kept sound, or the language left out
                    guard let k = languageIndex(id), languages.indices.contains(k), let offset = videoOffset,
                          let old = set.representations[0].segmentTemplate,
                          let kept = audioTemplate(languages[k], offset: offset, like: old, url: url),
                          let sound = languages[k].first?.segment.encryption?.sound else { continue }
                    set.representations[0].segmentTemplate = kept
                    set.contentProtection = soundSaid(sound.initialization)
                }
                out.append(set)
            default:
                out.append(set)
            }
        }
        return out
    }

    /// The video template of a run of kept segments: `S@t` their media starts, each `@d` up to
    /// the next (the last its own length), `presentationTimeOffset` the media time at `periodStart`.
    private static func videoTemplate(_ items: ArraySlice<SessionItem>, periodStart: MediaTime, like old: DASH.SegmentTemplate,
                                      url: (String) -> String) -> DASH.SegmentTemplate? {
        guard let first = items.first, let e = first.segment.encryption, let initialization = e.initialization,
              let m = e.mediaStart, m.count == 2, m[1] > 0 else { return nil }
        let timescale = m[1]
        var starts: [Int64] = []
        for item in items {
            guard let s = item.segment.encryption?.mediaStart, s.count == 2, s[1] == timescale else { return nil }
            starts.append(s[0])
        }
        let lastLength = items.last!.segment.duration.rescaled(to: timescale, rounding: .nearest).value
        let segments = starts.indices.map { i in (start: starts[i], duration: i + 1 < starts.count ? starts[i + 1] - starts[i] : lastLength) }
        guard segments.allSatisfy({ $0.duration > 0 }) else { return nil }
        let lead = MediaTime.max(.zero, first.start - periodStart).rescaled(to: timescale, rounding: .nearest).value
        return DASH.SegmentTemplate(timescale: timescale, initialization: url(initialization), media: old.media, startNumber: old.startNumber,
                                    presentationTimeOffset: starts[0] - lead, timeline: DASH.SegmentTemplate.timeline(segments))
    }

    /// The audio template beside a run of kept segments: `S@t` each sound's start on its track's
    /// timeline, `presentationTimeOffset` the video's (`offset`) on it (one presentation timeline).
    private static func audioTemplate(_ items: ArraySlice<SessionItem>, offset: MediaTime, like old: DASH.SegmentTemplate,
                                      url: (String) -> String) -> DASH.SegmentTemplate? {
        let sounds = items.compactMap { $0.segment.encryption?.sound }
        guard sounds.count == items.count, let first = sounds.first, first.span.count == 3, first.span[2] > 0 else { return nil }
        let timescale = first.span[2]
        guard sounds.allSatisfy({ $0.span.count == 3 && $0.span[2] == timescale && $0.span[1] > 0 }) else { return nil }
        let segments = sounds.indices.map { i in
            (start: sounds[i].span[0], duration: i + 1 < sounds.count ? sounds[i + 1].span[0] - sounds[i].span[0] : sounds[i].span[1])
        }
        guard segments.allSatisfy({ $0.duration > 0 }) else { return nil }
        return DASH.SegmentTemplate(timescale: timescale, initialization: url(first.initialization), media: old.media, startNumber: old.startNumber,
                                    presentationTimeOffset: offset.rescaled(to: timescale, rounding: .nearest).value,
                                    timeline: DASH.SegmentTemplate.timeline(segments))
    }
}
