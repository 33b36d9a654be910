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

    init(url: String, output: OutputFormat, threads: Int = 0, policy: Demuxer.OpenPolicy = .trusted) throws {
        self.url = url
        reader = try SourceReader(url: url, wantAudio: true, threads: threads, policy: policy)
        guard reader.video != nil else { throw MediaError.missingStream("\(url) has no video stream") }
        video = try VideoTrack(reader: reader, output: output)
        audio = try AudioTrack(reader: reader, output: output)
        hasAudio = reader.audio != nil
    }

    /// The next frame to show: the held one, else a newly decoded one.
    func nextFrame() throws -> TimedFrame? {
        if let p = pending { pending = nil; return p }
        let f = try video.next()
        if let origin = video.origin { audio.origin = origin }
        return f
    }
}
