import Timing

/// How content reaches a stitch's frame loop, one run (from where it stands to a cue) at a time,
/// presented into the stitch's surface. Two feeds: `DecodedContent` (every frame decoded and
/// stepped by `SegmentCursor`, the player's own selection) and `SmartContent` (packets copied for a
/// packet output, only the GOPs a cue splits decoded and encoded).
protocol ContentFeed: AnyObject {
    /// Plays content from where it stands up to the first frame at or after `cue` (held for the
    /// next run), or to its end when `cue` is nil; `onFrame` sees each frame's content time.
    func play(until cue: MediaTime?, surface: RenderSurface, onFrame: (MediaTime) -> Bool) throws -> SegmentOutcome
    /// Whether every content frame has been shown.
    var ended: Bool { get }
    /// Content time of the frame held at a cue (the next to show); nil when none is held.
    var nextContentTime: MediaTime? { get }
}

/// Content decoded frame by frame: a new segment of its `SegmentCursor` per run.
final class DecodedContent: ContentFeed {
    let cursor: SegmentCursor

    init(source: MediaSource, output: OutputFormat) { cursor = SegmentCursor(source: source, output: output) }

    func play(until cue: MediaTime?, surface: RenderSurface, onFrame: (MediaTime) -> Bool) throws -> SegmentOutcome {
        try cursor.play(until: cue, on: surface, onFrame: onFrame)
    }

    var ended: Bool { cursor.ended }
    var nextContentTime: MediaTime? { cursor.heldTime }
}
