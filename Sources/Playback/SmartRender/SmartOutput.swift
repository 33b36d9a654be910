import Foundation
import Media
import Threads
import Timing

/// The output of a smart-rendered stitch: content packets copied as they are, and everything
/// else (ads, and the content frames of GOPs a cue splits) encoded by libx264 (H.264 content) or
/// libx265 (HEVC content) to the content's profile, level, size and colour, into one video track
/// of an MP4, plus AAC audio.
///
/// HEVC parameter sets: see `HVCConfig` (the content's `hvcC`, sets in band before every encoded
/// IDR and before every copied keyframe, an `hev1` track).
///
/// H.264 parameter sets: libx264 is told to number its SPS/PPS 1 (`sps-id=1`); the content's are 0.
/// The track's one `avcC` sample entry lists both, so every packet finds its parameter sets
/// there and no packet needs in-band ones (a plain `avc1` track; FFmpeg 5.1's mov muxer has no
/// way to write a second sample entry, and `avc3` would need in-band sets in copied packets).
/// MPEG-TS segments get all four sets before each IDR from `h264_mp4toannexb`.
///
/// libx264's packets are rewritten from Annex B to 4-byte NAL lengths before muxing.
///
/// Each run of encoded frames is one encoder from its first frame (an IDR) to its flush before
/// the next copied packet, so every run is a closed GOP. Decode timestamps are rewritten as
/// `(packets written − D)` frames, D the largest B-frame delay of content and encoder: strictly
/// increasing, never after presentation.
///
/// Audio is AAC-encoded in chunks on worker threads (`ChunkedAudioEncoder`); its packets are
/// muxed here, on the frame loop's thread, as they come back. Where a content run's own AAC
/// packets fit the track (`AudioCopyPlan`, `ContentAudioCopy`), they are copied instead and only
/// the packets around each join are encoded.
final class SmartOutput: StitchOutput, PacketOutput {
    private let muxer: Muxer
    private let format: OutputFormat
    private let settings: EncoderSettings
    private let scan: SmartContentScan
    private let encoderOptions: [String: String]
    private let encoderHeader: [UInt8]
    /// The track's decoder configuration: for H.264 an `avcC` with the content's parameter sets
    /// and the encoder's, for HEVC the content's `hvcC`.
    let trackConfig: [UInt8]
    /// The codec copied and encoded.
    let codec: SmartCodec
    /// HEVC: the encoder's VPS/SPS/PPS, put before each encoded IDR that lacks them.
    private var encoderSets: [[UInt8]] = []
    /// Everything that decides how an ad is encoded here: the transcode cache's profile key.
    let profileKey: String
    /// Sees every encoded packet (4-byte NAL lengths) and its output frame index before it is muxed.
    var recorder: ((Packet, Int64) -> Void)?
    private let videoStream: Int
    private let audioStream: Int
    private let audioEncoder: ChunkedAudioEncoder
    private var finished = false
    private let packet: Packet
    private var encoder: Encoder?
    private var written: Int64 = 0
    private let delay: Int64
    private var framer: AudioFramer
    /// The audio track's AudioSpecificConfig (the AAC encoder's).
    let audioConfig: [UInt8]
    /// Audio packets copied (from the content, or from the transcode cache) instead of encoded.
    var copiedAudioPackets: Int { audioEncoder.copiedPackets }
    /// What decides how audio is encoded here: encoder, rate, channels, bit rate, AudioSpecificConfig.
    let audioProfile: String
    /// The runs of the audio, recorded for and reused from the transcode cache (nil: no cache).
    private var runReuse: AudioRunReuse?
    /// Samples written so far.
    private var samplesIn: Int64 = 0
    /// Audio packets taken from the transcode cache instead of encoded.
    var reusedAudioPackets: Int { runReuse?.reused ?? 0 }
    private var chapters: [(title: String, start: MediaTime, end: MediaTime)] = []
    private let supportsChapters: Bool
    private var videoEncodeSeconds: Double = 0
    /// Seconds spent encoding: video on the frame loop's thread, audio on its own (they overlap).
    var encodeSeconds: Double { videoEncodeSeconds + audioEncoder.busySeconds }
    private(set) var muxSeconds: Double = 0
    /// Seconds the frame loop waited for the audio encoder.
    var waitSeconds: Double { audioEncoder.waitSeconds }
    /// Content frames copied and frames encoded (content and ads).
    private(set) var copiedFrames = 0
    private(set) var encodedFrames = 0

    init(url: String, container: OutputContainer, content: Demuxer, scan: SmartContentScan,
         format: OutputFormat, settings: EncoderSettings, owner: ThreadOwner) throws {
        self.format = format
        self.settings = settings
        self.scan = scan
        codec = scan.codec
        let p = scan.parameters
        var options = ["preset": settings.preset, "crf": String(settings.crf), "profile": scan.encoderProfile,
                       "color_range": String(p.colorRange), "color_primaries": String(p.colorPrimaries),
                       "color_trc": String(p.colorTransfer), "colorspace": String(p.colorSpace)]
        switch scan.codec {
        case .h264:
            var params = "sps-id=\(SplitGOP.parameterSetID)"
            if let n = settings.keyframeInterval { params += ":keyint=\(n):scenecut=0" }
            options["level"] = scan.encoderLevel
            options["x264-params"] = params
        case .hevc(let config):
            // closed GOPs (IDR, no CRA), the content's level and tier; every run starts on an IDR
            var params = "level-idc=\(scan.encoderLevel):high-tier=\(config.highTier ? 1 : 0):open-gop=0:repeat-headers=1:log-level=error"
            if let n = settings.keyframeInterval { params += ":keyint=\(n):min-keyint=\(n):scenecut=0" }
            // libx265 keeps its own thread pool: FFmpeg's thread count does not reach it
            if settings.threads > 0 { params += ":pools=\(settings.threads):frame-threads=\(min(settings.threads, 16))" }
            options["x265-params"] = params
            options["forced-idr"] = "1"   // a keyframe forced at a splice is an IDR, not an I picture
        }
        settings.addThreads(to: &options)
        encoderOptions = options
        muxer = try Muxer(url: url, formatName: "mp4")
        // An encoder opened only for its header: the parameter sets every later one must repeat.
        let probe = try SmartOutput.makeEncoder(scan.codec, format: format, options: encoderOptions)
        encoderHeader = probe.extradata
        let units = NALUnits.split(annexB: encoderHeader)
        switch scan.codec {
        case .h264(let content):
            let sps = units.filter { $0.first.map { $0 & 0x1F } == 7 }, pps = units.filter { $0.first.map { $0 & 0x1F } == 8 }
            guard sps.count == 1, pps.count == 1,
                  AVCConfig.parameterSetID(sps[0]) == SplitGOP.parameterSetID,
                  AVCConfig.parameterSetID(pps[0]) == SplitGOP.parameterSetID else {
                throw MediaError.unsupported("libx264 did not number its parameter sets \(SplitGOP.parameterSetID)")
            }
            trackConfig = content.adding(sps: sps, pps: pps).bytes
        case .hevc(let content):
            encoderSets = units.filter(HVCConfig.isParameterSet)
            guard encoderSets.map({ HVCConfig.nalType($0) }) == [32, 33, 34] else {
                throw MediaError.unsupported("libx265's header is not one VPS, SPS and PPS")
            }
            trackConfig = content.bytes
        }
        profileKey = "interlude-ad-transcode-v1 \(scan.codec.encoderName) \(format) "
            + encoderOptions.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            + " header=" + encoderHeader.map { String(format: "%02x", $0) }.joined()
        videoStream = try muxer.addStream(copying: scan.videoIndex, of: content, extradata: trackConfig,
                                          timeBase: Rational(format.frameRate.denominator, format.frameRate.numerator))
        delay = Int64(max(scan.reorderDelay, probe.reorderDelay))
        let audio = try Encoder(audio: "aac", sampleRate: format.sampleRate, channels: format.channels,
                                bitRate: settings.audioBitRate, globalHeader: true)
        audioStream = try muxer.addStream(for: audio)
        audioConfig = audio.extradata
        audioProfile = "ffmpeg-aac rate=\(format.sampleRate) channels=\(format.channels) bitrate=\(settings.audioBitRate) asc="
            + audio.extradata.map { String(format: "%02x", $0) }.joined()
        supportsChapters = container == .mp4
        try muxer.writeHeader(options: container == .mp4 ? ["movflags": "+faststart"] : [:])
        packet = try Packet()
        framer = AudioFramer(channels: format.channels, sampleRate: format.sampleRate, frameSize: audio.frameSize,
                             interleavedS16: false)
        let (rate, channels, bitRate) = (format.sampleRate, format.channels, settings.audioBitRate)
        audioEncoder = ChunkedAudioEncoder(frameSize: framer.frameSize, workers: ChunkedAudioEncoder.workers(threads: settings.threads),
                                           owner: owner) {
            try Encoder(audio: "aac", sampleRate: rate, channels: channels, bitRate: bitRate, globalHeader: true)
        }
    }

    deinit { if !finished { audioEncoder.cancel() } }

    static func makeEncoder(_ codec: SmartCodec, format: OutputFormat, options: [String: String]) throws -> Encoder {
        try Encoder(video: codec.encoderName, width: format.width, height: format.height, frameRate: format.frameRate,
                    options: options, globalHeader: true)
    }

    /// A stitch's file keeps every frame.
    var isLive: Bool { false }

    func addChapter(title: String, start: MediaTime, end: MediaTime) {
        guard supportsChapters, end > start else { return }
        chapters.append((title, start, end))
    }

    /// Encodes output frame `index` (a run of encoded frames starts with an IDR).
    func writeVideo(_ frame: Frame, index: Int64, keyframe: Bool) throws {
        let t0 = monotonicSeconds()
        if encoder == nil {
            let e = try SmartOutput.makeEncoder(codec, format: format, options: encoderOptions)
            guard e.extradata == encoderHeader else { throw MediaError.unsupported("\(codec.encoderName) changed its parameter sets between runs") }
            encoder = e
        }
        let f = try frame.clone()
        f.setPTS(index)
        f.forceKeyframe(keyframe)
        try encoder!.send(f)
        encodedFrames += 1
        videoEncodeSeconds += monotonicSeconds() - t0
        try drainVideo()
    }

    /// Copies a content packet as output frame `index` (its payload is given to the muxer).
    func writeCopied(_ p: Packet, index: Int64) throws {
        try closeEncoder()
        if case .hevc(let content) = codec, p.isKeyframe {
            // every copied keyframe carries the content's own sets in band, so that a decoder
            // that seeks to it decodes it whatever sets it last saw (the encoder's, from an ad
            // or a split GOP anywhere in the file). A packet that carries sets in band, as a
            // cached ad's IDR, brings its own.
            let units = NALUnits.split(lengthPrefixed: p.bytes, lengthSize: 4) ?? []
            if !units.contains(where: { HVCConfig.nalType($0) == 32 }) {
                try p.replacePayload(with: NALUnits.lengthPrefixed(content.parameterSets + units))
            }
        }
        try writeVideoPacket(p, pts: index)
        copiedFrames += 1
    }

    private func writeVideoPacket(_ p: Packet, pts: Int64) throws {
        let dts = written - delay
        guard dts <= pts else { throw MediaError.unsupported("smart rendering: decode time \(dts) after presentation \(pts)") }
        p.setTimestamps(pts: pts, dts: dts)
        p.setDuration(1)
        written += 1
        let m0 = monotonicSeconds()
        try muxer.write(p, stream: videoStream)
        muxSeconds += monotonicSeconds() - m0
    }

    private func drainVideo() throws {
        guard let encoder else { return }
        while try encoder.receive(into: packet) == .produced {
            guard let pts = packet.ptsTicks else { throw MediaError.unsupported("libx264 gave a packet without a timestamp") }
            // libx264/libx265 write Annex B; the track's avcC/hvcC sample entry means 4-byte NAL
            // lengths (the mov muxer converts only when the global header is Annex B too, which ours is not).
            var units = NALUnits.split(annexB: packet.bytes)
            if case .hevc = codec, packet.isKeyframe {
                // an encoded IDR carries the encoder's sets (repeat-headers; added when missing)
                if !units.contains(where: { HVCConfig.nalType($0) == 32 }) { units = encoderSets + units }
            }
            try packet.replacePayload(with: NALUnits.lengthPrefixed(units))
            recorder?(packet, pts)
            try writeVideoPacket(packet, pts: pts)
        }
    }

    /// Ends the current encoded run (the next encoded frame starts a new one, with an IDR).
    func endRun() throws { try closeEncoder() }

    /// Ends the current encoded run: flushes the encoder and writes what it held.
    private func closeEncoder() throws {
        guard let e = encoder else { return }
        let t0 = monotonicSeconds()
        try e.send(nil)
        videoEncodeSeconds += monotonicSeconds() - t0
        try drainVideo()
        encoder = nil
    }

    func writeAudio(_ channels: [[Float]], count: Int) throws {
        try framer.append(channels, count: count) { try encodeAudio($0) }
        samplesIn += Int64(count)
        if let runReuse {
            try runReuse.pump(presented: samplesIn)
            try writeAudioPackets(try audioEncoder.takePackets())
        }
    }

    /// Keeps the AAC packets encoded from now on in the transcode cache (`AudioRunCache`, in its
    /// folder `cache`), and copies from it the packets of runs encoded before.
    func keepAudioRuns(in cache: AdTranscodeCache) {
        guard runReuse == nil, samplesIn == 0 else { return }
        runReuse = AudioRunReuse(cache: AudioRunCache(store: cache), encoder: audioEncoder, profile: audioProfile,
                                 frameSize: framer.frameSize)
    }

    /// The audio from stream sample `start` on is `identity`'s samples (nil: samples not to be
    /// cached) at stream sample = source sample + `shift`.
    func audioSource(identity: String?, shift: Int64, from start: Int64) throws {
        try runReuse?.begin(identity: identity, shift: shift, at: start)
        try writeAudioPackets(try audioEncoder.takePackets())
    }

    /// Reserves the audio packets from stream sample `start` on (`count` of them, `start` on the
    /// track's packet grid) for packets copied from a source whose AudioSpecificConfig is
    /// `config`; false when they cannot be (another format, off the grid, already encoded).
    func reserveCopiedAudio(start: Int64, count: Int, config: [UInt8]) -> Bool {
        let size = Int64(framer.frameSize)
        guard count > 0, start % size == 0, AACConfig.copyable(source: config, output: audioConfig) else { return false }
        let u = Int(start / size)
        return audioEncoder.reserveCopy(u..<(u + count))
    }

    /// The next copied audio packets of the run reserved from stream sample `start`, in order.
    func writeCopiedAudio(_ packets: [Packet], run start: Int64) throws {
        try audioEncoder.sendCopied(packets, run: Int(start / Int64(framer.frameSize)))
        try writeAudioPackets(try audioEncoder.takePackets())
    }

    /// Ends the run reserved from stream sample `start` after the packets written so far (the rest
    /// is encoded).
    func endCopiedAudio(run start: Int64) throws { try audioEncoder.endCopy(run: Int(start / Int64(framer.frameSize))) }

    private func encodeAudio(_ frame: Frame) throws {
        try audioEncoder.send(frame)
        try writeAudioPackets(try audioEncoder.takePackets())
    }

    private func writeAudioPackets(_ packets: [Packet]) throws {
        guard !packets.isEmpty else { return }
        runReuse?.record(packets)
        let m0 = monotonicSeconds()
        for p in packets { try muxer.write(p, stream: audioStream) }
        muxSeconds += monotonicSeconds() - m0
    }

    func finish() throws {
        finished = true
        do {
            try closeEncoder()
            try runReuse?.close(at: samplesIn)
            try framer.flush { try audioEncoder.send($0) }
            try writeAudioPackets(try audioEncoder.finish())
            try runReuse?.finish(end: samplesIn)
        } catch {
            audioEncoder.cancel()
            throw error
        }
        let m0 = monotonicSeconds()
        for (i, c) in chapters.enumerated() { try muxer.addChapter(id: i + 1, title: c.title, start: c.start, end: c.end) }
        try muxer.finish()
        muxSeconds += monotonicSeconds() - m0
    }
}
