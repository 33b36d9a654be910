import Foundation
import Media
import Threads
import Timing

/// Where spliced output goes: video frames at consecutive output indices, and audio appended
/// sample by sample. Implementations encode and mux (`EncodedOutput`) or collect (tests).
public protocol FrameSink: AnyObject {
    /// Writes output video frame number `index` (its pts is `index` frame durations).
    /// `keyframe` is true for the first frame of each segment (a splice point).
    func writeVideo(_ frame: Frame, index: Int64, keyframe: Bool) throws
    /// Appends `count` samples per channel (planar float) to the output audio.
    func writeAudio(_ channels: [[Float]], count: Int) throws
}

/// The container a stitch is written as.
public enum OutputContainer: String, Sendable, CaseIterable {
    /// H.264 (libx264) + AAC in MP4 with the index at the front and chapters.
    case mp4
    /// Raw yuv420p video only, YUV4MPEG2: a frame stream for tools that read y4m.
    case y4m
    /// Raw yuv420p video + 16-bit PCM audio in NUT: a frame stream `ffplay -` plays.
    case nut
    /// An HLS package in a folder: MPEG-TS segments (H.264 + AAC) and a VOD playlist with ad markers.
    case hls
}

/// Encoder settings for MP4 output.
public struct EncoderSettings: Sendable, Equatable {
    /// libx264 preset, e.g. `veryfast` or `medium`.
    public var preset: String
    /// libx264 constant rate factor (0–51, lower is better).
    public var crf: Int
    /// AAC bit rate in bits per second.
    public var audioBitRate: Int
    /// Frames between keyframes inside a run (no scene-cut keyframes); nil: libx264 decides.
    public var keyframeInterval: Int? = nil
    /// The video bit rate kept to (a streaming ladder's rung); nil: constant quality (`crf`).
    public var bitRate: BitRate? = nil
    /// The H.264 profile (`baseline`, `main`, `high`) the video keeps to, as a variant's CODECS
    /// promises; nil: libx264 chooses (`high`).
    public var profile: String? = nil
    /// The H.264 level (`3.1`) the video keeps to; nil: libx264 derives it from the stream.
    public var level: String? = nil
    /// Consecutive B-frames at most (0: none, decode order is presentation order); nil: libx264's default.
    public var bFrames: Int? = nil
    /// Threads of each encoder (libx264 or libx265, and the smart renderer's AAC workers); 0
    /// (the default): the encoder decides from the CPUs it may use. libx264's output depends on
    /// its thread count, so a fixed count gives the same bytes on any machine; 1 suits a service
    /// running many stitches at once, each on one core.
    public var threads = 0

    /// A video bit rate: the average, the peak the encoder's buffer model allows, the buffer, bits.
    public struct BitRate: Sendable, Equatable {
        /// Average bits per second (`b`).
        public var average: Int
        /// Peak bits per second (`maxrate`).
        public var peak: Int
        /// VBV buffer in bits (`bufsize`).
        public var buffer: Int

        /// A bit rate.
        public init(average: Int, peak: Int, buffer: Int) { self.average = average; self.peak = peak; self.buffer = buffer }
    }

    /// libx264's options for these settings (MP4 and HLS output): the preset, the rate (CRF or
    /// bit rate), the profile and level, `x264-params` for the keyframe interval, B-frames and the
    /// lookahead's buffer, and the threads.
    func x264Options() -> [String: String] {
        var options = ["preset": preset]
        if let b = bitRate {
            options["b"] = String(b.average); options["maxrate"] = String(b.peak); options["bufsize"] = String(b.buffer)
        } else {
            options["crf"] = String(crf)
        }
        var params: [String] = []
        if let n = keyframeInterval { params += ["keyint=\(n)", "scenecut=0"] }
        if let n = bFrames { params.append("bframes=\(n)") }
        params.append("sync-lookahead=\(EncoderSettings.lookaheadBuffer)")
        options["x264-params"] = params.joined(separator: ":")
        if let profile { options["profile"] = profile }
        if let level { options["level"] = level }
        addThreads(to: &options)
        return options
    }

    /// Frames libx264's lookahead thread may have decided ahead of its frame threads
    /// (`sync-lookahead`; libx264's own choice is B-frames + 1, 4 at `veryfast`). Its lookahead
    /// is one thread, the busiest of libx264's (about 30% of the stitch's CPU time at 720p); on two
    /// cores it is often descheduled, and with 4 frames in hand the frame threads then wait: 5–8%
    /// of both cores idle through the bench's 720p stitch, 2.5–3% with 8. The bytes are the same
    /// for any value (frame types are decided over the same window whatever the buffer holds,
    /// and the value is not among the options written into the stream; `LookaheadBufferTests`).
    /// Each frame more holds a picture and its half-resolution planes: peak RSS +13 MB at 720p,
    /// +41 MB at 1080p against libx264's 4. Without frame threads libx264 ignores it.
    static let lookaheadBuffer = 8

    /// The generic FFmpeg `threads` option for an encoder's options: nothing when `threads` is 0,
    /// so that the default leaves the options (and the transcode cache's key) as they were.
    func addThreads(to options: inout [String: String]) {
        if threads > 0 { options["threads"] = String(threads) }
    }

    /// Defaults: `veryfast`, CRF 23, 128 kb/s AAC.
    public init(preset: String = "veryfast", crf: Int = 23, audioBitRate: Int = 128_000) {
        self.preset = preset
        self.crf = crf
        self.audioBitRate = audioBitRate
    }
}

/// Encodes and muxes the spliced stream: libx264 + AAC into MP4, or raw video (+ PCM) into a
/// frame stream. Audio is buffered only up to one encoder frame.
///
/// Encoding runs on its own thread, fed through a short bounded queue (`EncodeQueue`), so that
/// decoding and conforming the next frames overlaps encoding the previous ones; the audio encoder
/// runs on a thread of its own (`AudioEncodeThread`), whose packets the encoding thread muxes
/// where it used to encode them. The video encoder and the muxer are the encoding thread's alone
/// (`EncodeWorker`: a `LoopBound` of it), the audio encoder the audio thread's; the frame loop only
/// enqueues.
public final class EncodedOutput: FrameSink {
    private let hasAudio: Bool
    private let format: OutputFormat
    private var framer: AudioFramer
    /// Seconds spent inside the encoders, both threads together (for the stage timings).
    public var encodeSeconds: Double { worker.busySeconds - worker.muxSeconds + (audioThread?.busySeconds ?? 0) }
    /// Seconds the encoding thread spent in the muxer (writing packets, the trailer, faststart).
    public var muxSeconds: Double { worker.muxSeconds }
    /// Seconds the frame loop waited for the encoder to catch up.
    public var waitSeconds: Double { queue.producerWaitSeconds }
    private let queue = EncodeQueue(capacity: 4)   // a few frames: overlap without holding much memory
    private let worker: EncodeWorker
    private let audioThread: AudioEncodeThread?
    private var finished = false

    /// Opens `url` (a path, or `pipe:1` for stdout) for `container`.
    public init(url: String, container: OutputContainer, format: OutputFormat, settings: EncoderSettings) throws {
        self.format = format
        let muxerName: String
        switch container {
        case .mp4, .hls: muxerName = "mp4"   // HLS: packaged from the MP4 when it is finished
        case .y4m: muxerName = "yuv4mpegpipe"
        case .nut: muxerName = "nut"
        }
        let muxer = try Muxer(url: url, formatName: muxerName)
        let global = muxer.wantsGlobalHeader
        let video: Encoder, audio: Encoder?
        switch container {
        case .mp4, .hls:
            video = try Encoder(video: "libx264", width: format.width, height: format.height, frameRate: format.frameRate,
                                options: settings.x264Options(), globalHeader: global)
            audio = try Encoder(audio: "aac", sampleRate: format.sampleRate, channels: format.channels,
                                bitRate: settings.audioBitRate, globalHeader: global)
        case .y4m:
            // The yuv4mpegpipe muxer of FFmpeg 5.1 takes wrapped frames, not rawvideo packets.
            video = try Encoder(video: "wrapped_avframe", width: format.width, height: format.height, frameRate: format.frameRate,
                                options: [:], globalHeader: global)
            audio = nil
        case .nut:
            video = try Encoder(video: "rawvideo", width: format.width, height: format.height, frameRate: format.frameRate,
                                options: [:], globalHeader: global)
            audio = try Encoder(audio: "pcm_s16le", sampleRate: format.sampleRate, channels: format.channels,
                                bitRate: 0, globalHeader: global)
        }
        let videoStream = try muxer.addStream(for: video)
        let audioStream = try audio.map { try muxer.addStream(for: $0) } ?? -1
        hasAudio = audio != nil
        supportsChapters = container == .mp4
        // NUT's index keeps a syncpoint and an index entry per keyframe (every raw frame) in memory
        // until the trailer: about 10 MB an hour at 25 fps. A file keeps it (readers seek and find
        // the duration with it); a pipe, whose reader can never go back to it, has none, so a
        // stream of any length runs in bounded memory.
        var options: [String: String] = [:]
        if container == .mp4 { options["movflags"] = "+faststart" }
        if container == .nut, url.hasPrefix("pipe:") { options["write_index"] = "0" }
        try muxer.writeHeader(options: options)
        let packet = try Packet()
        framer = AudioFramer(channels: format.channels, sampleRate: format.sampleRate, frameSize: audio?.frameSize ?? 0,
                             interleavedS16: audio?.wantsInterleavedS16 ?? false)
        // about two seconds of AAC frames ahead of the muxer: a few hundred kilobytes
        audioThread = try audio.map { try AudioEncodeThread(encoder: $0, capacity: 96) }
        worker = EncodeWorker(muxer: muxer, video: video, audio: audioThread, videoStream: videoStream,
                              audioStream: audioStream, packet: packet, queue: queue)
        worker.start()
    }

    deinit {
        if !finished {
            queue.cancel()
            _ = queue.waitDone()
        }
        audioThread?.stop()
    }

    private let supportsChapters: Bool
    private var chapters: [(title: String, start: MediaTime, end: MediaTime)] = []

    /// Adds a chapter (MP4 only; others ignore it). They are written with the trailer, which is
    /// when the MP4 muxer builds its chapter track from chapters added after the header.
    public func addChapter(title: String, start: MediaTime, end: MediaTime) {
        guard supportsChapters, end > start else { return }
        chapters.append((title, start, end))
    }

    /// Queues a copy of `frame` for the encoding thread, its pts `index` frame durations, forced a keyframe when `keyframe`.
    public func writeVideo(_ frame: Frame, index: Int64, keyframe: Bool) throws {
        // The same decoded frame may be shown twice (frame-rate conversion): each write sends its
        // own reference with its own timestamp.
        let f = try frame.clone()
        f.setPTS(index)
        f.forceKeyframe(keyframe)
        try queue.put(.video(f))
    }

    /// Cuts the samples into the audio encoder's frames and queues each full one; ignored when the output has no audio.
    public func writeAudio(_ channels: [[Float]], count: Int) throws {
        guard hasAudio else { return }
        try framer.append(channels, count: count) { try queueAudio($0) }
    }

    /// Flushes the encoders, writes the trailer and closes the output.
    public func finish() throws {
        do {
            if hasAudio {
                try framer.flush { try queueAudio($0) }
                try queueAudio(nil)
            }
            worker.chapters = chapters
            try queue.put(.finish)
        } catch {
            // the encoder failed earlier (a full disk, say): stop its thread and say why
            finished = true
            queue.cancel()
            _ = queue.waitDone()
            audioThread?.stop()
            throw error
        }
        finished = true
        let error = queue.waitDone()
        audioThread?.stop()
        if let error { throw error }
    }

    /// Hands `frame` (nil: the flush) to the audio thread and marks its place among the video frames.
    private func queueAudio(_ frame: Frame?) throws {
        try audioThread?.submit(frame)
        try queue.put(.audio)
    }
}

/// The encoding thread: takes frames from the queue, encodes, muxes, and at `.finish` flushes and
/// writes the trailer with the chapters.
final class EncodeWorker: @unchecked Sendable {
    // @unchecked Sendable: the video encoder and the muxer are a `LoopBound` of the encoding thread
    // (set up before it starts); the audio thread is Sendable; `chapters` is set before `.finish`
    // is queued, which orders it before the thread reads it; `busySeconds` is read after `waitDone()`.
    /// What the encoding thread alone touches once it runs.
    private struct Coding {
        let muxer: Muxer
        let video: Encoder
        let audio: AudioEncodeThread?
        let videoStream: Int
        let audioStream: Int
        let packet: Packet
    }
    private let owner = ThreadOwner(name: "the encoding thread")
    private let coding: LoopBound<Coding>
    private let queue: EncodeQueue
    var chapters: [(title: String, start: MediaTime, end: MediaTime)] = []
    private(set) var busySeconds: Double = 0
    private(set) var muxSeconds: Double = 0

    init(muxer: Muxer, video: Encoder, audio: AudioEncodeThread?, videoStream: Int, audioStream: Int, packet: Packet, queue: EncodeQueue) {
        coding = LoopBound(Coding(muxer: muxer, video: video, audio: audio, videoStream: videoStream, audioStream: audioStream, packet: packet),
                           owner: owner, name: "the encoders and the muxer")
        self.queue = queue
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "interlude-encoder"
        thread.start()
    }

    private func run() {
        owner.bind()
        let c = coding.value
        let (muxer, video, audio, videoStream, audioStream) = (c.muxer, c.video, c.audio, c.videoStream, c.audioStream)
        var failed = false
        loop: while true {
            let item = queue.take()
            var t0 = monotonicSeconds()
            do {
                switch item {
                case .video(let f):
                    if failed { continue loop }
                    try video.send(f)
                    try drain(video, stream: videoStream)
                case .audio:
                    if failed { continue loop }
                    if let audio {
                        let packets = try audio.collect()
                        t0 = monotonicSeconds()   // waiting for the audio thread is not this thread's work
                        try mux(packets, stream: audioStream)
                    }
                case .finish:
                    if !failed {
                        try video.send(nil)
                        try drain(video, stream: videoStream)
                        let m0 = monotonicSeconds()
                        for (i, c) in chapters.enumerated() {
                            try muxer.addChapter(id: i + 1, title: c.title, start: c.start, end: c.end)
                        }
                        try muxer.finish()
                        muxSeconds += monotonicSeconds() - m0
                    }
                    busySeconds += monotonicSeconds() - t0
                    break loop
                case .cancel:
                    break loop
                }
            } catch {
                failed = true
                queue.fail(error)
                audio?.abandon(because: error)   // a producer waiting to submit audio hears it too
            }
            busySeconds += monotonicSeconds() - t0
        }
        owner.release()   // before the producer hears the end
        queue.markDone()
    }

    private func mux(_ packets: [Packet], stream: Int) throws {
        let muxer = coding.value.muxer
        let m0 = monotonicSeconds()
        for p in packets { try muxer.write(p, stream: stream) }
        muxSeconds += monotonicSeconds() - m0
    }

    private func drain(_ encoder: Encoder, stream: Int) throws {
        let c = coding.value, packet = c.packet, muxer = c.muxer
        while try encoder.receive(into: packet) == .produced {
            let m0 = monotonicSeconds()
            try muxer.write(packet, stream: stream)
            muxSeconds += monotonicSeconds() - m0
        }
    }
}
