import Foundation
import Media
import Timing

/// The content side of a smart-rendered stitch: plays content segments onto a stitch's
/// surface by copying every GOP that lies wholly inside the segment, and the frames of a GOP
/// before a cue when they come first in decode order (always so without B-frames); only the rest
/// of a GOP a cue splits is decoded and its frames inside the segment go to the encoder. Audio is
/// decoded and spliced exactly as in a full re-encode; where a segment's audio is in phase with the
/// output's AAC packets, the content's own packets are copied in place of encoding it, all but
/// those around each join (`ContentAudioCopy`).
final class SmartContent: Feed {
    let scan: SmartContentScan
    private let gops: GOPReader
    private let audioReader: SourceReader
    private let audio: AudioTrack
    /// Where its sound's sample 0 is on the content's timeline (what every other track of the
    /// content is read against: `ContentAudioTracks`).
    var audioOrigin: MediaTime { audio.origin }
    private let audioCopy: ContentAudioCopy?
    private let output: OutputFormat
    private let threads: Int
    private var position = 0             // next content frame to show
    private var gopsRead = 0             // GOPs taken from the reader so far
    private var gopIndex = -1            // GOP whose packets are in `gop` (-1: none)
    private var gop: [Packet] = []
    private var held = false
    /// Content frames copied and decoded for re-encoding.
    private(set) var copiedFrames = 0
    private(set) var encodedFrames = 0

    /// Content time of frame 0 (after 0 when the video starts after the timeline's start).
    private let videoStart: MediaTime
    /// Content time before frame 0 from which the next segment holds frame 0 (see
    /// `MediaSource.gapStart`); nil once frame 0 was shown.
    private var gapStart: MediaTime?

    init(url: String, scan: SmartContentScan, timeline: ContentTimeline, output: OutputFormat, threads: Int) throws {
        self.scan = scan
        self.output = output
        self.threads = threads
        gops = try GOPReader(url: url, videoIndex: scan.videoIndex)
        audioReader = try SourceReader(url: url, wantAudio: true, wantVideo: false)
        audio = try AudioTrack(reader: audioReader, output: output)
        audioCopy = try ContentAudioCopy(url: url, output: output)
        let tb = gops.demuxer.timeBase(of: scan.videoIndex)
        let first = MediaTime(value: scan.originTicks * tb.numerator, timescale: tb.denominator)
        let origin = timeline.origin(firstFrame: first)
        audio.origin = origin
        audio.runIdentity = Self.identity(url: url, origin: origin)
        videoStart = first - origin
        gapStart = videoStart > .zero ? .zero : nil
    }

    /// What the content's audio samples are, for the transcode cache's encoded audio runs: the
    /// local file (path, size, modification time) and the timeline origin; nil for a remote one.
    static func identity(url: String, origin: MediaTime) -> String? {
        guard !url.contains("://"), let a = try? FileManager.default.attributesOfItem(atPath: url),
              let size = a[.size] as? NSNumber, let date = a[.modificationDate] as? Date else { return nil }
        let path = URL(fileURLWithPath: url).standardizedFileURL.path
        return "content \(path) size=\(size) mtime=\(date.timeIntervalSince1970) origin=\(origin.value)/\(origin.timescale)"
    }

    /// AAC packets copied from the content into the output.
    var copiedAudioPackets: Int { audioCopy?.copied ?? 0 }

    /// Content time of frame `index`.
    private func time(ofFrame index: Int) -> MediaTime { videoStart + output.frameDuration * Int64(index) }

    /// Whether every content frame has been shown.
    var ended: Bool { position >= scan.frameCount }
    /// Content time of the next frame to show when play stopped at a cue.
    var nextContentTime: MediaTime? { held && !ended ? time(ofFrame: position) : nil }

    /// Plays content up to the first frame at or after `cue` (or to its end), as `DecodedFeed.play`
    /// (content before frame 0 with frame 0 held, encoded); `onFrame`'s answer is not asked (a
    /// run of copied packets ends at a cue).
    func play(until cue: MediaTime?, on surface: RenderSurface, onFrame: (MediaTime) -> Bool) throws -> SegmentOutcome {
        let period = output.frameDuration
        let end = min(scan.frameCount, cue.map { max(0, Int(($0 - videoStart).count(of: period, rounding: .up))) } ?? scan.frameCount)
        let streamStart = surface.streamTime
        let start = position
        held = cue != nil && end < scan.frameCount
        var lead: MediaTime?
        if start == 0, let g = gapStart, cue.map({ g < $0 }) ?? true { lead = g }
        guard start < end || lead != nil else {
            return SegmentOutcome(sourceStart: time(ofFrame: start), sourceEnd: time(ofFrame: start),
                                  frames: 0, streamStart: streamStart, streamEnd: streamStart)
        }
        let sourceOffset = output.sampleIndex(at: lead ?? time(ofFrame: start)) - surface.presentedSamples
        if let lead {
            // frame 0 held from `lead` for the slots before its own time (or before a cue there)
            let leadEnd = start < end ? videoStart : min(videoStart, cue ?? videoStart)
            let slots = FrameSelection.frameCount(from: lead, to: leadEnd, period: period)
            gapStart = start < end ? nil : leadEnd
            try load(0)
            var decoded: Frame?
            try decode(range: 0..<1) { _, frame in decoded = try frame.clone() }
            guard let first = decoded else { throw MediaError.unsupported("smart rendering: the content's first frame did not decode") }
            for k in 0..<slots {
                try surface.presentVideo(first, keyframe: k == 0, isAd: false, sourceTime: lead + period * k)
                encodedFrames += 1
                try surface.presentAudio(from: audio, offset: sourceOffset)
                _ = onFrame(lead + period * k)
            }
            if start == end {
                return SegmentOutcome(sourceStart: lead, sourceEnd: leadEnd, frames: slots,
                                      streamStart: streamStart, streamEnd: surface.streamTime)
            }
        }
        if position < end, let audioCopy {
            let frames = surface.presentedFrames + Int64(end - position)
            try audioCopy.begin(start: surface.presentedSamples, end: output.sampleIndex(at: output.time(ofFrame: frames)),
                                track: audio, offset: sourceOffset, on: surface)
        }
        func presentAudio() throws {
            try surface.presentAudio(from: audio, offset: sourceOffset)
            try audioCopy?.pump(surface)
        }
        while position < end {
            let g = scan.gop(of: position)
            try load(g)
            let range = scan.range(ofGOP: g)
            let upTo = min(end, range.upperBound)
            if position == range.lowerBound && upTo == range.upperBound {
                // the whole GOP: copy its packets, presentation index from the content's own timestamp
                let base = surface.presentedFrames - Int64(position)
                for p in gop { try surface.presentCopied(p, index: base + Int64(index(of: p))) }
                gop = []
                gopIndex = -1   // its packets went to the muxer
                copiedFrames += upTo - position
                for i in position..<upTo {
                    surface.countCopiedFrame()
                    _ = onFrame(time(ofFrame: i))
                }
                try presentAudio()
            } else if position == range.lowerBound, let prefix = decodeOrderPrefix(before: upTo) {
                // the frames of a GOP before a cue, when they come first in decode order (no frame
                // among them refers to a later one): copied as they are. Copies of the packets go
                // to the muxer; the GOP stays loaded for the part after the cue.
                let base = surface.presentedFrames - Int64(position)
                for p in prefix {
                    let copy = try Packet(bytes: p.bytes)
                    copy.setKeyframe(p.isKeyframe)
                    try surface.presentCopied(copy, index: base + Int64(index(of: p)))
                }
                copiedFrames += upTo - position
                for i in position..<upTo {
                    surface.countCopiedFrame()
                    _ = onFrame(time(ofFrame: i))
                }
                try presentAudio()
            } else {
                // a GOP the cue splits: decode it, encode the frames inside the segment
                let first = position
                try decode(range: position..<upTo) { index, frame in
                    try surface.presentVideo(frame, keyframe: index == first, isAd: false, sourceTime: time(ofFrame: index))
                    encodedFrames += 1
                    try presentAudio()
                    _ = onFrame(time(ofFrame: index))
                }
                if upTo == range.upperBound { gop = []; gopIndex = -1 }
            }
            position = upTo
        }
        try audioCopy?.finish(surface)
        return SegmentOutcome(sourceStart: lead ?? time(ofFrame: start), sourceEnd: time(ofFrame: end),
                              frames: Int64(end - start), streamStart: streamStart, streamEnd: surface.streamTime)
    }

    /// A content packet's frame index.
    private func index(of p: Packet) -> Int { Int((p.ptsTicks! - scan.originTicks) / scan.periodTicks) }

    /// The packets of the loaded GOP showing before frame `end`, when they are the first ones in
    /// decode order; nil otherwise.
    private func decodeOrderPrefix(before end: Int) -> [Packet]? {
        let count = gop.prefix { index(of: $0) < end }.count
        guard count > 0, !gop.dropFirst(count).contains(where: { index(of: $0) < end }) else { return nil }
        return Array(gop.prefix(count))
    }

    /// Makes `gop` hold GOP `g`'s packets (GOPs are visited in order).
    private func load(_ g: Int) throws {
        if gopIndex == g { return }
        while gopsRead <= g {
            guard let next = try gops.next() else { throw MediaError.unsupported("content ended before GOP \(g)") }
            gop = next
            gopIndex = gopsRead
            gopsRead += 1
        }
        guard gopIndex == g else { throw MediaError.unsupported("smart rendering: GOP \(g) was already used") }
    }

    /// Decodes the current GOP and hands over its frames whose index is in `range`, in order, as
    /// the decoder produces them (`SplitGOP`, the splice every splicer shares).
    private func decode(range: Range<Int>, _ body: (Int, Frame) throws -> Void) throws {
        try SplitGOP.decode(gop, demuxer: gops.demuxer, streamIndex: scan.videoIndex, threads: threads, count: range.count,
                            rank: SplitGOP.rank(keeping: range, originTicks: scan.originTicks, periodTicks: scan.periodTicks)) { k, frame in
            try body(range.lowerBound + k, frame)
        }
    }
}
