import Foundation
import Manifest
import Timing

/// A live HLS origin's WebVTT subtitle renditions as its channel follows them: the renditions of
/// the variants' `SUBTITLES` group that have a playlist (at most `maxTracks`), each polled with
/// the channel, each new segment's cues (by its `X-TIMESTAMP-MAP`, RFC 8216 §3.5) placed on the
/// channel's clock as its video is (the file's MPEG-TS time unwrapped near where the channel is,
/// plus the clock offset the video has there), a cue the packager repeats in the next segment
/// kept once, the oldest dropped past `maxCues`. A viewer's subtitle segment is cut from these
/// cues at its own segment boundaries (`SubtitleTrack.segment`), as a VOD session's is.
/// A live DASH origin's text AdaptationSets of WebVTT or TTML in MP4 are followed the same way
/// (`LiveMPD.texts`): each new segment read (`FragmentedTextTrack`), its cues' media times moved
/// onto the video's media timeline, which is the channel's file clock.
struct LiveSubtitles: Sendable {
    /// One subtitle rendition.
    struct Track: Sendable {
        var rendition: HLS.Rendition
        var location: HLSLocation
        /// The media sequence number of its next segment to take.
        var next = 0
        /// DASH: where the segments taken end on the text track's media timeline (the next one
        /// taken starts there or later).
        var taken: MediaTime?
        /// Its cues on the channel's clock, in start order.
        var cues: [WebVTT.Cue] = []
    }

    var tracks: [Track] = []

    /// Most subtitle renditions a channel follows.
    static let maxTracks = 4
    /// Most cues kept per track (the oldest go first).
    static let maxCues = 5_000
    /// Most new segments taken per track and poll.
    static let maxSegmentsPerPoll = 16

    /// The subtitle renditions of the variants' `SUBTITLES` group in `m` with a playlist, their
    /// URIs resolved against `source`; others are not followed.
    static func tracks(in m: HLS.MultivariantPlaylist, at source: HLSLocation) -> [Track] {
        guard let group = m.variants.first?.subtitles else { return [] }
        return m.renditions.filter { $0.type == .subtitles && $0.groupID == group && $0.uri != nil }.prefix(maxTracks).compactMap { r in
            (try? source.resolve(r.uri ?? "")).map { Track(rendition: r, location: $0) }
        }
    }

    /// Adds `cues` (on the MPEG-TS clock) to track `k`: each start unwrapped near `fileClock`
    /// (where the channel's video is on the file's own clock) and moved by `clockOffset` (the
    /// channel clock less the file's), each once; cues ending before `oldest` dropped.
    mutating func add(_ cues: [WebVTT.Cue], track k: Int, fileClock: Int64, clockOffset: Int64, oldest: Int64?) {
        guard tracks.indices.contains(k) else { return }
        var all = tracks[k].cues
        var known = Set(all)
        for var c in cues {
            let length = c.end - c.start
            guard length > 0, length <= 3_600 * 90_000 else { continue }
            c.start = LivePTS.unwrap(UInt64(truncatingIfNeeded: c.start), near: fileClock) + clockOffset
            c.end = c.start + length
            if known.insert(c).inserted { all.append(c) }
        }
        all.sort { ($0.start, $0.end) < ($1.start, $1.end) }
        if let oldest { all.removeAll { $0.end < oldest } }
        tracks[k].cues = Array(all.suffix(Self.maxCues))
    }

    /// The WebVTT segment of track `k` for channel time `[from, to)`, its first frame at MPEG-TS
    /// time `wirePTS` and at `local` on the viewer's clock (`SubtitleTrack.segment`); nil when
    /// there is no such track.
    func segment(track k: Int, from: Int64, to: Int64, wirePTS: Int64?, local: Int64 = 0) -> String? {
        guard tracks.indices.contains(k) else { return nil }
        return SubtitleTrack(name: tracks[k].rendition.name, cues: tracks[k].cues).segment(from: from, to: to, wirePTS: wirePTS, local: local)
    }
}
