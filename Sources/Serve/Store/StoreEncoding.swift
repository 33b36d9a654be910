import Foundation
import Media
import Playback
import Timing

/// How the store encodes video and audio, in one place: libx264 at a rung's bitrate, keyframes
/// only where asked (IDR, closed GOPs, no B-frames so decode order is presentation order), Annex B
/// with the parameter sets in band before every IDR (MPEG-TS carries them so); AAC-LC audio.
enum StoreEncoding {
    /// Output audio of ads and slate.
    static let sampleRate = 48_000
    static let channels = 2

    /// A libx264 encoder for `rendition` at `frameRate`; `splice`: its GOPs go inside copied content;
    /// `deterministic`: one thread, so the same input always makes the same bytes (x264's frame
    /// threads make its rate control depend on timing).
    static func videoEncoder(_ rendition: Rendition, frameRate: Rational, splice: Bool, bFrames: Bool = false,
                             deterministic: Bool = false) throws -> Encoder {
        let rate = rendition.videoBitrate
        var params = "keyint=\(max(1, 10 * frameRate.numerator / max(1, frameRate.denominator))):min-keyint=1:scenecut=0"
        if !bFrames { params += ":bframes=0" }
        if splice { params += ":sps-id=\(SplitGOP.parameterSetID)" }
        let options = ["preset": "veryfast", "b": String(rate), "maxrate": String(rate * 3 / 2), "bufsize": String(rate * 2),
                       "forced-idr": "1", "x264-params": params]
            .merging(deterministic ? ["threads": "1"] : [:]) { $1 }
        return try Encoder(video: "libx264", width: rendition.width, height: rendition.height, frameRate: frameRate,
                           options: options, globalHeader: false)
    }

    /// An AAC encoder at `bitRate` (48 kHz stereo).
    static func audioEncoder(bitRate: Int) throws -> Encoder {
        try Encoder(audio: "aac", sampleRate: sampleRate, channels: channels, bitRate: bitRate, globalHeader: false)
    }

    /// The filter that fits a picture into `width`x`height`: scaled keeping its aspect ratio,
    /// centred with black bars (letterbox or pillarbox, never stretched), yuv420p.
    static func fitFilter(width w: Int, height h: Int) -> String {
        "scale=\(w):\(h):force_original_aspect_ratio=decrease:force_divisible_by=2,pad=\(w):\(h):(ow-iw)/2:(oh-ih)/2:black,setsar=1,format=yuv420p"
    }

    /// The `avc1.PPCCLL` CODECS value of the first SPS in Annex B bytes.
    static func codecs(annexB b: [UInt8]) -> String? {
        var i = 0
        while i + 6 < b.count {
            if b[i] == 0, b[i + 1] == 0, b[i + 2] == 1, b[i + 3] & 0x1F == 7 {
                return "avc1." + b[(i + 4)...(i + 6)].map { String(format: "%02X", $0) }.joined()
            }
            i += 1
        }
        return nil
    }

    /// Encodes `frame` as frame `index` (pts in frame periods), a keyframe when `keyframe`, and
    /// hands over every packet the encoder gives back.
    static func encode(_ frame: Frame?, index: Int64, keyframe: Bool, with encoder: Encoder, packet: Packet,
                       _ body: (Packet) throws -> Void) throws {
        if let frame {
            frame.setPTS(index)
            frame.forceKeyframe(keyframe)
        }
        try encoder.send(frame)
        while try encoder.receive(into: packet) == .produced { try body(try packet.take()) }
    }
}
