import Playback
import Timing

/// Everything a stitch did, however its ads were chosen (`Stitcher`: media the app scheduled;
/// `TagStitcher`: an ad tag or response played through the `AdsManager`; `NativeStitcher`):
/// inputs, output, where each break and ad landed, the content ↔ stream mapping, problems met,
/// stage timings and, for an ad response, the manager's account (events, beacons, ad identities).
public struct StitchResult: Sendable {
    /// How the breaks were chosen.
    package enum Schedule: Sendable, Equatable {
        /// Media files at times the app chose (`--ad-break TIME=MEDIA`).
        case app
        /// An ad tag or response, through `AdsLoader` and `AdsManager` (`--ads`, or tags among
        /// `--ad-break` values).
        case adResponse
    }

    /// How the breaks were chosen (which parts of this result apply).
    package var schedule: Schedule
    /// The content.
    package var content: MediaSummary
    /// The output.
    package var output: MediaSummary
    /// The output format.
    public var format: OutputFormat
    /// Output video frames.
    public var videoFrames: Int64
    /// Output audio samples per channel.
    public var audioSamples: Int64
    /// Breaks as placed in the output, in stream order (every schedule).
    package var breaks: [PlacedBreak]
    /// Content ↔ stream time mapping.
    package var timeline: TimelineMap
    /// Media left out of an app's schedule and other non-fatal problems (`.app`; an ad
    /// response's problems are `errors`).
    package var issues: [StitchIssue]
    /// Content problems that did not stop the stitch (e.g. a read error near the end).
    public var warnings: [String]
    /// Where the time went.
    package var timings: StageTimings
    /// Whether content was copied (`--smart`), or why not; nil with `--smart off`.
    package var smartRendering: SmartRenderingSummary? = nil

    // The AdsManager's account (`.adResponse`; empty for an app's schedule).
    /// IMA cue points of the response.
    public var cuePoints: [Double] = []
    /// Breaks as the manager played them: each ad's identity, skip, presentation and beacons.
    package var playedBreaks: [PlayedBreak] = []
    /// Events in the order the manager emitted them.
    public var events: [AdEvent] = []
    /// Errors: a failed load, and every ad error.
    public var errors: [AdError] = []
    /// Every beacon due, in order.
    package var beacons: [TrackedBeacon] = []
    /// Companions shown in the companion slots, by stream time.
    package var companions: [FilledCompanion] = []
    /// Native ads and where they showed, in request order (`TagStitcher.nativeBreaks`, `NativeStitcher`).
    package var natives: [NativePlacement] = []

    /// A result; the manager's account starts empty.
    package init(schedule: Schedule, content: MediaSummary, output: MediaSummary, format: OutputFormat, videoFrames: Int64,
                audioSamples: Int64, breaks: [PlacedBreak], timeline: TimelineMap, issues: [StitchIssue] = [],
                warnings: [String], timings: StageTimings) {
        self.schedule = schedule; self.content = content; self.output = output; self.format = format
        self.videoFrames = videoFrames; self.audioSamples = audioSamples; self.breaks = breaks; self.timeline = timeline
        self.issues = issues; self.warnings = warnings; self.timings = timings
    }
}

extension StitchResult {
    /// The result of a stitch whose session has finished: the output's facts from `session`, the
    /// stage timings from when the stitch `started` and finished planning (`planned`, both
    /// `monotonicSeconds()`), the session's content warnings followed by `warnings`. The timeline is
    /// the session's unless given (with breaks of the app's own added).
    init(schedule: Schedule, session: StitchFile, breaks: [PlacedBreak], timeline: TimelineMap? = nil,
         issues: [StitchIssue] = [], warnings: [String] = [], started: Double, planned: Double) {
        var content = session.content
        content.duration = session.timelineMap.segments.last?.contentEnd ?? session.contentDuration
        let total = monotonicSeconds() - started, plan = planned - started
        self.init(schedule: schedule, content: content, output: session.outputSummary, format: session.format,
                  videoFrames: session.videoFrames, audioSamples: session.audioSamples, breaks: breaks,
                  timeline: timeline ?? session.timelineMap, issues: issues, warnings: session.contentWarnings + warnings,
                  timings: StageTimings(plan: plan, decode: max(0, total - plan - session.encoderWaitSeconds),
                                        encode: session.encodeSeconds, mux: session.muxSeconds, total: total))
        smartRendering = session.smartRendering
    }
}

extension Player {
    /// Closes a stitching player (its output moved into place) and returns its session; a
    /// failure comes as a `StitchFailure`.
    func finishStitch() throws -> StitchFile {
        do {
            try close()
        } catch {
            if let f = error as? StitchFailure { throw f }
            throw StitchFailure.encodingFailed("stitch failed: \(error)")
        }
        guard let session = stitchFile else { throw StitchFailure.encodingFailed("stitch failed: no output") }
        return session
    }
}
