/// What a live origin did wrong, by kind: each is recovered from by the channel (see
/// `LiveChannel`) and logged once per channel until it has not happened for a few polls.
public enum LiveFault: String, Sendable, CaseIterable {
    /// `EXT-X-MEDIA-SEQUENCE` went back, reset, jumped forward past segments, or could not be
    /// read (negative, not a number, over 2^48): new segments are found by URI and numbered on.
    case mediaSequence = "media_sequence"
    /// A segment's first PTS is not where the one before ended (back, reset, repeated, a jump of
    /// over a second): the channel's clock continues right after the last segment.
    case ptsJump = "pts_jump"
    /// An `EXTINF` of 0 or over the target duration: the segment is skipped.
    case badDuration = "bad_extinf"
    /// `EXT-X-TARGETDURATION` changed (RFC 8216 forbids it): viewers split what is longer than
    /// their own, fixed, target.
    case targetDuration = "target_duration"
    /// A segment could not be fetched: retried at the next polls, skipped after a few.
    case segmentUnavailable = "segment_unavailable"
    /// A segment is not MPEG-TS with video: treated as one that cannot be fetched.
    case segmentUnreadable = "segment_unreadable"
    /// The playlist could not be fetched or read at all (the poll fails; the next tick tries again).
    case playlistUnavailable = "playlist_unavailable"
    /// In-band SCTE-35 sections refused (damaged, lengths that disagree) or a splice PTS far from
    /// its segment: no break is made of them.
    case signalIgnored = "signal_ignored"
}

/// Bounds the channel's fault logging: a kind is logged when it first happens, then not again
/// while it keeps happening; once `quietPolls` polls pass without it, it is logged anew.
struct LiveFaultLog: Sendable {
    /// Kinds logged and still recent, with the polls since each last happened.
    private var active: [LiveFault: Int] = [:]
    /// Polls without a kind before it is logged again.
    static let quietPolls = 5

    /// Records `fault`; true when it is to be logged now.
    mutating func happened(_ fault: LiveFault) -> Bool {
        defer { active[fault] = 0 }
        return active[fault] == nil
    }

    /// One poll is over: kinds quiet for long enough are forgotten.
    mutating func pollEnded() {
        for (k, n) in active { active[k] = n + 1 >= Self.quietPolls ? nil : n + 1 }
    }
}
