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

    /// The frames a split GOP keeps, encoded again as one closed GOP for `rendition` at
    /// `frameRate` (an IDR first, parameter sets numbered `SplitGOP.parameterSetID`): `decode`
    /// hands over the `count` kept frames in order (`SplitGOP.decode`), the k-th is stamped with
    /// `timestamps(k)` and `period` ticks of duration. The one encoder of both cut makers.
    /// Throws when a frame is not the rendition's size or not every frame comes out.
    static func closedGOP(count: Int, rendition: Rendition, frameRate: Rational, period: Int64,
                          timestamps: (Int) -> (pts: Int64, dts: Int64),
                          decode: ((Int, Frame) throws -> Void) throws -> Void) throws -> [Packet] {
        let encoder = try videoEncoder(rendition, frameRate: frameRate, splice: true)
        let scratch = try Packet()
        // packets as the encoder stamps them (pts = the frame's rank), timestamped once all are out
        var out: [Packet] = []
        func keep(_ e: Packet) {
            if (0..<count).contains(Int(e.ptsTicks ?? -1)) { out.append(e) }
        }
        try decode { k, f in
            guard f.width == rendition.width, f.height == rendition.height else {
                throw StoreError.unsupported("cut: the pictures are \(f.width)x\(f.height), rendition \(rendition.name) is \(rendition.width)x\(rendition.height)")
            }
            try encode(f, index: Int64(k), keyframe: k == 0, with: encoder, packet: scratch, keep)
        }
        try encode(nil, index: 0, keyframe: false, with: encoder, packet: scratch, keep)
        guard out.count == count else { throw StoreError.unsupported("cut: \(count) frames decoded, \(out.count) encoded") }
        for e in out {
            let t = timestamps(Int(e.ptsTicks!))
            e.setTimestamps(pts: t.pts, dts: t.dts)
            e.setDuration(period)
        }
        return out
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
