import Foundation
import Media
import Playback
import Timing

/// Packages an MP4 source into the store's HLS ladder: segments cut at the source's keyframes
/// (`HLSPlan`, the stitch's rule, at the store's target duration); the rung of the source's size
/// carries the source's video packets, every other rung is encoded with a keyframe at each of the
/// source's keyframes, so that segment boundaries are the same frames in every variant. Every
/// rung carries the source's audio packets, so audio is identical and in sync across variants.
enum ContentPackager {
    /// Packages `source` (scanned as `scan`) into `folder` (created, empty), whose files will be
    /// found under `storePrefix` ("content/<key>") once it is moved into the store.
    static func package(name: String, source: String, sourceSHA256: String, scan: ContentScan, ladder: [Rendition],
                        segmentTarget: MediaTime, folder: URL, storePrefix: String) throws -> PackagedContent {
        let keyTimes = scan.keyframes.map { scan.period * Int64($0) }
        let plan = HLSPlan.segments(keyframes: keyTimes, duration: scan.duration, breaks: [], target: segmentTarget)
        let bounds = plan.map { Int($0.start.count(of: scan.period)) }
        var rungs: [PackagedRendition] = []
        // an encoded rung (no B-frames) decodes each frame as long before it shows as the copied
        // rung's B-frames do: every variant keeps one pace of decode times, so a player switching
        // variants never sees them run back
        let copiesSource = ladder.contains { $0.width == scan.width && $0.height == scan.height }
        let encodedDelayTicks = copiesSource ? Int64(scan.decodeDelay.count(of: MediaTime(value: 1, timescale: 90_000))) : 0
        for r in ladder {
            let dir = folder.appendingPathComponent(r.name)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let copied = r.width == scan.width && r.height == scan.height
            var videoPath = source, videoRel = "", codecs: String
            if copied {
                let d = try Demuxer(url: source)
                guard let c = AVCAnnexB(avcC: d.videoCodecParameters(of: scan.videoIndex).extradata)?.codecs else {
                    throw StoreError.unsupported("\(source): the H.264 stream has no avcC record")
                }
                codecs = c
            } else {
                videoPath = dir.appendingPathComponent("video.nut").path
                videoRel = "\(storePrefix)/\(r.name)/video.nut"
                codecs = try encodeRung(source: source, scan: scan, rendition: r, to: videoPath)
            }
            var spans: [SegmentSpan] = []
            for (i, start) in bounds.enumerated() {
                let end = i + 1 < bounds.count ? bounds[i + 1] : scan.frameCount
                spans.append(SegmentSpan(startFrame: start, endFrame: end, path: "\(storePrefix)/\(r.name)/seg\(String(format: "%05d", i)).ts"))
            }
            try writeSegments(videoPath: videoPath, audioPath: source, audioIndex: scan.audioIndex, frameRate: scan.frameRate,
                              originFrames: scan.originFrames, spans: spans, folder: folder, storePrefix: storePrefix,
                              decodeDelayTicks: copied ? 0 : encodedDelayTicks)
            if scan.audioIndex != nil { codecs += ",mp4a.40.2" }
            var rung = PackagedRendition(rendition: copied ? Rendition(name: r.name, width: r.width, height: r.height,
                                                                       videoBitrate: scan.videoBitrate, audioBitrate: r.audioBitrate) : r,
                                         codecs: codecs, copied: copied, video: videoRel, segments: spans)
            rung.decodeDelayTicks = spans.first.flatMap { try? Data(contentsOf: folder.appendingPathComponent(String($0.path.dropFirst(storePrefix.count + 1)))) }
                .flatMap(TSTimestamps.videoDecodeDelay)
            rungs.append(rung)
        }
        return PackagedContent(version: PackagedContent.version, name: name, source: source, sourceSHA256: sourceSHA256,
                               frameRateNumerator: scan.frameRate.numerator, frameRateDenominator: scan.frameRate.denominator,
                               frameCount: scan.frameCount, originFrames: scan.originFrames, audioIndex: scan.audioIndex,
                               renditions: rungs, videoStartTime: [scan.videoStart.value, scan.videoStart.timescale])
    }

    /// Writes the TS segments `spans` (store-relative paths under `storePrefix`, written under
    /// `folder`) of video from `videoPath` and audio stream `audioIndex` of `audioPath`, as one
    /// MPEG-TS run (continuity counters and clock carry on from segment to segment).
    /// `decodeDelayTicks` (90 kHz; video without B-frames): each video frame decodes at least this
    /// long before it shows (a rung encoded without B-frames, or slate, at the pace of content with them).
    static func writeSegments(videoPath: String, audioPath: String?, audioIndex: Int?, frameRate: Rational, originFrames: Int?,
                              spans: [SegmentSpan], folder: URL, storePrefix: String, firstRunDiscontinuous: Bool = false,
                              decodeDelayTicks: Int64 = 0) throws {
        let reader = try SegmentPackets(videoPath: videoPath, audioPath: audioPath, audioIndex: audioIndex,
                                        frameRate: frameRate, originFrames: originFrames, decodeDelayTicks: decodeDelayTicks)
        let annexB = AVCAnnexB(avcC: reader.video.videoCodecParameters(of: reader.videoIndex).extradata)
        var sources: [(demuxer: Demuxer, stream: Int)] = [(reader.video, reader.videoIndex)]
        if let a = reader.audio, let ai = reader.audioIndex { sources.append((a, ai)) }
        let writer = TSRunWriter(sources: sources, firstRunDiscontinuous: firstRunDiscontinuous)
        for (i, span) in spans.enumerated() {
            let (video, audio) = try reader.next(endFrame: i + 1 < spans.count ? span.endFrame : nil)
            guard video.first?.frame == span.startFrame else {
                throw StoreError.unsupported("\(videoPath): segment \(i) does not start at keyframe \(span.startFrame)")
            }
            var packets: [(packet: Packet, source: Int)] = []
            for v in video {
                try annexB?.convert(v.packet)
                packets.append((v.packet, 0))
            }
            packets += audio.map { ($0, 1) }
            let path = folder.appendingPathComponent(String(span.path.dropFirst(storePrefix.count + 1))).path
            try writer.writeSegment(path, packets: packets, newRun: i == 0)
        }
        try writer.finish()
    }

    /// Encodes the source's video into `rendition` (a NUT file of Annex B packets), a keyframe at
    /// each of the source's keyframes; returns its CODECS value.
    static func encodeRung(source: String, scan: ContentScan, rendition: Rendition, to path: String) throws -> String {
        let demuxer = try Demuxer(url: source)
        demuxer.keepOnly([scan.videoIndex])
        let decoder = try Decoder(demuxer: demuxer, streamIndex: scan.videoIndex)
        let encoder = try StoreEncoding.videoEncoder(rendition, frameRate: scan.frameRate, splice: false)
        let muxer = try Muxer(url: path, formatName: "nut")
        let stream = try muxer.addStream(for: encoder)
        try muxer.writeHeader()
        let tb = demuxer.timeBase(of: scan.videoIndex)
        let periodTicks = tb.denominator * scan.frameRate.denominator / (tb.numerator * scan.frameRate.numerator)
        let originTicks = Int64(scan.originFrames) * periodTicks
        let keys = Set(scan.keyframes)
        let scaler = FrameScaler()
        let packet = try Packet(), out = try Packet()
        var codecs: String?
        var expected = 0
        func write(_ p: Packet) throws {
            if codecs == nil, p.isKeyframe { codecs = StoreEncoding.codecs(annexB: p.bytes) }
            try muxer.write(p, stream: stream)
        }
        func drain() throws {
            while true {
                let f = try Frame()
                guard try decoder.receive(into: f) == .produced else { return }
                guard let t = f.bestEffortTicks else { continue }
                let index = Int((t - originTicks) / periodTicks)
                guard index == expected else {
                    throw StoreError.unsupported("\(source): decoding gave frame \(index) where \(expected) was due")
                }
                expected += 1
                let scaled = try scaler.scale(f, width: rendition.width, height: rendition.height)
                try StoreEncoding.encode(scaled, index: Int64(scan.originFrames + index), keyframe: keys.contains(index),
                                         with: encoder, packet: out, write)
            }
        }
        while try demuxer.read(into: packet) == .packet {
            guard packet.streamIndex == scan.videoIndex else { continue }
            try decoder.send(packet)
            try drain()
        }
        try decoder.send(nil)
        try drain()
        try StoreEncoding.encode(nil, index: 0, keyframe: false, with: encoder, packet: out, write)
        try muxer.finish()
        guard expected == scan.frameCount else {
            throw StoreError.unsupported("\(source): \(expected) of \(scan.frameCount) frames decoded")
        }
        guard let codecs else { throw StoreError.unsupported("libx264 wrote no SPS for \(rendition.name)") }
        return codecs
    }
}
