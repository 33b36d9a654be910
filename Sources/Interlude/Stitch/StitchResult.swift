import Playback
import Timing

/// Everything a stitch did, however its ads were chosen (`Stitcher`: media the app scheduled;
/// `TagStitcher`: an ad tag or response played through the `AdsManager`; `NativeStitcher`):
/// inputs, output, where each break and ad landed, the content ↔ stream mapping, problems met,
/// stage timings and, for an ad response, the manager's account (events, beacons, ad identities).
public struct StitchResult: Sendable {
    /// How the breaks were chosen.
    public enum Schedule: Sendable, Equatable {
        /// Media files at times the app chose (`--ad-break TIME=MEDIA`).
        case app
        /// An ad tag or response, through `AdsLoader` and `AdsManager` (`--ads`, or tags among
        /// `--ad-break` values).
        case adResponse
    }

    /// How the breaks were chosen (which parts of this result apply).
    public var schedule: Schedule
    /// The content.
    public var content: MediaSummary
    /// The output.
    public var output: MediaSummary
    /// The output format.
    public var format: OutputFormat
    /// Output video frames.
    public var videoFrames: Int64
    /// Output audio samples per channel.
    public var audioSamples: Int64
    /// Breaks as placed in the output, in stream order (every schedule).
    public var breaks: [PlacedBreak]
    /// Content ↔ stream time mapping.
    public var timeline: TimelineMap
    /// Media left out of an app's schedule and other non-fatal problems (`.app`; an ad
    /// response's problems are `errors`).
    public var issues: [StitchIssue]
    /// Content problems that did not stop the stitch (e.g. a read error near the end).
    public var warnings: [String]
    /// Where the time went.
    public var timings: StageTimings
    /// Whether content was copied (`--smart`), or why not; nil with `--smart off`.
    public var smartRendering: SmartRenderingSummary? = nil

    // The AdsManager's account (`.adResponse`; empty for an app's schedule).
    /// IMA cue points of the response.
    public var cuePoints: [Double] = []
    /// Breaks as the manager played them: each ad's identity, skip, presentation and beacons.
    public var playedBreaks: [PlayedBreak] = []
    /// Events in the order the manager emitted them.
    public var events: [AdEvent] = []
    /// Errors: a failed load, and every ad error.
    public var errors: [AdError] = []
    /// Every beacon due, in order.
    public var beacons: [TrackedBeacon] = []
    /// Companions shown in the companion slots, by stream time.
    public var companions: [FilledCompanion] = []
    /// Native ads and where they showed, in request order (`TagStitcher.nativeBreaks`, `NativeStitcher`).
    public var natives: [NativePlacement] = []

    /// A result; the manager's account starts empty.
    public init(schedule: Schedule, content: MediaSummary, output: MediaSummary, format: OutputFormat, videoFrames: Int64,
                audioSamples: Int64, breaks: [PlacedBreak], timeline: TimelineMap, issues: [StitchIssue] = [],
                warnings: [String], timings: StageTimings) {
        self.schedule = schedule; self.content = content; self.output = output; self.format = format
        self.videoFrames = videoFrames; self.audioSamples = audioSamples; self.breaks = breaks; self.timeline = timeline
        self.issues = issues; self.warnings = warnings; self.timings = timings
    }
}
