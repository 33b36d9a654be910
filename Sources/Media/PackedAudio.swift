import Foundation
import Timing

/// An MPEG-TS segment's sound as an HLS packed-audio segment (RFC 8216 §3.4): its AAC frames
/// copied (no decode, no encode) into libavformat's ADTS muxer, after an ID3 tag whose `PRIV`
/// frame `com.apple.streaming.transportStreamTimestamp` gives the first frame's MPEG-2 PTS (33
/// bits, big-endian in eight octets), which is how a player places the segment on the variant's
/// clock. What an audio-only rendition of an MPEG-TS session is made of. The TS is opened as ad
/// media is (the MPEG-TS demuxer, the file protocol only).
public enum PackedAudio {
    /// The owner of the ID3 `PRIV` frame that carries the timestamp.
    public static let timestampOwner = "com.apple.streaming.transportStreamTimestamp"

    /// The packed-audio segment of `segment` (MPEG-TS), its timestamp moved by `shift` ticks
    /// (90 kHz, as the variant's segment is); `scratch` is a folder for the muxer's file. Throws
    /// `MediaError` when the segment has no AAC sound.
    public static func segment(_ segment: URL, shift: Int64 = 0, scratch: URL) throws -> Data {
        let demuxer = try Demuxer(url: segment.path, policy: .adMedia)
        guard let audio = demuxer.bestStream(.audio), demuxer.streams[audio].codecName == "aac" else {
            throw MediaError.unsupported("a segment without AAC sound")
        }
        demuxer.keepOnly([audio])
        let file = scratch.appendingPathComponent(".packed-\(getpid())-\(UUID().uuidString).aac")
        defer { try? FileManager.default.removeItem(at: file) }
        let muxer = try Muxer(url: file.path, formatName: "adts")
        let out = try muxer.addStream(copying: audio, of: demuxer)
        try muxer.writeHeader()
        let tb = demuxer.timeBase(of: audio)
        let packet = try Packet()
        var first: Int64?
        while try demuxer.read(into: packet) == .packet {
            guard packet.streamIndex == audio else { continue }
            if first == nil, let pts = packet.ptsTicks {
                first = MediaTime(value: pts * tb.numerator, timescale: tb.denominator).rescaled(to: 90_000, rounding: .nearest).value
            }
            try muxer.write(packet, stream: out)
        }
        try muxer.finish()
        guard let first else { throw MediaError.unsupported("a segment without sound") }
        let wrap: Int64 = 1 << 33
        return id3Timestamp(UInt64(((first + shift) % wrap + wrap) % wrap)) + (try Data(contentsOf: file))
    }

    /// An ID3v2.4 tag of one `PRIV` frame: `timestampOwner`, NUL, `pts` (33 bits) in eight octets.
    public static func id3Timestamp(_ pts: UInt64) -> Data {
        var frame = Array(timestampOwner.utf8) + [0]
        for k in (0..<8).reversed() { frame.append(UInt8(truncatingIfNeeded: (pts & ((1 << 33) - 1)) >> (8 * UInt64(k)))) }
        func syncsafe(_ n: Int) -> [UInt8] { [UInt8(n >> 21 & 0x7F), UInt8(n >> 14 & 0x7F), UInt8(n >> 7 & 0x7F), UInt8(n & 0x7F)] }
        let body = Array("PRIV".utf8) + syncsafe(frame.count) + [0, 0] + frame
        return Data(Array("ID3".utf8) + [4, 0, 0] + syncsafe(body.count) + body)
    }
}
