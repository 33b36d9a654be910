import Foundation
import Timing

// The boundary between the service's HTTP side (sessions, playlists, tracking, operations) and
// its media side (the store: content ladders, shared cuts, ad renditions, slate). The HTTP side
// only reads these values and calls `ServeMedia`; everything encoded lives behind it, once per
// key, shared by every session.

/// One rung of the ladder every content and ad is served in.
public struct Rendition: Sendable, Hashable, Codable {
    /// Stable name used in URLs and store keys, e.g. "720p".
    public var name: String
    /// Picture width in pixels.
    public var width: Int
    /// Picture height in pixels.
    public var height: Int
    /// Video bits per second (the BANDWIDTH the master playlist advertises adds audio's).
    public var videoBitrate: Int
    /// Audio bits per second.
    public var audioBitrate: Int
    /// The frame rate of the content in this rung (numerator, denominator): ads and slate are
    /// made at it, so that a variant keeps one frame rate; nil: the ladder alone, before a
    /// content gives it one.
    public var frameRateNumerator: Int64?, frameRateDenominator: Int64?
    /// The variant's video codec as its CODECS says (`avc1.64001f`): ads keep to its profile and
    /// level; nil: unknown.
    public var videoCodec: String?
    /// How far the content's frames in this rung decode before they show (90 kHz ticks: two
    /// frames for x264's B-frame pyramid, 0 without B-frames): ads and slate carry the same decode
    /// delay, so that decode times never run back at a join with the content; nil: none.
    public var decodeDelayTicks: Int64?

    /// A rung.
    public init(name: String, width: Int, height: Int, videoBitrate: Int, audioBitrate: Int,
                frameRate: Rational? = nil, videoCodec: String? = nil) {
        self.name = name; self.width = width; self.height = height
        self.videoBitrate = videoBitrate; self.audioBitrate = audioBitrate
        self.frameRateNumerator = frameRate?.numerator; self.frameRateDenominator = frameRate?.denominator
        self.videoCodec = videoCodec
    }

    /// The content's frame rate in this rung, when known.
    public var frameRate: Rational? {
        guard let n = frameRateNumerator, let d = frameRateDenominator, n > 0, d > 0 else { return nil }
        return Rational(n, d)
    }

    /// This rung with the frame rate, the video codec (the first entry of the variant's CODECS)
    /// and the decode delay of the content it serves.
    public func serving(frameRate: Rational?, codecs: String?, decodeDelayTicks: Int64? = nil) -> Rendition {
        var r = self
        r.frameRateNumerator = frameRate?.numerator; r.frameRateDenominator = frameRate?.denominator
        r.videoCodec = codecs.flatMap { $0.split(separator: ",").first.map(String.init) }
        r.decodeDelayTicks = decodeDelayTicks.flatMap { $0 > 0 ? $0 : nil }
        return r
    }

    /// The decode delay as a time (zero: none).
    public var decodeDelay: MediaTime { MediaTime(value: max(0, decodeDelayTicks ?? 0), timescale: 90_000) }

    /// The slate's frame rate in this rung: the content's, else 25 fps.
    public var slateFrameRate: Rational { frameRate ?? Rational(25, 1) }

    /// The length of one slate piece in this rung: the whole frames of `slateFrameRate` that
    /// first reach a second (1 s at 25 or 30 fps, 1.001 s at 30000/1001): slate of any length is
    /// whole pieces and one remainder, each made once and shared.
    public var slatePiece: MediaTime {
        let rate = slateFrameRate
        let frames = (rate.numerator + rate.denominator - 1) / rate.denominator
        return rate.period * max(1, frames)
    }

    /// What an ad rendition made for this rung is stored under: the name, size, frame rate,
    /// video codec and bit rates, so that two contents whose rungs share a name but not a frame
    /// rate (or a level) never share an ad's rendition (`720p-1280x720-30000_1001-avc1.64001f-3000000`).
    public var key: String {
        let rate = frameRate.map { "\($0.numerator)_\($0.denominator)" } ?? "own"
        let codec = (videoCodec ?? "any").filter { $0.isLetter || $0.isNumber || $0 == "." }
        let delay = (decodeDelayTicks ?? 0) > 0 ? "-d\(decodeDelayTicks!)" : ""
        return "\(name)-\(width)x\(height)-\(rate)-\(codec)-\(videoBitrate)-\(audioBitrate)\(delay)"
    }
}

/// One MPEG-TS segment in the store, served as `/v1/segments/<path>`.
public struct StoredSegment: Sendable, Hashable, Codable {
    /// Path relative to the store's root ("content/<hash>/720p/seg00003.ts"); never absolute,
    /// never containing "..".
    public var path: String
    /// Exact duration on the content's (or ad's) own timeline.
    public var duration: MediaTime
    /// How it is encrypted (an AES-128 origin's segment, kept as it came); nil: clear.
    public var encryption: SegmentEncryption?

    /// A segment at `path` lasting `duration`.
    public init(path: String, duration: MediaTime, encryption: SegmentEncryption? = nil) {
        self.path = path; self.duration = duration; self.encryption = encryption
    }
}

/// A content source packaged into the store: its ladder and, per rendition, its segments.
public struct PreparedContent: Sendable {
    /// The name it is registered under.
    public var name: String
    /// Exact content duration.
    public var duration: MediaTime
    /// The renditions, top first, each with the CODECS string its variant advertises (each
    /// rendition carries the content's frame rate and its video codec).
    public var renditions: [(rendition: Rendition, codecs: String)]
    /// Cue points the origin itself marks (CUE-OUT / SCTE-35 DATERANGE of an HLS source), on the
    /// content timeline; empty for an MP4 source.
    public var originCues: [MediaTime]
    /// Its subtitle tracks (an HLS origin's WebVTT renditions), cues on the content timeline.
    public var subtitles: [SubtitleTrack]
    /// What taking it in left out, one line each (a subtitle track that could not be read).
    public var notes: [String]
    /// Whether its segments are encrypted (an AES-128 origin's): served as they came, as HLS
    /// with MPEG-TS segments on their own clock, breaks at segment boundaries.
    public var encrypted: Bool = false
    /// An encrypted CMAF origin's protection and sound: its segments go out as they came, as DASH only.
    var protectedCMAF: ProtectedCMAF? = nil
    /// Its audio renditions (an HLS origin's alternate audio), the default first; empty: the
    /// content's own sound only.
    public var audioTracks: [AudioTrack] = []

    /// A packaged content.
    public init(name: String, duration: MediaTime, renditions: [(rendition: Rendition, codecs: String)], originCues: [MediaTime],
                subtitles: [SubtitleTrack] = [], notes: [String] = []) {
        self.name = name; self.duration = duration; self.renditions = renditions; self.originCues = originCues
        self.subtitles = subtitles; self.notes = notes
    }
}

/// One audio rendition of a content: the default (whose sound the ladder's segments carry) or
/// another language, carried by a rung of its own (`rendition`: the lowest rung's video with
/// that language's sound), which a session cuts as it cuts a rung and whose sound it serves as
/// that language's track (HLS with CMAF segments, DASH).
public struct AudioTrack: Sendable, Hashable {
    /// `NAME`.
    public var name: String
    /// `LANGUAGE`.
    public var language: String?
    /// Whether it is the default (the ladder's own sound).
    public var isDefault: Bool
    /// `AUTOSELECT`.
    public var autoselect: Bool
    /// `CHANNELS`.
    public var channels: String?
    /// The rung carrying it; nil for the default.
    public var rendition: Rendition?
    /// The ladder rung whose video `rendition` copies (its ads and slate are that rung's).
    public var base: String?
}

/// The content of one rendition cut at a set of cues: `runs[0]` plays from 0 to the first cue,
/// `runs[i]` from cue i-1 to cue i, the last to the end. Each run's durations sum exactly to its
/// span; a run's first or last segment is a shared cut (only the split GOP re-encoded) where a cue
/// falls inside an origin segment, otherwise the origin's segment byte for byte.
public struct CutContent: Sendable {
    /// The cues as cut: the first frame at or after each requested cue.
    public var cues: [MediaTime]
    /// The runs between the cues (one more than the cues).
    public var runs: [[StoredSegment]]

    /// A cut content.
    public init(cues: [MediaTime], runs: [[StoredSegment]]) { self.cues = cues; self.runs = runs }
}

/// Whether an ad's rendition is in the store yet.
public enum AdReadiness: Sendable {
    /// Transcoded: its segments, and its exact duration.
    case ready([StoredSegment], duration: MediaTime)
    /// Queued or in progress on the worker pool: leave the ad out of this playlist.
    case pending
    /// It cannot be served (fetch or decode failed, too large …): a VAST error code for the
    /// ad's Error URLs and a one-line reason.
    case failed(code: Int, reason: String)
}

/// What the HTTP side asks of the store. Every method is safe to call from any thread, and none
/// of them blocks a request for an encode: work the store does not have yet is queued.
public protocol ServeMedia: Sendable {
    /// The content registered under `name`, packaged (once; later calls are a lookup). Throws
    /// for an unknown name or a source that cannot be packaged.
    func content(_ name: String) async throws -> PreparedContent
    /// One rendition of `content` cut at `cues` (content timeline). A cut is made once per
    /// (content, rendition, cue) and shared.
    func cut(_ content: String, rendition: String, at cues: [MediaTime]) async throws -> CutContent
    /// The ad media at `mediaURL` (the VAST MediaFile chosen) made for `rendition` (its size,
    /// frame rate, codec profile and level), keyed by the hash of the media's bytes and the
    /// rung's `key`: `.ready` when in the store, else queued and `.pending`.
    func ad(mediaURL: String, rendition: Rendition) -> AdReadiness
    /// Slate segments filling `duration` in `rendition` (exact total, at its frame rate).
    func slate(rendition: Rendition, duration: MediaTime) async throws -> [StoredSegment]
    /// The file behind a segment path, for the HTTP side to send; nil for a path the store does
    /// not hold. Marks the entry used (LRU).
    func file(forSegment path: String) -> URL?
    /// Count of encodes started since launch, by kind ("cut", "ad", "ladder", "slate"), for
    /// /metrics and for tests that prove sharing.
    func encodeCounts() -> [String: Int]
    /// Marks segment paths as referenced by a live session: the store's size bound never evicts
    /// them until as many `unpin` calls release them (call on session start, unpin on expiry).
    func pin(_ paths: [String])
    /// Releases paths pinned by `pin`.
    func unpin(_ paths: [String])
}

extension ServeMedia {
    /// A store without a size bound has nothing to pin.
    public func pin(_ paths: [String]) {}
    /// A store without a size bound has nothing to unpin.
    public func unpin(_ paths: [String]) {}
}

/// Gauges for `/metrics` (additive; a store that can tell should implement them: the defaults
/// answer 0, which `/metrics` shows as is).
public protocol ServeMediaGauges {
    /// Encodes queued or running now.
    func queuedEncodes() -> Int
    /// Bytes the store holds.
    func storeBytes() -> Int64
}
