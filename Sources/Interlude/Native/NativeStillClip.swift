// The ad media of a native break without video: a black still of the declared duration, encoded once.
import Foundation
import Media
import Playback
import Timing

/// Writes the media a full-frame native break of an image format plays: a small black H.264/AAC
/// MP4 (64x36, 25 fps, silent) lasting the template's declared duration. The conformer scales it
/// to the output like any ad media and the native layer draws the whole layout over every frame.
enum NativeStillClip {
    static let frameRate = Rational(25, 1)

    /// Writes the still to `url` (replacing it); its duration is `duration` rounded up to whole frames.
    static func write(to url: URL, duration: MediaTime) throws {
        let format = OutputFormat(width: 64, height: 36, frameRate: frameRate, sampleRate: 48_000, channels: 2)
        try? FileManager.default.removeItem(at: url)
        let out = try EncodedOutput(url: url.path, container: .mp4, format: format, settings: EncoderSettings(preset: "ultrafast", crf: 30, audioBitRate: 64_000))
        let frames = max(1, Int64((duration.seconds * 25).rounded(.up)))
        let black = try Frame.solidYUV420(width: 64, height: 36, y: 16, u: 128, v: 128)
        let samples = 48_000 / 25
        let silence = [[Float]](repeating: [Float](repeating: 0, count: samples), count: 2)
        for i in 0..<frames {
            try out.writeVideo(black, index: i, keyframe: i == 0)
            try out.writeAudio(silence, count: samples)
        }
        try out.finish()
    }
}
