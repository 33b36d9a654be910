import Foundation
import Media
import Playback
import Timing

/// The packets of one rendition of a content, segment by segment: video from the rendition's own
/// file (the source for the copied rung, its encode otherwise), audio from the source (every
/// rendition carries the source's audio packets).
///
/// One rule assigns packets to segments, the same when packaging and when cutting: a video packet
/// belongs to its GOP's segment (segments start at keyframes), an audio packet to the segment its
/// timestamp falls in.
final class SegmentPackets {
    /// One video packet and the frame it shows (presentation index from the content's start).
    struct VideoPacket { var packet: Packet; var frame: Int }

    let video: Demuxer
    let videoIndex: Int
    let audio: Demuxer?
    let audioIndex: Int?
    /// Ticks of the video stream's time base per frame.
    let periodTicks: Int64
    /// The video stream's tick of frame 0.
    private(set) var originTicks: Int64 = 0
    /// Whether frame 0's tick is the first packet's (an intermediate file whose muxer moved
    /// every stream so that none starts before 0).
    private var originFromFirstPacket: Bool
    /// Decode delay in frames of the video (a keyframe's pts − dts).
    private(set) var reorderDelay: Int64 = 0
    /// The least decode delay given to video packets (video ticks; see `init`).
    private let minimumDelayTicks: Int64
    private let frameRate: Rational
    private let videoTB: Rational
    private let audioTB: Rational?
    private var heldVideo: VideoPacket?
    private var heldAudio: Packet?
    private var videoEnded = false
    private var audioEnded = false
    private let scratch: Packet

    /// Video from `videoPath` (its best video stream), audio from `audioPath`'s stream `audioIndex`;
    /// frame 0 at `originFrames` periods, or (nil) at the first packet's time. `decodeDelayTicks`
    /// (90 kHz), for video without B-frames only: every video packet decodes at least this long
    /// before it shows (a rung encoded without B-frames keeps the pace of a copied rung that has
    /// them, so that decode times are alike in every variant).
    init(videoPath: String, audioPath: String?, audioIndex: Int?, frameRate: Rational, originFrames: Int?,
         decodeDelayTicks: Int64 = 0) throws {
        video = try Demuxer(url: videoPath)
        guard let v = video.bestStream(.video) else { throw StoreError.unsupported("\(videoPath) has no video stream") }
        videoIndex = v
        video.keepOnly([v])
        videoTB = video.timeBase(of: v)
        self.frameRate = frameRate
        // ticks per frame = (1 / fps) / tb
        let num = videoTB.denominator * frameRate.denominator, den = videoTB.numerator * frameRate.numerator
        guard den > 0, num % den == 0 else { throw StoreError.unsupported("\(videoPath): frame period is not a whole number of ticks") }
        periodTicks = num / den
        minimumDelayTicks = decodeDelayTicks * videoTB.denominator / max(1, 90_000 * videoTB.numerator)
        originFromFirstPacket = originFrames == nil
        originTicks = Int64(originFrames ?? 0) * periodTicks
        if let audioPath, let audioIndex {
            let a = try Demuxer(url: audioPath)
            a.keepOnly([audioIndex])
            audio = a
            self.audioIndex = audioIndex
            audioTB = a.timeBase(of: audioIndex)
        } else {
            audio = nil; self.audioIndex = nil; audioTB = nil; audioEnded = true
        }
        scratch = try Packet()
        guard let first = try readVideo() else { throw StoreError.unsupported("\(videoPath) has no video packets") }
        guard first.packet.isKeyframe else { throw StoreError.unsupported("\(videoPath) does not start with a keyframe") }
        let period = periodTicks
        if let dts = first.packet.dtsTicks, let pts = first.packet.ptsTicks { reorderDelay = max(0, (pts - dts) / period) }
        heldVideo = first
    }

    /// Time of frame `i` on the content timeline.
    func time(ofFrame i: Int) -> MediaTime { frameRate.period * Int64(i) }

    /// An audio packet's time on the content timeline.
    func time(ofAudio p: Packet) -> MediaTime? {
        guard let tb = audioTB, let t = p.ptsTicks ?? p.dtsTicks else { return nil }
        return MediaTime(value: t * tb.numerator, timescale: tb.denominator) - MediaTime(value: originTicks * videoTB.numerator, timescale: videoTB.denominator)
    }

    /// A time on the content timeline as a time on the streams' own clock (their packets'
    /// timestamps as times).
    func streamTime(_ t: MediaTime) -> MediaTime {
        t + MediaTime(value: originTicks * videoTB.numerator, timescale: videoTB.denominator)
    }

    /// When an audio packet's sound ends on the content timeline.
    func endTime(ofAudio p: Packet) -> MediaTime? {
        guard let tb = audioTB, let start = time(ofAudio: p) else { return nil }
        return start + MediaTime(value: p.durationTicks * tb.numerator, timescale: tb.denominator)
    }

    /// The video tick of frame `i`.
    func ticks(ofFrame i: Int) -> Int64 { originTicks + Int64(i) * periodTicks }

    private func readVideo() throws -> VideoPacket? {
        while !videoEnded {
            if try video.read(into: scratch) == .endOfFile { videoEnded = true; break }
            guard scratch.streamIndex == videoIndex, let pts = scratch.ptsTicks else { continue }
            if originFromFirstPacket { originTicks = pts; originFromFirstPacket = false }
            let d = pts - originTicks
            guard d % periodTicks == 0 else { throw StoreError.unsupported("\(video.url): a frame off the constant frame rate (pts \(pts), \(periodTicks) ticks a frame of \(videoTB))") }
            if minimumDelayTicks > 0 { scratch.setTimestamps(pts: pts, dts: min(scratch.dtsTicks ?? pts, pts - minimumDelayTicks)) }
            return VideoPacket(packet: try scratch.take(), frame: Int(d / periodTicks))
        }
        return nil
    }

    private func readAudio() throws -> Packet? {
        guard let audio, let audioIndex else { return nil }
        while !audioEnded {
            if try audio.read(into: scratch) == .endOfFile { audioEnded = true; break }
            guard scratch.streamIndex == audioIndex else { continue }
            return try scratch.take()
        }
        return nil
    }

    /// Moves to the segment that starts at keyframe `startFrame`, as if every segment before it
    /// had been read: a seek a GOP early, then packets dropped up to the keyframe (video) and up to
    /// the first packet at or after its time (audio).
    func skip(to startFrame: Int) throws {
        guard startFrame > 0 else { return }
        let origin = MediaTime(value: originTicks * videoTB.numerator, timescale: videoTB.denominator)
        let start = time(ofFrame: startFrame)
        // half a frame early: lands on the keyframe before whatever the rounding
        try video.seek(toKeyframeAtOrBefore: MediaTime.max(.zero, origin + start - MediaTime(value: frameRate.denominator, timescale: 2 * frameRate.numerator)))
        heldVideo = nil
        videoEnded = false
        while true {
            guard let p = try readVideo() else { throw StoreError.unsupported("\(video.url): no keyframe at frame \(startFrame)") }
            if p.packet.isKeyframe && p.frame == startFrame { heldVideo = p; break }
            if p.frame > startFrame + 10_000 { throw StoreError.unsupported("\(video.url): seeking passed frame \(startFrame)") }
        }
        guard let audio else { return }
        try audio.seek(toKeyframeAtOrBefore: MediaTime.max(.zero, origin + start - MediaTime(seconds: 1)))
        heldAudio = nil
        audioEnded = false
        while let p = try readAudio() {
            if let t = time(ofAudio: p), t < start { continue }
            heldAudio = p
            break
        }
    }

    /// The packets of the segment that ends at frame `endFrame` (nil: the last segment): video
    /// until the next keyframe at or after it, audio until the first packet at or after its time.
    func next(endFrame: Int?) throws -> (video: [VideoPacket], audio: [Packet]) {
        var v: [VideoPacket] = []
        while true {
            guard let p = try heldVideo ?? readVideo() else { break }
            heldVideo = nil
            if let endFrame, p.packet.isKeyframe, p.frame >= endFrame, !v.isEmpty { heldVideo = p; break }
            v.append(p)
        }
        var a: [Packet] = []
        let end = endFrame.map { time(ofFrame: $0) }
        while true {
            guard let p = try heldAudio ?? readAudio() else { break }
            heldAudio = nil
            if let end, let t = time(ofAudio: p), t >= end { heldAudio = p; break }
            a.append(p)
        }
        return (v, a)
    }
}
