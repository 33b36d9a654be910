import Foundation
import Timing

/// One decoded video frame as the verifier read it.
public struct VerifiedFrame: Sendable, Hashable {
    /// Position in decode output (presentation) order, from 0.
    public var index: Int
    /// Presentation time exactly as the file states it (`pts x time_base`, with `-copyts`: not
    /// shifted to start at 0); nil when the frame had no timestamp.
    public var pts: MediaTime?
    /// Whether the decoder flagged the frame as a key frame.
    public var isKey: Bool
    /// Picture type letter (`I`, `P`, `B`, `?`).
    public var pictureType: Character
    /// The identity read from the band, nil for black filler or an unreadable picture.
    public var identity: FrameIdentity?
    /// The rectangle where the identity was found.
    public var rect: PixelRect?
    /// Whether this frame carries a sync flash.
    public var isFlash: Bool
    /// Whether the frame is entirely black.
    public var isBlack: Bool

    /// `pts` in seconds, for display and tolerant comparisons.
    public var seconds: Double? { pts?.seconds }
}

/// A maximal run of consecutive frames from the same source with non-decreasing frame indices.
public struct IdentitySegment: Sendable, Hashable, CustomStringConvertible {
    /// The source id; nil for a run of frames without identity (black filler or unreadable).
    public var sourceID: Int?
    /// Index (in the verified stream) of the run's first frame.
    public var firstOutputIndex: Int
    /// Number of frames in the run.
    public var frameCount: Int
    /// Source frame index of the first frame (nil for a nil-source run).
    public var firstFrame: Int?
    /// Source frame index of the last frame (nil for a nil-source run).
    public var lastFrame: Int?
    /// Steps where the source frame index grew by more than 1 (source frames skipped).
    public var skips: Int
    /// Steps where the source frame index stayed the same (a frame shown twice).
    public var repeats: Int
    /// Presentation time of the first frame.
    public var startPTS: MediaTime?

    /// e.g. `src 1 frames 0...614 (615 out, 0 skips, 0 repeats) @0.0s`.
    public var description: String {
        let s = startPTS.map { " @\($0.seconds)s" } ?? ""
        guard let sourceID, let firstFrame, let lastFrame else { return "none x\(frameCount)\(s)" }
        return "src \(sourceID) frames \(firstFrame)...\(lastFrame) (\(frameCount) out, \(skips) skips, \(repeats) repeats)\(s)"
    }
}

/// Decoded audio: where the beeps start and how the frames' timestamps line up.
public struct AudioAnalysis: Sendable, Hashable {
    /// Samples per second of the decoded stream.
    public var sampleRate: Int
    /// Channels of the decoded stream.
    public var channels: Int
    /// Samples per channel decoded in all.
    public var sampleCount: Int
    /// Presentation time of the first decoded audio frame in seconds (with `-copyts`).
    public var startTime: Double
    /// Presentation time of the end of the last decoded audio frame in seconds.
    public var endTime: Double
    /// Beep onsets in seconds (timeline of the file): the first sample whose absolute value on any
    /// channel exceeds the threshold after at least the minimum silence (the stream start counts as
    /// silence), placed with the pts of the decoded frame that holds it.
    public var onsets: [Double]
    /// Largest absolute sample value seen.
    public var peak: Float
    /// Places where a decoded frame's pts differs from the previous frame's end by more than one
    /// sample: (time where the frame was expected, actual pts minus expected, in seconds).
    public var discontinuities: [Discontinuity]

    /// Decoded duration: samples / rate.
    public var decodedDuration: Double { Double(sampleCount) / Double(sampleRate) }

    /// A jump in audio timestamps.
    public struct Discontinuity: Sendable, Hashable {
        /// Where the frame was expected, seconds.
        public var expected: Double
        /// Actual minus expected, seconds (positive: a gap; negative: an overlap).
        public var jump: Double
    }
}

/// A demuxed packet as ffprobe lists it.
public struct PacketInfo: Sendable, Hashable {
    /// Presentation time in seconds.
    public var pts: Double?
    /// Decode time in seconds.
    public var dts: Double?
    /// Duration in seconds.
    public var duration: Double?
    /// Size in bytes.
    public var size: Int
    /// Whether the packet is a key frame.
    public var isKey: Bool
}

/// An independent check of media files through the ffmpeg/ffprobe CLI: probing, per-frame identity,
/// sync flashes and beeps, decode errors. Nothing here uses the engine's own FFmpeg bindings.
public enum MediaVerifier {
    /// Decodes the first video stream of `url` to 8-bit grey at its own (display, autorotated) size,
    /// streaming frame by frame, and reads each frame's identity and flash with `reader` (default: a
    /// reader for the stream's size trying the full frame and the fit rectangles of every Media/ clip).
    ///
    /// Timestamps: each frame's pts comes from the `showinfo` filter in the same decode pass, with
    /// `-copyts` (the file's own timeline, edit lists applied) and `-fps_mode passthrough` (no frame
    /// is duplicated or dropped to make the output constant-rate), so gaps and repeats in the file show.
    public static func videoFrames(_ url: URL, reader: IdentityReader? = nil) throws -> [VerifiedFrame] {
        guard let stream = try probe(url).video, let w = stream.displayWidth, let h = stream.displayHeight,
              w > 0, h > 0 else {
            throw VerifierError.malformedOutput("\(url.lastPathComponent) has no video stream")
        }
        let reader = reader ?? IdentityReader(output: PixelSize(width: w, height: h))
        var readings: [FrameReading] = []
        let args = ["-nostdin", "-hide_banner", "-nostats", "-v", "info", "-copyts", "-i", url.path,
                    "-map", "0:v:0", "-vf", "showinfo", "-fps_mode", "passthrough",
                    "-f", "rawvideo", "-pix_fmt", "gray", "-"]
        let exe = try Tools.ffmpegPath()
        let (status, stderr) = try Tools.stream(exe, args, chunking: .exact(w * h)) { frame in
            readings.append(reader.read(frame, width: w, height: h))
        }
        if status != 0 {
            throw VerifierError.toolFailed(command: Tools.commandLine(exe, args), status: status, stderr: stderr)
        }
        let infos = try parseShowinfo(stderr, audio: false)
        guard infos.frames.count == readings.count else {
            throw VerifierError.malformedOutput("showinfo listed \(infos.frames.count) frames, \(readings.count) decoded")
        }
        if let size = infos.frames.first?.size, size != "\(w)x\(h)" {
            throw VerifierError.malformedOutput("decoded frames are \(size), expected \(w)x\(h)")
        }
        return zip(infos.frames, readings).enumerated().map { i, pair in
            let (info, reading) = pair
            let pts = info.pts.map { MediaTime(value: $0 * infos.timeBase.numerator, timescale: infos.timeBase.denominator).reduced }
            return VerifiedFrame(index: i, pts: pts, isKey: info.isKey, pictureType: info.type,
                                 identity: reading.identity, rect: reading.rect, isFlash: reading.isFlash,
                                 isBlack: reading.isBlack)
        }
    }

    /// Groups frames into runs of one source with non-decreasing frame index (see `IdentitySegment`).
    public static func segments(_ frames: [VerifiedFrame]) -> [IdentitySegment] {
        var out: [IdentitySegment] = []
        for f in frames {
            let src = f.identity?.sourceID, idx = f.identity?.frameIndex
            if var last = out.last, last.sourceID == src, src == nil || (idx ?? 0) >= (last.lastFrame ?? 0) {
                if let idx, let prev = last.lastFrame {
                    if idx == prev { last.repeats += 1 } else if idx > prev + 1 { last.skips += 1 }
                    last.lastFrame = idx
                }
                last.frameCount += 1
                out[out.count - 1] = last
            } else {
                out.append(IdentitySegment(sourceID: src, firstOutputIndex: f.index, frameCount: 1, firstFrame: idx,
                                           lastFrame: idx, skips: 0, repeats: 0, startPTS: f.pts))
            }
        }
        return out
    }

    /// Presentation times (seconds) of the flash frames among `frames`.
    public static func flashTimes(_ frames: [VerifiedFrame]) -> [Double] {
        frames.filter(\.isFlash).compactMap(\.seconds)
    }

    /// Decodes the first audio stream of `url` as 32-bit float at its own rate and channel count and
    /// finds the beep onsets (see `AudioAnalysis.onsets`). `threshold` is an absolute sample value
    /// (the beeps peak at 0.5); `minimumSilence` is in seconds.
    public static func analyzeAudio(_ url: URL, threshold: Float = 0.1, minimumSilence: Double = 0.1) throws -> AudioAnalysis {
        guard let stream = try probe(url).audio, let channels = stream.channels, channels > 0 else {
            throw VerifierError.malformedOutput("\(url.lastPathComponent) has no audio stream")
        }
        let args = ["-nostdin", "-hide_banner", "-nostats", "-v", "info", "-copyts", "-i", url.path,
                    "-map", "0:a:0", "-af", "ashowinfo", "-f", "f32le", "-c:a", "pcm_f32le", "-"]
        let exe = try Tools.ffmpegPath()
        var onsetSamples: [Int] = []
        var sampleIndex = 0
        var peak: Float = 0
        var rate = stream.sampleRate ?? 0
        let minSilent = Int(minimumSilence * Double(max(rate, 1)))
        var silentRun = Int.max / 2  // the stream start counts as silence
        let (status, stderr) = try Tools.stream(exe, args, chunking: .aligned(4 * channels)) { chunk in
            UnsafeRawBufferPointer(chunk).withMemoryRebound(to: Float.self) { floats in
                for s in 0..<(floats.count / channels) {
                    var loud: Float = 0
                    for c in 0..<channels { loud = max(loud, abs(floats[s * channels + c])) }
                    peak = max(peak, loud)
                    if loud > threshold {
                        if silentRun >= minSilent { onsetSamples.append(sampleIndex) }
                        silentRun = 0
                    } else {
                        silentRun += 1
                    }
                    sampleIndex += 1
                }
            }
        }
        if status != 0 {
            throw VerifierError.toolFailed(command: Tools.commandLine(exe, args), status: status, stderr: stderr)
        }
        let info = try parseShowinfo(stderr, audio: true)
        if let r = info.frames.first?.rate, r > 0 { rate = r }
        // Map sample indices to time with each decoded frame's pts.
        var starts: [Int] = [], times: [Double] = [], discontinuities: [AudioAnalysis.Discontinuity] = []
        var cum = 0
        var expected: Double? = nil
        for f in info.frames {
            let t = f.pts.map { Double($0) * infoSeconds(info.timeBase) } ?? (expected ?? 0)
            if let e = expected, abs(t - e) > 1.0 / Double(max(rate, 1)) {
                discontinuities.append(.init(expected: e, jump: t - e))
            }
            starts.append(cum); times.append(t)
            cum += f.samples
            expected = t + Double(f.samples) / Double(max(rate, 1))
        }
        func time(ofSample s: Int) -> Double {
            guard !starts.isEmpty else { return Double(s) / Double(max(rate, 1)) }
            var lo = 0, hi = starts.count - 1
            while lo < hi { let mid = (lo + hi + 1) / 2; if starts[mid] <= s { lo = mid } else { hi = mid - 1 } }
            return times[lo] + Double(s - starts[lo]) / Double(max(rate, 1))
        }
        return AudioAnalysis(sampleRate: rate, channels: channels, sampleCount: sampleIndex,
                             startTime: times.first ?? 0, endTime: expected ?? 0,
                             onsets: onsetSamples.map(time(ofSample:)), peak: peak, discontinuities: discontinuities)
    }

    /// Beep onsets of `url` in seconds (see `analyzeAudio`).
    public static func beepOnsets(_ url: URL, threshold: Float = 0.1, minimumSilence: Double = 0.1) throws -> [Double] {
        try analyzeAudio(url, threshold: threshold, minimumSilence: minimumSilence).onsets
    }

    /// For each flash time, the nearest onset minus the flash time (seconds); nil entries where there
    /// are no onsets at all.
    public static func syncOffsets(flashTimes: [Double], beepOnsets: [Double]) -> [Double?] {
        let onsets = beepOnsets.sorted()
        return flashTimes.map { t in
            onsets.min(by: { abs($0 - t) < abs($1 - t) }).map { $0 - t }
        }
    }

    /// The largest absolute offset; nil when empty or any entry is nil (a flash without a beep).
    public static func maxAbsoluteOffset(_ offsets: [Double?]) -> Double? {
        guard !offsets.isEmpty else { return nil }
        var m = 0.0
        for o in offsets { guard let o else { return nil }; m = max(m, abs(o)) }
        return m
    }

    /// Decodes `url` fully and pairs each flash with its nearest beep: the offsets in seconds.
    public static func syncOffsets(_ url: URL) throws -> [Double?] {
        syncOffsets(flashTimes: flashTimes(try videoFrames(url)), beepOnsets: try beepOnsets(url))
    }

    /// Runs `ffmpeg -v error -i URL -f null -` and returns what it printed (empty for a clean file).
    /// A non-zero exit with nothing printed is reported as `exit status N`. A clean file that a
    /// test wrote (under the temporary directory) is kept for the field check (`FieldCheck.keep`).
    public static func ffmpegErrors(_ url: URL) throws -> String {
        let (out, _) = try Tools.run(try Tools.ffmpegPath(),
                                     ["-nostdin", "-hide_banner", "-v", "error", "-i", url.path, "-f", "null", "-"])
        let text = out.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty && out.status != 0 { return "exit status \(out.status)" }
        if text.isEmpty && FieldCheck.isTestOutput(url) { FieldCheck.keep(url) }
        return text
    }

    /// The packets of the first stream of `kind`, in file order, via `ffprobe -show_packets`.
    public static func packets(_ url: URL, kind: StreamKind) throws -> [PacketInfo] {
        let selector = kind == .video ? "v:0" : kind == .audio ? "a:0" : kind == .subtitle ? "s:0" : "d:0"
        let out = try Tools.ffprobe(["-v", "error", "-select_streams", selector, "-show_entries",
                                     "packet=pts_time,dts_time,duration_time,size,flags", "-of", "csv=p=0", url.path])
        return String(decoding: out.stdout, as: UTF8.self).split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 5 else { return nil }
            return PacketInfo(pts: Double(f[0]), dts: Double(f[1]), duration: Double(f[2]), size: Int(f[3]) ?? 0,
                              isKey: f[4].contains("K"))
        }
    }

    // MARK: showinfo parsing

    struct ShowinfoFrame {
        var pts: Int64?
        var isKey = false
        var type: Character = "?"
        var size: String?
        var samples = 0
        var rate = 0
    }

    struct Showinfo {
        var timeBase: Rational
        var frames: [ShowinfoFrame]
    }

    static func infoSeconds(_ r: Rational) -> Double { Double(r.numerator) / Double(r.denominator) }

    /// Parses the `showinfo` / `ashowinfo` lines of an ffmpeg stderr.
    static func parseShowinfo(_ text: String, audio: Bool) throws -> Showinfo {
        let tag = audio ? "Parsed_ashowinfo" : "Parsed_showinfo"
        var timeBase: Rational?
        var frames: [ShowinfoFrame] = []
        for lineSub in text.split(separator: "\n") where lineSub.contains(tag) {
            let line = String(lineSub)
            if !audio, let r = line.range(of: "config in time_base: ") {
                let rest = line[r.upperBound...].prefix { $0 != "," }
                timeBase = Rational(parsing: String(rest))
                continue
            }
            guard line.contains(" n:") || line.contains("] n:") else { continue }
            var f = ShowinfoFrame()
            let tokens = Self.tokens(line)
            if let p = tokens["pts"] { f.pts = Int64(p) }
            f.isKey = tokens["iskey"] == "1"
            if let t = tokens["type"], let c = t.first { f.type = c }
            f.size = tokens["s"]
            f.samples = tokens["nb_samples"].flatMap { Int($0) } ?? 0
            f.rate = tokens["rate"].flatMap { Int($0) } ?? 0
            if audio, timeBase == nil, f.rate > 0 { timeBase = Rational(1, Int64(f.rate)) }
            frames.append(f)
        }
        guard let timeBase else {
            if frames.isEmpty { return Showinfo(timeBase: Rational(1, 1), frames: []) }
            throw VerifierError.malformedOutput("showinfo time base not found")
        }
        return Showinfo(timeBase: timeBase, frames: frames)
    }

    /// `key:value` tokens of a showinfo line; values may be separated from their key by spaces
    /// (`n:   0 pts:      0`).
    static func tokens(_ line: String) -> [String: String] {
        var out: [String: String] = [:]
        let body = line.split(separator: "]", maxSplits: 1).last.map(String.init) ?? line
        let parts = body.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        var i = 0
        while i < parts.count {
            let p = parts[i]
            if let colon = p.firstIndex(of: ":") {
                let key = String(p[..<colon])
                var value = String(p[p.index(after: colon)...])
                if value.isEmpty, i + 1 < parts.count, !parts[i + 1].contains(":") { value = parts[i + 1]; i += 1 }
                if out[key] == nil { out[key] = value }
            }
            i += 1
        }
        return out
    }
}
