import Foundation
import Media
import Playback
import Timing

/// Encodes pictures and sound into one rung's intermediate file (NUT: libx264 Annex B video, AAC
/// audio) and cuts it into TS segments: what an ad rendition and a slate piece are made of.
/// Audio is made exactly as long as the video, in samples (padded with silence or trimmed).
final class RungEncode {
    let rendition: Rendition
    let frameRate: Rational
    /// A keyframe every this many frames (the segment target).
    let keyframeInterval: Int
    private let encoder: Encoder
    private let audioEncoder: Encoder
    private let muxer: Muxer
    private let videoStream: Int
    private let audioStream: Int
    private let packet: Packet
    private(set) var frames = 0
    private var samples: [[Float]] = [[], []]
    let path: String
    /// Frame 0's index and sample 0's index on the output clock (a slate piece starts at its second).
    private let firstFrame: Int64
    private let firstSample: Int64
    /// Whether audio packets before sample 0 (the encoder's priming) are left out, so that pieces
    /// encoded one after another tile the clock.
    private let dropPriming: Bool

    /// A rung encode into `path` at `frameRate`, keyframes every `segmentTarget`, its first frame
    /// and sample at `firstFrame` and `firstSample` on the output clock.
    init(rendition: Rendition, frameRate: Rational, segmentTarget: MediaTime, path: String,
         firstFrame: Int64 = 0, firstSample: Int64 = 0, dropPriming: Bool = false, deterministic: Bool = false,
         bFrames: Bool = true) throws {
        self.rendition = rendition
        self.frameRate = frameRate
        self.path = path
        self.firstFrame = firstFrame
        self.firstSample = firstSample
        self.dropPriming = dropPriming
        keyframeInterval = max(1, Int(segmentTarget.count(of: frameRate.period)))
        encoder = try StoreEncoding.videoEncoder(rendition, frameRate: frameRate, splice: false, bFrames: bFrames, deterministic: deterministic)
        audioEncoder = try Encoder(audio: "aac", sampleRate: StoreEncoding.sampleRate, channels: StoreEncoding.channels,
                                   bitRate: rendition.audioBitrate, globalHeader: true)
        muxer = try Muxer(url: path, formatName: "nut")
        videoStream = try muxer.addStream(for: encoder)
        audioStream = try muxer.addStream(for: audioEncoder)
        try muxer.writeHeader()
        packet = try Packet()
    }

    /// Adds the next frame (yuv420p at the rung's size).
    func addFrame(_ frame: Frame) throws {
        let f = try frame.clone()
        try StoreEncoding.encode(f, index: firstFrame + Int64(frames), keyframe: frames % keyframeInterval == 0, with: encoder, packet: packet) {
            try muxer.write($0, stream: videoStream)
        }
        frames += 1
    }

    /// Adds sound (48 kHz stereo planar float).
    func addSamples(_ channels: [[Float]]) {
        for c in 0..<StoreEncoding.channels { samples[c] += channels[min(c, channels.count - 1)] }
    }

    /// The duration of the frames added.
    var duration: MediaTime { frameRate.period * Int64(frames) }

    /// Ends the encode: the sound padded or trimmed to `audioDuration` (default: the video's) and encoded.
    func finish(audioDuration: MediaTime? = nil) throws {
        try StoreEncoding.encode(nil, index: 0, keyframe: false, with: encoder, packet: packet) { try muxer.write($0, stream: videoStream) }
        let total = Int((audioDuration ?? duration).rescaled(to: Int64(StoreEncoding.sampleRate), rounding: .nearest).value)
        func writeAudio(_ p: Packet) throws {
            if dropPriming, let t = p.ptsTicks, t < firstSample { return }
            try muxer.write(p, stream: audioStream)
        }
        for c in 0..<samples.count {
            if samples[c].count < total { samples[c] += [Float](repeating: 0, count: total - samples[c].count) }
            else { samples[c].removeLast(samples[c].count - total) }
        }
        let size = max(1, audioEncoder.frameSize)
        var at = 0
        while at < total {
            let n = min(size, total - at)
            let f = try Frame.audio(from: samples, offset: at, count: n, sampleRate: StoreEncoding.sampleRate, interleavedS16: false,
                                    pts: firstSample + Int64(at))
            try audioEncoder.send(f)
            while try audioEncoder.receive(into: packet) == .produced { try writeAudio(try packet.take()) }
            at += n
        }
        try audioEncoder.send(nil)
        while try audioEncoder.receive(into: packet) == .produced { try writeAudio(try packet.take()) }
        try muxer.finish()
    }

    /// Cuts the finished encode into TS segments (at its keyframes, `segmentTarget`), written in
    /// `folder` and named under `storePrefix` (`name(i)`: a segment's file name); one MPEG-TS run,
    /// starting a new stream when `discontinuous`. Returns them.
    func segments(segmentTarget: MediaTime, folder: URL, storePrefix: String, discontinuous: Bool = true, decodeDelayTicks: Int64 = 0,
                  name: (Int) -> String = { "seg\(String(format: "%05d", $0)).ts" }) throws -> [StoredSegment] {
        let keys = stride(from: 0, to: frames, by: keyframeInterval).map { frameRate.period * Int64($0) }
        let plan = HLSPlan.segments(keyframes: keys, duration: duration, breaks: [], target: segmentTarget)
        let bounds = plan.map { Int($0.start.count(of: frameRate.period)) }
        var spans: [SegmentSpan] = []
        for (i, start) in bounds.enumerated() {
            let end = i + 1 < bounds.count ? bounds[i + 1] : frames
            spans.append(SegmentSpan(startFrame: start, endFrame: end, path: "\(storePrefix)/\(name(i))"))
        }
        try ContentPackager.writeSegments(videoPath: path, audioPath: path, audioIndex: audioStream, frameRate: frameRate,
                                          originFrames: nil, spans: spans, folder: folder, storePrefix: storePrefix,
                                          firstRunDiscontinuous: discontinuous, decodeDelayTicks: decodeDelayTicks)
        return spans.map { StoredSegment(path: $0.path, duration: frameRate.period * Int64($0.endFrame - $0.startFrame)) }
    }
}
