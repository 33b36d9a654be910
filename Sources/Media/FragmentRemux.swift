import Foundation
import Timing

/// A CMAF (fragmented MP4) media segment as an MPEG-TS segment: its video and audio packets
/// copied unchanged (no decode, no encode) from its initialization segment and the segment into
/// libavformat's MPEG-TS muxer, timestamps kept on the segment's own clock (`tfdt`) moved by a
/// fixed `shift`, so that consecutive segments of one track follow one another in TS as they do
/// in CMAF. The audio may come from a track of its own (a DASH audio Representation): then the
/// packets of its time are taken from it (an MPEG-TS video segment with an MPEG-TS audio
/// rendition's track: an HLS origin's alternate audio). The input is opened as ad media is
/// (allowed demuxers, the file protocol only): the bytes come from a network.
public enum FragmentRemux {
    /// Where a segment's audio comes from when it is not in the segment: `file`, a whole audio
    /// track (its initialization segment and every fragment), of which the packets from the
    /// segment's first picture (from the track's start for the `first` segment) for `length`
    /// (to the track's end for the `last`) are taken.
    public struct AudioSpan: Sendable {
        /// The audio track, fMP4.
        public var file: URL
        /// The segment's length, from its first picture.
        public var length: MediaTime
        /// The first segment: audio from the track's start.
        public var first: Bool
        /// The last segment: audio to the track's end.
        public var last: Bool

        /// The audio of a segment `length` long from its first picture.
        public init(file: URL, length: MediaTime, first: Bool, last: Bool) {
            self.file = file; self.length = length; self.first = first; self.last = last
        }
    }

    /// The presentation time of the first picture of `segment` (fMP4, with its `initialization`),
    /// on the track's timeline: where `mpegTS` starts a segment's `AudioSpan`. `scratch` is a
    /// folder for the joined file.
    public static func firstPicture(initialization: URL?, segment: URL, scratch: URL) throws -> MediaTime {
        guard let first = try pictures(initialization: initialization, segment: segment, scratch: scratch).times.first else {
            throw MediaError.unsupported("a CMAF segment without pictures")
        }
        return first
    }

    /// The presentation times of every picture of `segment` (fMP4, with its `initialization`), in
    /// order, on the track's timeline, and whether its first picture in decode order is a
    /// keyframe. Read from the boxes only (no picture is decoded), so an encrypted segment
    /// (`cenc`, `cbcs`) is read as a clear one. `scratch` is a folder for the joined file.
    public static func pictures(initialization: URL?, segment: URL, scratch: URL) throws -> (times: [MediaTime], startsWithKeyframe: Bool) {
        let joined = try self.joined(initialization, segment, in: scratch)
        defer { if joined != segment { try? FileManager.default.removeItem(at: joined) } }
        // its boxes say what it holds: nothing is decoded (an encrypted picture would not decode);
        // an MPEG-TS segment declares less, and is probed
        let demuxer = try Demuxer(url: joined.path, policy: .adMedia, probe: initialization == nil)
        guard let video = demuxer.bestStream(.video) else { throw MediaError.unsupported("a CMAF segment without video") }
        demuxer.keepOnly([video])
        let tb = demuxer.timeBase(of: video)
        let packet = try Packet()
        var ticks: [Int64] = []
        var firstIsKey: Bool?
        while try demuxer.read(into: packet) == .packet {
            guard packet.streamIndex == video, let pts = packet.ptsTicks else { continue }
            if firstIsKey == nil { firstIsKey = packet.isKeyframe }
            ticks.append(pts)
        }
        return (ticks.sorted().map { MediaTime(value: $0 * tb.numerator, timescale: tb.denominator) }, firstIsKey ?? false)
    }

    /// The span of `segment`'s sound (fMP4 with its `initialization`): from its first packet's
    /// presentation time to its last one's end (a packet read without a length lasting the step
    /// before it), on the track's timeline; nil when it has no
    /// sound. Read from the boxes only (nothing decoded). `scratch` is a folder for the joined file.
    public static func soundSpan(initialization: URL, segment: URL, scratch: URL) throws -> (start: MediaTime, end: MediaTime)? {
        let joined = try self.joined(initialization, segment, in: scratch)
        defer { try? FileManager.default.removeItem(at: joined) }
        let demuxer = try Demuxer(url: joined.path, policy: .adMedia, probe: false)
        guard let audio = demuxer.bestStream(.audio) else { return nil }
        demuxer.keepOnly([audio])
        let tb = demuxer.timeBase(of: audio)
        let packet = try Packet()
        var lo: Int64?, hi: Int64?
        // (a packet read without a length — unprobed, FFmpeg leaves them so — lasts as far as
        // the step from the one before it)
        var frame: Int64 = 0, previous: Int64?
        while try demuxer.read(into: packet) == .packet {
            guard packet.streamIndex == audio, let pts = packet.ptsTicks else { continue }
            if packet.durationTicks > 0 { frame = packet.durationTicks } else if let previous, pts > previous { frame = pts - previous }
            previous = pts
            lo = min(lo ?? pts, pts)
            hi = max(hi ?? pts, pts + frame)
        }
        guard let lo, let hi else { return nil }
        func time(_ t: Int64) -> MediaTime { MediaTime(value: t * tb.numerator, timescale: tb.denominator) }
        return (time(lo), time(hi))
    }

    /// `segment` ready to open: with its `initialization` (fMP4) a joined copy in `scratch`, the
    /// caller's to remove; without (MPEG-TS) the segment itself.
    static func joined(_ initialization: URL?, _ segment: URL, in scratch: URL) throws -> URL {
        guard let initialization else { return segment }
        let joined = scratch.appendingPathComponent(".joined.\(getpid()).\(UUID().uuidString).mp4")
        var bytes = try Data(contentsOf: initialization)
        bytes.append(try Data(contentsOf: segment))
        try bytes.write(to: joined)
        return joined
    }

    /// Writes `output` (MPEG-TS) from `initialization` and `segment` (fMP4 files; or an MPEG-TS
    /// segment, no initialization), with the audio of `audio` when given (else the segment's
    /// own). `shift` (added to every timestamp) keeps decode times that start before the first
    /// presentation time (B-frames) above zero, where MPEG-TS needs them. Throws `MediaError` for
    /// a segment without H.264 video.
    public static func mpegTS(initialization: URL?, segment: URL, to output: URL, shift: MediaTime = .zero, audio: AudioSpan? = nil) throws {
        let joined = try self.joined(initialization, segment, in: output.deletingLastPathComponent())
        defer { if joined != segment { try? FileManager.default.removeItem(at: joined) } }
        let demuxer = try Demuxer(url: joined.path, policy: .adMedia)
        guard let video = demuxer.bestStream(.video), demuxer.streams[video].codecName == "h264" else {
            throw MediaError.unsupported("a segment without H.264 video")
        }
        let own = audio == nil ? demuxer.bestStream(.audio) : nil
        let kept = [video] + (own.map { [$0] } ?? [])
        demuxer.keepOnly(Set(kept))
        var track: (demuxer: Demuxer, index: Int)?
        if let audio {
            let d = try Demuxer(url: audio.file.path, policy: .adMedia)
            guard let a = d.bestStream(.audio) else { throw MediaError.unsupported("an audio track without audio") }
            d.keepOnly([a])
            track = (d, a)
        }
        let muxer = try Muxer(url: output.path, formatName: "mpegts")
        var outIndex: [Int: Int] = [:]
        for i in kept { outIndex[i] = try muxer.addStream(copying: i, of: demuxer) }
        let trackOut = try track.map { try muxer.addStream(copying: $0.index, of: $0.demuxer) }
        func time(_ ticks: Int64, _ tb: Rational) -> MediaTime { MediaTime(value: ticks * tb.numerator, timescale: tb.denominator) }
        func shifted(_ packet: Packet, _ tb: Rational) {
            let offset = MediaTime(value: shift.value * tb.denominator, timescale: shift.timescale * tb.numerator)
                .rescaled(to: 1, rounding: .nearest).value
            packet.setTimestamps(pts: packet.ptsTicks.map { $0 + offset }, dts: packet.dtsTicks.map { $0 + offset })
        }
        let packet = try Packet()
        // the timestamps as they are (`mpegts_copyts`); the PCR the engine's `max_delay` below
        // the decode times, as in every TS the project writes — less where the first decode time
        // is nearer zero (a PCR cannot go below it)
        var pending = try demuxer.read(into: packet) == .packet
        var lead = Muxer.mpegTSMaxDelayMicroseconds
        if pending, let t = packet.dtsTicks ?? packet.ptsTicks {
            let first = time(t, demuxer.timeBase(of: packet.streamIndex)) + shift
            lead = max(0, min(lead, first.rescaled(to: 1_000_000, rounding: .down).value))
        }
        try muxer.writeHeader(options: ["mpegts_copyts": "1", "max_delay": String(lead)])
        var wrote = 0
        var firstPicture: MediaTime?
        while try pending || demuxer.read(into: packet) == .packet {
            pending = false
            guard let out = outIndex[packet.streamIndex] else { continue }
            let tb = demuxer.timeBase(of: packet.streamIndex)
            if packet.streamIndex == video, let pts = packet.ptsTicks {
                firstPicture = min(firstPicture ?? time(pts, tb), time(pts, tb))
            }
            shifted(packet, tb)
            try muxer.write(packet, stream: out)
            wrote += 1
        }
        if let track, let trackOut, let audio, let picture = firstPicture {
            let tb = track.demuxer.timeBase(of: track.index)
            let end = picture + audio.length
            while try track.demuxer.read(into: packet) == .packet {
                guard let pts = packet.ptsTicks else { continue }
                let t = time(pts, tb)
                guard audio.first || t >= picture else { continue }
                guard audio.last || t < end else { break }
                shifted(packet, tb)
                try muxer.write(packet, stream: trackOut)
            }
        }
        try muxer.finish()
        guard wrote > 0 else { throw MediaError.unsupported("a CMAF segment without samples") }
    }
}
