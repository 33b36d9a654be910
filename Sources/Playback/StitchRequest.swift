import Foundation
import Timing

/// An ad break to splice: where, and the ad media files of its pod in play order.
public struct AdBreakRequest: Sendable, Equatable {
    /// Identifier used in events, chapters and the report.
    public var id: String
    /// Where it plays.
    public var position: BreakCue
    /// Ad media files (paths or URLs FFmpeg can open), played in order as a pod.
    public var ads: [String]
    /// A double-box break: content keeps playing beside the ads (`TIME=AD@doublebox`); nil: the
    /// content pauses for the break.
    public var doubleBox: DoubleBoxStyle? = nil

    /// Makes a break request.
    public init(id: String, position: BreakCue, ads: [String]) {
        self.id = id; self.position = position; self.ads = ads
    }
}

/// Everything a stitch needs: content, breaks, output and encoding choices.
public struct StitchRequest: Sendable {
    /// Content file path or URL.
    public var content: String
    /// Ad breaks, in any order; they are played in cue order.
    public var breaks: [AdBreakRequest]
    /// Output path, or `-` for standard output (frame streams).
    public var output: String
    /// Container of the output.
    public var container: OutputContainer
    /// libx264 / AAC settings (MP4).
    public var encoder: EncoderSettings
    /// Output picture size; the content's display size when nil.
    public var size: (width: Int, height: Int)?
    /// Output frame rate; the content's when nil.
    public var frameRate: Rational?
    /// Replace an existing output file.
    public var overwrite: Bool
    /// Decoder threads (0: FFmpeg decides).
    public var threads: Int
    /// Leave the finished output at `OutputTarget.temporaryPath(for: output)` for the caller to
    /// commit together with other files (the CLI's report) through `OutputTarget.commit`.
    package var deferCommit = false
    /// Stitch content that decodes short of its declared duration (it is an error otherwise).
    public var allowTruncated = false
    /// Open the content under the ad-media rules (`Demuxer.OpenPolicy.adMedia`: only the
    /// containers an ad can be, the local file only): content that came from an ad server, such
    /// as a service's ad rendition.
    package var contentIsAdMedia = false
    /// The output's audio sample rate and channel count; nil: the content's.
    public var audio: (sampleRate: Int, channels: Int)? = nil
    /// Segment duration and dates of `--format hls` output.
    public var hls = HLSSettings()
    /// Ad loudness normalisation (`--loudness`).
    public var loudness: LoudnessMode = .off
    /// Copy content packets instead of re-encoding them (`--smart`).
    public var smart: SmartRendering = .auto
    /// Folder of the ad transcode cache used with smart rendering; nil: no cache.
    public var transcodeCache: String? = nil
    /// Most bytes the transcode cache keeps (least recently used entries go first).
    public var transcodeCacheMaxBytes: Int64 = 2 << 30
    /// Seconds a stitch may sit with no frame written and nothing to do (content paused and no
    /// ad playing, or an ad paused) before it fails with `StitchFailure.stalled` (`--stall-timeout`):
    /// what turns an app or ad manager that never resumes content into an error instead of a hang.
    /// The stitchers arm it on their player (`Player.stallTimeout`) once ad media is ready. nil: no limit.
    public var stallTimeout: Double? = StitchRequest.defaultStallTimeout
    /// `stallTimeout`'s default, in seconds.
    public static let defaultStallTimeout: Double = 120

    /// Makes a request with defaults: MP4, `EncoderSettings()`, content size and rate.
    public init(content: String, breaks: [AdBreakRequest], output: String, container: OutputContainer = .mp4,
                encoder: EncoderSettings = EncoderSettings(), size: (width: Int, height: Int)? = nil,
                frameRate: Rational? = nil, overwrite: Bool = false, threads: Int = 0) {
        self.content = content; self.breaks = breaks; self.output = output; self.container = container
        self.encoder = encoder; self.size = size; self.frameRate = frameRate; self.overwrite = overwrite
        self.threads = threads
    }
}

/// Why a stitch could not produce output at all. No partial output file is left behind.
public enum StitchFailure: Error, Equatable, CustomStringConvertible {
    /// The content cannot be opened or read.
    case contentUnreadable(String)
    /// The content has no video stream.
    case contentHasNoVideo(String)
    /// The output exists and overwriting was not asked for.
    case outputExists(String)
    /// The output cannot be written.
    case outputUnwritable(String)
    /// A cue lies at or past the end of the content.
    case cuePastEnd(cue: MediaTime, duration: MediaTime)
    /// The content decodes well short of its declared duration (cut short or damaged).
    case contentTruncated(String)
    /// An option is out of range.
    case invalidOption(String)
    /// Encoding or muxing failed.
    case encodingFailed(String)
    /// No frame was written for `seconds` while the app gave the stitch nothing to do
    /// (`Player.stallTimeout`): content paused at `streamTime` and never resumed.
    case stalled(seconds: Double, streamTime: MediaTime)

    /// One line for the CLI.
    public var description: String {
        switch self {
        case .contentUnreadable(let s): return s
        case .contentHasNoVideo(let s): return "content \(s) has no video stream"
        case .outputExists(let s): return "output \(s) exists (use -y to overwrite)"
        case .outputUnwritable(let s): return s
        case let .cuePastEnd(cue, duration):
            return "ad break at \(cue.seconds)s is past the end of the content (\(duration.seconds)s)"
        case .invalidOption(let s): return s
        case .encodingFailed(let s): return s
        case .contentTruncated(let s): return s
        case let .stalled(seconds, streamTime):
            return "the stitch stalled: no frame written for \(String(format: "%g", seconds)) s at stream time \(String(format: "%.3f", streamTime.seconds)) s "
                + "(content paused and nothing playing: the app or ad manager never resumed it)"
        }
    }
}

/// A problem that did not stop the stitch, such as an ad left out of its pod, with the VAST
/// error code that describes it (401 file not found, 403 no supported media, 405 cannot play).
package struct StitchIssue: Sendable, Equatable, Codable {
    /// VAST error code.
    package var code: Int
    /// One-line explanation.
    package var message: String
    /// The ad media file concerned, if any.
    package var mediaFile: String?
    /// The ad break concerned, if any.
    package var breakId: String?

    /// Makes an issue.
    package init(code: Int, message: String, mediaFile: String? = nil, breakId: String? = nil) {
        self.code = code; self.message = message; self.mediaFile = mediaFile; self.breakId = breakId
    }
}

extension StitchIssue {
    /// The issue for an ad that `AdMediaProbe` rejected.
    package init(rejection error: Error, url: String, breakId: String?) {
        if let r = error as? AdMediaProbe.Rejection {
            self.init(code: r.code, message: r.message, mediaFile: url, breakId: breakId)
        } else {
            self.init(code: 405, message: "ad media \(url): \(error)", mediaFile: url, breakId: breakId)
        }
    }
}
