import Foundation
import Timing

/// One segment of a session's media playlist, VOD or live: what it shows, the stored file, and
/// where it sits on the session's clock. A VOD session's timeline (`SessionTimeline`) and a live
/// viewer's tracks (`LiveViewer`) are lists of these; one URL rule serves both.
public struct SessionItem: Sendable, Hashable, Codable {
    /// What the segment shows.
    public enum Kind: Sendable, Hashable, Codable {
        /// Content: in a VOD session run `index` (run 0 plays to the first cue); live, the
        /// channel's segment of media sequence `index` (whole, or a piece where a break starts or
        /// ends in it).
        case content(index: Int)
        /// Segment `segment` of `count` of ad `ad` of break `breakIndex` (VOD: the session's
        /// breaks and their ads; live: the viewer's avails and each one's decided ads); `cut`
        /// when the break ended inside it (live: a piece).
        case ad(breakIndex: Int, ad: Int, segment: Int, count: Int, cut: Bool)
        /// Slate in break `breakIndex`: in place of ad `ad` (VOD), or for the time no ready ad
        /// covers (live, `ad` nil).
        case slate(breakIndex: Int, ad: Int?)

        /// The break an ad or slate belongs to, nil for content.
        public var breakIndex: Int? {
            switch self { case .content: nil; case .ad(let b, _, _, _, _), .slate(let b, _): b }
        }
    }
    /// What it shows.
    public var kind: Kind
    /// The stored file and its exact length.
    public var segment: StoredSegment
    /// Where it starts: VOD, stream time from the session's start; live, its first frame's PTS
    /// on the channel's unwrapped clock.
    public var start: MediaTime
    /// For an ad segment: where it starts within the ad.
    public var offsetInAd: MediaTime = .zero
    /// What the segment's timestamps are moved by to sit at `start` on the session's clock
    /// (zero where the segment already sits there).
    public var shift: MediaTime = .zero
    /// Whether it starts a new stream after the item before it: `EXT-X-DISCONTINUITY` before it.
    public var discontinuity = false
    /// Whether the segment is sent marked as a new stream (`TSDiscontinuity`, the URL's `d`): a
    /// live item that starts one, a VOD item that starts one on the stream clock.
    public var marked = false
    /// The continuity counters of the segment after it, which cannot be marked as a new stream
    /// (an encrypted one): sent with marker packets after its own that lead into them
    /// (`TSDiscontinuity.leadingInto`, the URL's `c`); nil: none.
    public var leadsInto: [TSDiscontinuity.Counter]? = nil
    /// VOD: the PTS of its first video frame as the viewer receives it (after `shift`), what
    /// the playlist's SCTE-35 splice times are measured on; nil when its run's clock cannot be
    /// read.
    public var wirePTS: MediaTime?

    /// The break it belongs to, nil for content.
    public var breakIndex: Int? { kind.breakIndex }

    /// Whether it begins a run of its own after `previous` — a DASH Period: where a new stream
    /// starts (`discontinuity`), and where content kept as it came changes how it is encrypted
    /// (`SegmentEncryption.isKeyedLike`: a new initialization segment or key, an origin's key
    /// rotation, which a Period's one `ContentProtection` and initialization segment cannot span).
    func startsRun(after previous: SessionItem?) -> Bool {
        guard let previous else { return true }
        if discontinuity { return true }
        guard case .content = kind, case .content = previous.kind, let mine = segment.encryption, mine.mediaStart != nil,
              let theirs = previous.segment.encryption else { return false }
        return !mine.isKeyedLike(theirs)
    }

    /// Where it ends on the session's clock.
    public var end: MediaTime { start + segment.duration }
    /// `start` and `end` in 90 kHz ticks (live: the channel's PTS).
    public var startPTS: Int64 { start.mpegTicks }
    public var endPTS: Int64 { end.mpegTicks }

    /// The ad whose first segment it is.
    public var startsAd: Int? {
        if case .ad(_, let a, 0, _, _) = kind { a } else { nil }
    }

    /// The URL it is served at: content and slate segments are the same URL for every session
    /// whose clock puts them at the same place (the shift `o` and the new-stream mark `d`); an ad
    /// segment also carries the session, the rendition and its place, signed, so that its fetch
    /// fires the beacons it holds.
    func url(session: String, rendition: String) -> SegmentURL {
        var u = SegmentURL(path: segment.path, shift: shift.mpegTicks, marked: marked)
        u.leadsInto = leadsInto ?? []
        if case .ad(let b, let a, let k, _, _) = kind {
            u.beacon = SegmentURL.BeaconPlace(session: session, rendition: rendition, breakIndex: b, ad: a, segment: k)
        }
        return u
    }

    /// The PTS its first video frame is stored with (its wire PTS less its clock's shift); nil
    /// when its run's clock cannot be read.
    public var storedPTS: MediaTime? { wirePTS.map { $0 - shift } }

    /// The URL of `part` of its CMAF tracks (`CMAFTracks`), for DASH and HLS with CMAF segments:
    /// `url`'s, with only the video media segment carrying an ad's beacon place, no MPEG-TS
    /// new-stream mark, and the clock shift kept only when `shifted` (HLS's one clock; a DASH
    /// Period keeps the stored timestamps) and never on an initialization segment.
    /// An encrypted origin's CMAF segment is its own video track: `.video` names it, the
    /// initialization parts its rung's initialization segment, as they came (no shift, no beacon).
    func cmafURL(_ part: CMAFTracks.Part, session: String, rendition: String, shifted: Bool) -> SegmentURL {
        if let e = segment.encryption, let initialization = e.initialization {
            // kept as it came: its own file (a live segment's sound the origin's audio segment beside it)
            switch part {
            case .video: return SegmentURL(path: segment.path)
            case .videoInit: return SegmentURL(path: initialization)
            case .audio: return SegmentURL(path: e.sound?.path ?? segment.path)
            case .audioInit: return SegmentURL(path: e.sound?.initialization ?? initialization)
            }
        }
        var u = url(session: session, rendition: rendition)
        u.path = CMAFTracks.path(u.path, part)
        u.marked = false
        if part != .video { u.beacon = nil }
        if !shifted || part.isInitialization { u.shift = 0 }
        return u
    }

    /// The item as the one playlist writer (`SessionPlaylist`) takes it, VOD or live: its URL
    /// (ad segments signed by `signature`, under the CDN prefix of its kind), its length, its
    /// start on the viewer's clock.
    func entry(session: String, rendition: String, signature: SegmentSignature, cdn: CDNPrefixes, start: MediaTime) -> SessionPlaylist.Item {
        SessionPlaylist.Item(uri: url(session: session, rendition: rendition).text(signedBy: signature, cdn: cdn), duration: segment.duration,
                             start: start, discontinuity: discontinuity, mark: breakIndex, startsAd: startsAd, key: segment.encryption?.key)
    }
}
