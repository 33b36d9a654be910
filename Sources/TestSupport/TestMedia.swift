import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The package's sample media and ad-hoc clips made on demand with the same identity scheme.
public enum TestMedia {
    /// The package root (the folder holding Package.swift), found from this source file's path.
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Sources
        .deletingLastPathComponent()

    /// `Media/` in the package: the committed clips made by scripts/make-media.sh.
    public static var mediaDirectory: URL { packageRoot.appendingPathComponent("Media", isDirectory: true) }

    /// A file in `Media/`, e.g. `TestMedia.url("content.mp4")`.
    public static func url(_ name: String) -> URL { mediaDirectory.appendingPathComponent(name) }

    /// `../shared/media` next to the package (third-party real-world files), nil when absent.
    public static var sharedMediaDirectory: URL? {
        let dir = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/media", isDirectory: true)
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: dir.path, isDirectory: &isDir) && isDir.boolValue ? dir : nil
    }

    /// Where `clip(...)` and `derived(...)` cache their files: `.build/test-media/` in the package.
    public static var cacheDirectory: URL {
        packageRoot.appendingPathComponent(".build/test-media", isDirectory: true)
    }

    /// Display sizes of the committed clips (content, ad-mismatched, ad-silent, portrait/rotated),
    /// the default candidates of `IdentityReader(output:)`.
    public static let knownSourceSizes: [PixelSize] = [
        PixelSize(width: 640, height: 360), PixelSize(width: 480, height: 360),
        PixelSize(width: 320, height: 240), PixelSize(width: 360, height: 640),
    ]

    /// The committed clips and their parameters.
    public enum Sample: String, CaseIterable, Sendable {
        /// 640x360 30 fps, AAC 48 kHz stereo, 40 s, key frame every 2 s; source 1.
        case content = "content.mp4"
        /// Same format as content, 6 s; source 2.
        case adMatching = "ad-matching.mp4"
        /// 480x360 (4:3) 25 fps, AAC 44.1 kHz mono, 5 s; source 3.
        case adMismatched = "ad-mismatched.mp4"
        /// 320x240 24 fps, no audio, 4 s; source 4.
        case adSilent = "ad-silent.mp4"
        /// 360x640 portrait 30 fps, AAC 48 kHz stereo, 4 s; source 5.
        case adPortrait = "ad-portrait.mp4"
        /// Coded 640x360 with a display matrix (rotation 90) showing 360x640 upright; 30 fps, 4 s; source 6.
        case adRotated = "ad-rotated.mp4"
        /// AAC 48 kHz stereo beeps only, 3 s.
        case audioOnly = "audio-only.m4a"
        /// 3000 pseudo-random bytes.
        case badGarbage = "bad-garbage.mp4"
        /// ad-matching.mp4 cut to 40 % of its bytes.
        case badTruncated = "bad-truncated.mp4"

        /// The file in `Media/`.
        public var url: URL { TestMedia.url(rawValue) }
        /// The source id drawn in the identity band (nil for files without video identity).
        public var sourceID: Int? {
            switch self {
            case .content: 1
            case .adMatching, .badTruncated: 2
            case .adMismatched: 3
            case .adSilent: 4
            case .adPortrait: 5
            case .adRotated: 6
            case .audioOnly, .badGarbage: nil
            }
        }
    }

    // MARK: ad-hoc clips

    /// The ffmpeg luma expression of the identity band, flash and moving ramp (same as make-media.sh).
    public static func lumaExpression(sourceID: Int, fps: Int) -> String {
        let f = "mod(N,4096)"
        let c = "(15-mod(\(sourceID)+floor(\(f)/256)+mod(floor(\(f)/16),16)+mod(\(f),16),16))"
        let v = "(8388608+\(sourceID)*262144+\(f)*64+\(c)*4+1)"
        let k = "(floor(Y*8/H)*12+floor(X*12/W))"
        return "if(lt(Y,H/4),if(mod(floor(\(v)/pow(2,23-\(k))),2),235,16),"
            + "if(gte(Y,H/2)*eq(mod(N,\(fps)),0),235,40+abs(mod(2*X+Y+2*N,120)-60)*2))"
    }

    /// The lavfi video graph of a clip (same as make-media.sh): drawn at a quarter size, enlarged
    /// with nearest-neighbour scaling.
    public static func videoGraph(sourceID: Int, width: Int, height: Int, fps: Int, seconds: Double) -> String {
        let sw = (width + 3) / 4, sh = (height + 3) / 4
        return "color=c=black:s=\(sw)x\(sh):r=\(fps):d=\(seconds),format=yuv420p,"
            + "geq=lum='\(lumaExpression(sourceID: sourceID, fps: fps))':cb=128:cr=128,"
            + "scale=\(width):\(height):flags=neighbor,setsar=1"
    }

    /// The lavfi audio graph (same as make-media.sh): a 1 kHz sine of amplitude 0.5 starting at phase
    /// 0 for the first `sampleRate/fps` samples of every second, silence otherwise.
    public static func audioGraph(sampleRate: Int, channels: Int, fps: Int, seconds: Double) -> String {
        let e = "if(lt(mod(n,s),s/\(fps)),0.5*sin(2*PI*1000*mod(n,s)/s),0)"
        return "aevalsrc=exprs='\(Array(repeating: e, count: max(channels, 1)).joined(separator: "|"))':s=\(sampleRate):d=\(seconds)"
    }

    /// An H.264/AAC MP4 with the identity scheme, made once with ffmpeg and cached in
    /// `cacheDirectory` under a name built from the parameters (safe to call concurrently).
    /// `gop` defaults to 2 s of frames; `audio: false` makes a video-only file.
    public static func clip(sourceID: Int, width: Int = 640, height: Int = 360, fps: Int = 30, seconds: Double = 2,
                            sampleRate: Int = 48000, channels: Int = 2, audio: Bool = true,
                            gop: Int? = nil) throws -> URL {
        precondition((0...15).contains(sourceID), "source id is 4 bits")
        precondition(fps > 0 && width > 0 && height > 0 && seconds > 0)
        let g = gop ?? 2 * fps
        let a = audio ? "\(sampleRate)hz\(channels)ch" : "noaudio"
        let name = "clip-s\(sourceID)-\(width)x\(height)-\(fps)fps-\(seconds)s-\(a)-g\(g).mp4"
        return try cached(name) { out in
            var args = ["-v", "error", "-y", "-f", "lavfi",
                        "-i", videoGraph(sourceID: sourceID, width: width, height: height, fps: fps, seconds: seconds)]
            if audio {
                args += ["-f", "lavfi", "-i", audioGraph(sampleRate: sampleRate, channels: channels, fps: fps, seconds: seconds),
                         "-map", "0:v", "-map", "1:a", "-c:a", "aac", "-b:a", channels == 1 ? "64k" : "96k",
                         "-ar", "\(sampleRate)", "-ac", "\(channels)"]
            }
            args += ["-c:v", "libx264", "-preset", "veryfast", "-crf", "24", "-pix_fmt", "yuv420p", "-threads", "2",
                     "-sc_threshold", "0", "-g", "\(g)", "-keyint_min", "\(g)",
                     "-map_metadata", "-1", "-fflags", "+bitexact", "-movflags", "+faststart", out.path]
            try Tools.ffmpeg(args)
        }
    }

    /// A file made from `input` by one ffmpeg run (`ffmpeg -i input <arguments> output`), cached in
    /// `cacheDirectory` as `name`; e.g. scaled into another frame size with bars.
    public static func derived(from input: URL, name: String, arguments: [String]) throws -> URL {
        try cached(name) { out in
            try Tools.ffmpeg(["-v", "error", "-y", "-i", input.path] + arguments + [out.path])
        }
    }

    /// A file made by one ffmpeg run from `arguments` (its inputs included, e.g. `-f lavfi -i …`),
    /// cached in `cacheDirectory` as `name`.
    public static func generated(_ name: String, arguments: [String]) throws -> URL {
        try cached(name) { out in
            try Tools.ffmpeg(["-v", "error", "-y", "-nostdin"] + arguments + [out.path])
        }
    }

    /// ffmpeg arguments that fit a picture into `width`x`height` preserving its aspect ratio, centred
    /// with black bars: `-vf scale=...:force_original_aspect_ratio=decrease,pad=...,setsar=1`.
    public static func fitFilter(width: Int, height: Int) -> String {
        "scale=\(width):\(height):force_original_aspect_ratio=decrease,pad=\(width):\(height):(ow-iw)/2:(oh-ih)/2:black,setsar=1"
    }

    /// Returns the cached file `name`, making it with `make` (given a temporary path in the same
    /// folder, renamed into place atomically) when absent.
    static func cached(_ name: String, make: (URL) throws -> Void) throws -> URL {
        let fm = FileManager.default
        try fm.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        let final = cacheDirectory.appendingPathComponent(name)
        if fm.fileExists(atPath: final.path) { return final }
        let ext = final.pathExtension.isEmpty ? "" : ".\(final.pathExtension)"
        let temp = cacheDirectory.appendingPathComponent(".partial-\(UUID().uuidString)\(ext)")
        defer { try? fm.removeItem(at: temp) }
        // One make per core at once (see `offPoolThrottled`): a cold cache is many makes together.
        heavySlots.wait()
        defer { heavySlots.signal() }
        try make(temp)
        if rename(temp.path, final.path) != 0 && !fm.fileExists(atPath: final.path) {
            throw VerifierError.malformedOutput("could not move \(temp.path) to \(final.path)")
        }
        return final
    }
}
