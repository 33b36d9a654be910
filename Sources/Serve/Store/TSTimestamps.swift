import Foundation
import Playback
import Timing

/// The clock of a stored MPEG-TS segment, read and moved without remuxing, for a session whose
/// playlist puts shared segments at its own stream times.
///
/// Shared ads and slate run on their own clock (frame 0 near 0), shared content on the content's.
/// Players that follow `EXT-X-DISCONTINUITY` reset there (hls.js, AVPlayer, GStreamer), but some
/// clients (FFmpeg's HLS reader, `ffmpeg -xerror`) need timestamps that keep increasing across the
/// whole playlist: the HTTP side can send each segment after a break with its PTS, DTS and PCR
/// moved by `streamTime − (firstVideoPTS − muxerOffset)`; bytes are otherwise
/// the store's.
public enum TSTimestamps {
    /// What the store's MPEG-TS muxer adds to every timestamp (1.4 s): a frame at time t of its
    /// clock has PTS t + this.
    public static var muxerOffset: MediaTime { TSRunWriter.timestampOffset }

    private static let packetSize = 188
    private static let wrap: Int64 = 1 << 33

    /// The PTS (90 kHz, with the muxer's constant offset) of the first video PES of `data`: the
    /// first frame of a stored segment (each starts with a keyframe, shown first).
    public static func firstVideoPTS(_ data: Data) -> MediaTime? {
        let b = [UInt8](data)
        var found: Int64?
        forEachPES(b) { p, streamID in
            guard found == nil, (0xE0...0xEF).contains(streamID), b[p + 7] & 0x80 != 0 else { return }
            found = readTimestamp(b, p + 9)
        }
        return found.map { MediaTime(value: $0, timescale: 90_000) }
    }

    /// The PTS (90 kHz, modulo 2^33, as written) of every video PES of `data`, in decode order:
    /// the frames of a segment (unwrap, then sort, for presentation order).
    public static func videoPTS(_ data: Data) -> [Int64] {
        let b = [UInt8](data)
        var out: [Int64] = []
        forEachPES(b) { p, streamID in
            guard (0xE0...0xEF).contains(streamID), b[p + 7] & 0x80 != 0 else { return }
            out.append(readTimestamp(b, p + 9))
        }
        return out
    }

    /// `data` with every PTS, DTS and PCR moved by `offset` (rounded to 90 kHz, modulo 2^33).
    public static func shifted(_ data: Data, by offset: MediaTime) -> Data {
        let ticks = offset.rescaled(to: 90_000).value
        var b = [UInt8](data)
        var i = 0
        while i + packetSize <= b.count {
            if b[i] == 0x47, (b[i + 3] >> 4) & 0x02 != 0, b[i + 4] > 0, b[i + 5] & 0x10 != 0, i + 11 < b.count {
                // PCR: 33-bit base (90 kHz) and 9-bit extension
                let q = i + 6
                var base = Int64(b[q]) << 25 | Int64(b[q + 1]) << 17 | Int64(b[q + 2]) << 9 | Int64(b[q + 3]) << 1 | Int64(b[q + 4] >> 7)
                base = ((base + ticks) % wrap + wrap) % wrap
                b[q] = UInt8(truncatingIfNeeded: base >> 25); b[q + 1] = UInt8(truncatingIfNeeded: base >> 17)
                b[q + 2] = UInt8(truncatingIfNeeded: base >> 9); b[q + 3] = UInt8(truncatingIfNeeded: base >> 1)
                b[q + 4] = UInt8(truncatingIfNeeded: (base & 1) << 7) | (b[q + 4] & 0x7F)
            }
            i += packetSize
        }
        var positions: [(Int, UInt8)] = []
        forEachPES(b) { p, _ in positions.append((p, b[p + 7] >> 6)) }
        for (p, flags) in positions {
            if flags & 0x2 != 0 { writeTimestamp(&b, p + 9, readTimestamp(b, p + 9) + ticks) }
            if flags == 0x3 { writeTimestamp(&b, p + 14, readTimestamp(b, p + 14) + ticks) }
        }
        return Data(b)
    }

    /// Calls `body` with the offset of each PES header that starts in a TS packet (and fits in it)
    /// and its stream id, for audio and video streams.
    private static func forEachPES(_ b: [UInt8], _ body: (Int, UInt8) -> Void) {
        var i = 0
        while i + packetSize <= b.count {
            defer { i += packetSize }
            guard b[i] == 0x47, b[i + 1] & 0x40 != 0 else { continue }
            let afc = (b[i + 3] >> 4) & 0x03
            guard afc & 0x01 != 0 else { continue }
            var p = i + 4
            if afc & 0x02 != 0 { p += 1 + Int(b[p]) }
            guard p + 19 <= i + packetSize, b[p] == 0, b[p + 1] == 0, b[p + 2] == 1 else { continue }
            let id = b[p + 3]
            guard (0xC0...0xEF).contains(id) || id == 0xBD else { continue }
            body(p, id)
        }
    }

    private static func readTimestamp(_ b: [UInt8], _ q: Int) -> Int64 {
        Int64((b[q] >> 1) & 0x07) << 30 | Int64(b[q + 1]) << 22 | Int64(b[q + 2] >> 1) << 15 | Int64(b[q + 3]) << 7 | Int64(b[q + 4] >> 1)
    }

    private static func writeTimestamp(_ b: inout [UInt8], _ q: Int, _ value: Int64) {
        let v = ((value % wrap) + wrap) % wrap
        b[q] = (b[q] & 0xF1) | UInt8(truncatingIfNeeded: ((v >> 30) & 0x07) << 1)
        b[q + 1] = UInt8(truncatingIfNeeded: v >> 22)
        b[q + 2] = UInt8(truncatingIfNeeded: ((v >> 15) & 0x7F) << 1) | 1
        b[q + 3] = UInt8(truncatingIfNeeded: v >> 7)
        b[q + 4] = UInt8(truncatingIfNeeded: (v & 0x7F) << 1) | 1
    }
}
