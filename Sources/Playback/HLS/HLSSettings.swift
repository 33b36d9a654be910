import Foundation
import Timing

/// Choices for `--format hls` output.
public struct HLSSettings: Sendable, Equatable {
    /// Target segment duration: segments are cut at keyframes no later than this after their start
    /// (ads and content are never mixed in one segment). The encoder puts a keyframe every
    /// `segmentDuration` inside each content run and ad.
    public var segmentDuration: MediaTime
    /// The wall-clock date of stream time 0 (`EXT-X-PROGRAM-DATE-TIME`, `EXT-X-DATERANGE`
    /// dates); nil: when the stitch starts.
    public var programDate: Date?
    /// Audio from the first picture on: the AAC encoder's priming packet (its timestamp before
    /// the first picture) is left out, so that the package's sound never reaches back over what
    /// plays before it; its last packet may reach past the last picture (under one AAC frame, 21 ms
    /// at 48 kHz), as every piece's does: what follows overlaps it, and players that place sound
    /// by timestamp (Chromium's, hls.js, AVPlayer) trim the overlap, where a gap makes a
    /// sequence-mode player drift. For a package played between others (a service's ad
    /// rendition). Its first AAC frame decodes without its predecessor: about its first 10 ms of
    /// sound fade in. Off: the stitch's own package plays alone.
    public var audioFromFirstPicture = false
    /// The first segment starts a new MPEG-TS stream too (every PID's first packet with the
    /// discontinuity indicator set), as every segment after an `EXT-X-DISCONTINUITY` does: for a
    /// package whose segments are played after others (a service's ad rendition). Off: the
    /// package is a stream of its own from its first segment.
    public var firstRunDiscontinuous = false
    /// How far every video frame decodes before it shows (its DTS this much before its PTS, as in
    /// content with B-frames): for a package played after and before such content (a service's
    /// ad rendition), so that decode times never run back at the joins. Zero: as encoded.
    public var decodeDelay = MediaTime.zero

    /// The media segments' container.
    public var segmentFormat = HLSSegmentFormat.mpegTS

    /// Defaults: 6 s segments, dated when the stitch starts.
    public init(segmentDuration: MediaTime = MediaTime(seconds: 6), programDate: Date? = nil) {
        self.segmentDuration = segmentDuration
        self.programDate = programDate
    }
}

/// The container of an HLS package's media segments.
public enum HLSSegmentFormat: String, Sendable, Equatable, CaseIterable {
    /// MPEG-TS segments (`.ts`), playlist version 3 or more: every HLS player.
    case mpegTS = "ts"
    /// CMAF tracks: a video and an audio track, each an initialization section (`EXT-X-MAP`) and
    /// fragmented-MP4 segments (`.m4s`), addressed by a multivariant playlist (`index.m3u8`, the
    /// audio as an `EXT-X-MEDIA` rendition) and by a static DASH MPD (`index.mpd`): what DASH
    /// players share with HLS ones, and what Apple asks for HEVC and HDR.
    case cmaf
}

/// An ad break as packaged: its stream-time span and its ads, for markers and segment cuts.
package struct PackagedBreak: Sendable, Equatable {
    /// The break's identifier (`preroll`, `midroll-1`, …).
    package var id: String
    /// Stream time of its first ad frame.
    package var start: MediaTime
    /// Stream time where content (or the next break) resumes.
    package var end: MediaTime
    /// Its ads in play order.
    package var ads: [PackagedAd]
    /// How a double-box break showed: it replaced no content, so it gets no cue-out/in, no
    /// segment cut and no discontinuity, only a `com.interlude.doublebox` date range per ad.
    package var doubleBox: DoubleBoxStyle?

    /// Makes a packaged break.
    package init(id: String, start: MediaTime, end: MediaTime, ads: [PackagedAd], doubleBox: DoubleBoxStyle? = nil) {
        self.id = id; self.start = start; self.end = end; self.ads = ads; self.doubleBox = doubleBox
    }
}

/// One ad as packaged.
package struct PackagedAd: Sendable, Equatable {
    /// The ad's identifier (the VAST ad id when known, else the media file's name).
    package var id: String
    /// The ad media file.
    package var mediaFile: String
    /// Stream time of its first frame.
    package var start: MediaTime
    /// Stream time after its last frame.
    package var end: MediaTime

    /// Makes a packaged ad.
    package init(id: String, mediaFile: String, start: MediaTime, end: MediaTime) {
        self.id = id; self.mediaFile = mediaFile; self.start = start; self.end = end
    }
}

/// One media segment of an HLS package.
package struct HLSSegment: Sendable, Equatable {
    /// Its file name in the package folder.
    public var fileName: String
    /// Stream time where it starts.
    public var start: MediaTime
    /// Stream time where it ends.
    public var end: MediaTime
    /// The break it belongs to (index into the packaged breaks); nil for content.
    public var breakIndex: Int?
    /// The ad it belongs to (index into `PackagedBreak.ads`); nil for content.
    public var adIndex: Int?

    /// Duration.
    public var duration: MediaTime { end - start }
}
