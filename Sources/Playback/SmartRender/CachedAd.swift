import Media
import Timing

/// An ad from the transcode cache, fed to the loop: its packets are copied GOP by GOP, its audio
/// decoded and spliced as always. When the ad is stopped inside a GOP (skipped), that GOP's frames
/// up to the stop are decoded from the cached packets and encoded again, so the cut stays
/// frame-exact.
final class CachedAd: Feed {
    private let entry: AdTranscodeCache.Entry
    private let audio: AudioTrack
    private let output: SmartOutput
    private let threads: Int
    private(set) var ended = false

    init(_ entry: AdTranscodeCache.Entry, audio: AudioTrack, output: SmartOutput, threads: Int) {
        self.entry = entry
        self.audio = audio
        self.output = output
        self.threads = threads
    }

    var nextContentTime: MediaTime? { nil }

    /// Plays the whole ad (`cue` is not used: an ad plays to its end unless `onFrame` stops it).
    func play(until cue: MediaTime?, on surface: RenderSurface, onFrame: (MediaTime) -> Bool) throws -> SegmentOutcome {
        defer { ended = true }
        let format = surface.format
        let period = format.frameDuration
        let streamStart = surface.streamTime
        let base = surface.presentedFrames
        let sourcePTS = entry.sourcePTS.compactMap(MediaTime.init(pair:))
        guard sourcePTS.count == entry.frames, let sourceEnd = MediaTime(pair: entry.sourceEnd) else {
            throw MediaError.unsupported("damaged transcode cache entry")
        }
        let sourceOffset = format.sampleIndex(at: sourcePTS[0]) - surface.presentedSamples
        // GOPs: runs of packets from one keyframe to the next, in decode order
        var gops: [[AdTranscodeCache.CachedPacket]] = []
        for p in entry.packets {
            if p.key || gops.isEmpty { gops.append([p]) } else { gops[gops.count - 1].append(p) }
        }
        var shown = 0
        var stopped = false
        for gop in gops {
            let indices = gop.map { Int($0.index) }
            guard let lo = indices.min(), let hi = indices.max(), lo == shown, hi - lo + 1 == gop.count else {
                throw MediaError.unsupported("damaged transcode cache entry")
            }
            var stop: Int?
            for i in lo...hi {
                surface.countCopiedFrame()
                try surface.presentAudio(from: audio, offset: sourceOffset)
                shown += 1
                if !onFrame(sourcePTS[i]) { stop = i; break }
            }
            if let stop, stop < hi {
                try reencode(gop, through: stop, from: lo, base: base, format: format)
                stopped = true
                break
            }
            for p in gop {
                let packet = try Packet(bytes: p.bytes)
                packet.setKeyframe(p.key)
                try surface.presentCopied(packet, index: base + p.index)
            }
            if stop != nil { stopped = true; break }
        }
        let last = sourcePTS[shown - 1]
        return SegmentOutcome(sourceStart: sourcePTS[0], sourceEnd: stopped ? last + period : sourceEnd,
                              frames: Int64(shown), streamStart: streamStart, streamEnd: surface.streamTime)
    }

    /// Decodes a cached GOP and encodes its frames `first...stop` again, straight into the
    /// output: the surface has counted them already (a cached ad carries no layer).
    private func reencode(_ gop: [AdTranscodeCache.CachedPacket], through stop: Int, from first: Int, base: Int64,
                          format: OutputFormat) throws {
        let decoder = try Decoder(codec: output.codec.decoderName, extradata: output.trackConfig, width: format.width, height: format.height,
                                  timeBase: Rational(format.frameRate.denominator, format.frameRate.numerator), threads: threads)
        var next = first
        func drain() throws {
            while true {
                let f = try Frame()
                guard try decoder.receive(into: f) == .produced else { return }
                guard let i = f.bestEffortTicks.map(Int.init), i == next, i <= stop else { continue }
                try output.writeVideo(f, index: base + Int64(i), keyframe: i == first)
                next += 1
            }
        }
        for p in gop {
            let packet = try Packet(bytes: p.bytes)
            packet.setKeyframe(p.key)
            packet.setTimestamps(pts: p.index, dts: nil)
            try decoder.send(packet)
            try drain()
        }
        try decoder.send(nil)
        try drain()
        guard next == stop + 1 else { throw MediaError.unsupported("damaged transcode cache entry: frames \(first)…\(next - 1) of \(first)…\(stop)") }
        try output.endRun()
    }
}
