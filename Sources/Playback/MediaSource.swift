import Media
import Timing

/// One input placed on the output timeline, content or ad: its video and audio tracks and the
/// frame held back at a cue (the first content frame after a break).
final class MediaSource {
    let url: String
    let reader: SourceReader
    let video: VideoTrack
    let audio: AudioTrack
    let hasAudio: Bool
    /// A frame decoded but not yet shown: the first frame of the next segment.
    var pending: TimedFrame?
    /// Whether every video frame has been shown.
    var ended = false
    /// Content: the source time the next segment starts at when that is before its first frame,
    /// the first frame held until its own time (as a player shows it during a leading empty
    /// edit, with the audio before it). The timeline's start (0) until the first frame is shown;
    /// a cue before the first frame moves it to the cue; nil once the first frame was shown, and
    /// always for ads (their time starts at their first frame).
    var gapStart: MediaTime?

    /// Opens `url`. `timeline`: content, whose times are on its presentation timeline (see
    /// `ContentTimeline`); nil for an ad, whose time 0 is its first video frame.
    init(url: String, output: OutputFormat, threads: Int = 0, policy: Demuxer.OpenPolicy = .trusted,
         timeline: ContentTimeline? = nil) throws {
        self.url = url
        reader = try SourceReader(url: url, wantAudio: true, threads: threads, policy: policy)
        guard reader.video != nil else { throw MediaError.missingStream("\(url) has no video stream") }
        video = try VideoTrack(reader: reader, output: output)
        audio = try AudioTrack(reader: reader, output: output)
        hasAudio = reader.audio != nil
        if let timeline {
            video.timeline = timeline
            video.origin = timeline.start
            audio.origin = timeline.start
            gapStart = .zero
        }
    }

    /// The next frame to show: the held one, else a newly decoded one.
    func nextFrame() throws -> TimedFrame? {
        if let p = pending { pending = nil; return p }
        let f = try video.next()
        if let origin = video.origin { audio.origin = origin }
        return f
    }
}
