import Foundation
import Testing
import Media
import TestSupport
@testable import Playback

/// The chunked, parallel AAC encoding of smart rendering against one encoder over the same
/// samples: both decoded by the ffmpeg CLI to the source's length (to the frame), with the same packet
/// timestamps, and as close to the source block by block, at chunk joins included.
@Suite(.serialized) struct ChunkedAudioEncoderTests {
    static let rate = 48000, channels = 2
    static let dir: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-chunked-aac-\(getpid())")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()

    /// 30 s of pink noise under the content's 1 kHz beeps (sharp onsets: short AAC windows), as
    /// planar float made by the ffmpeg CLI.
    static func source() throws -> [[Float]] {
        let out = try Tools.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "anoisesrc=c=pink:a=0.15:d=30:r=48000:seed=7",
                                    "-i", TestMedia.Sample.content.url.path, "-filter_complex",
                                    "[0:a]aformat=channel_layouts=stereo[n];[1:a]atrim=0:30,aformat=sample_rates=48000:channel_layouts=stereo[b];[n][b]amix=inputs=2:normalize=0",
                                    "-t", "30", "-f", "f32le", "-ac", "2", "-ar", "48000", "-"])
        return deinterleave(out.stdout)
    }

    static func deinterleave(_ data: Data) -> [[Float]] {
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let n = samples.count / channels
        return (0..<channels).map { c in (0..<n).map { samples[$0 * channels + c] } }
    }

    /// Encodes `pcm` through a `ChunkedAudioEncoder` into an .m4a; returns it and the packet timestamps.
    static func encode(_ pcm: [[Float]], name: String, chunkFrames: Int, workers: Int) throws -> (URL, [Int64]) {
        let url = dir.appendingPathComponent(name)
        let make = { try Encoder(audio: "aac", sampleRate: rate, channels: channels, bitRate: 128_000, globalHeader: true) }
        let template = try make()
        let muxer = try Muxer(url: url.path, formatName: "mp4")
        let stream = try muxer.addStream(for: template)
        try muxer.writeHeader()
        var framer = AudioFramer(channels: channels, sampleRate: rate, frameSize: template.frameSize, interleavedS16: false)
        let encoder = ChunkedAudioEncoder(frameSize: framer.frameSize, workers: workers, chunkFrames: chunkFrames, makeEncoder: make)
        var pts: [Int64] = []
        func write(_ packets: [Packet]) throws {
            for p in packets { pts.append(p.ptsTicks ?? -1); try muxer.write(p, stream: stream) }
        }
        // in uneven pieces, as the splicer hands audio over
        var at = 0, piece = 0
        while at < pcm[0].count {
            let n = min(pcm[0].count - at, [1600, 1601, 999, 4000][piece % 4])
            try framer.append(pcm.map { Array($0[at..<at + n]) }, count: n) { try encoder.send($0); try write(try encoder.takePackets()) }
            at += n; piece += 1
        }
        try framer.flush { try encoder.send($0) }
        try write(try encoder.finish())
        try muxer.finish()
        return (url, pts)
    }

    static func decode(_ url: URL) throws -> [[Float]] {
        deinterleave(try Tools.ffmpeg(["-v", "error", "-i", url.path, "-f", "f32le", "-ac", "2", "-ar", "48000", "-"]).stdout)
    }

    /// Signal-to-error ratio in dB of `decoded` against `source` over `range`.
    static func snr(_ decoded: [[Float]], _ source: [[Float]], _ range: Range<Int>) -> Double {
        var signal = 0.0, error = 0.0
        for c in 0..<channels {
            for i in range {
                let s = Double(source[c][i]), e = Double(decoded[c][i]) - s
                signal += s * s; error += e * e
            }
        }
        return 10 * log10(signal / max(error, 1e-20))
    }

    @Test func chunkedEncodeDecodesLikeOneEncoderAtEveryJoin() throws {
        let pcm = try Self.source()
        #expect(pcm[0].count == 30 * Self.rate)
        // chunks of 256 frames (5.5 s): five joins in 30 s
        let (one, onePTS) = try Self.encode(pcm, name: "one.m4a", chunkFrames: 1 << 30, workers: 1)
        let (chunked, chunkedPTS) = try Self.encode(pcm, name: "chunked.m4a", chunkFrames: 256, workers: 2)
        #expect(onePTS == chunkedPTS, "the same packets at the same times")
        #expect(chunkedPTS.first == -1024 && zip(chunkedPTS, chunkedPTS.dropFirst()).allSatisfy { $1 - $0 == 1024 })
        let a = try Self.decode(one), b = try Self.decode(chunked)
        // timing to the sample: priming dropped by the edit list; the decoder gives the last frame
        // whole (FFmpeg 5.1 trims no end padding), so the source's length rounded up to 1024
        let padded = (pcm[0].count + 1023) / 1024 * 1024
        #expect(a[0].count == padded && b[0].count == padded)
        guard b[0].count == padded, a[0].count == padded else { return }
        let all = 0..<pcm[0].count
        let (snrOne, snrChunked) = (Self.snr(a, pcm, all), Self.snr(b, pcm, all))
        #expect(snrChunked > snrOne - 0.5, "whole file: one encoder \(snrOne) dB, chunked \(snrChunked) dB")
        #expect(snrOne > 15, "the comparison means something: \(snrOne) dB")
        // around each join (two 1024-sample blocks each side): no click, no gap, no aliasing
        for k in 1...5 {
            let join = k * 256 * 1024
            let window = (join - 2048)..<(join + 2048)
            let (x, y) = (Self.snr(a, pcm, window), Self.snr(b, pcm, window))
            #expect(y > x - 2, "join \(k) at sample \(join): one encoder \(x) dB, chunked \(y) dB")
        }
    }
}
