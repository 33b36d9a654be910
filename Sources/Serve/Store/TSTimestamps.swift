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

    /// The PTS (90 kHz, with the muxer's constant offset) of the first video PES of `data`: the
    /// first frame of a stored segment (each starts with a keyframe, shown first).
    public static func firstVideoPTS(_ data: Data) -> MediaTime? {
        TSPES.firstVideoPTS([UInt8](data)).map { MediaTime(value: $0, timescale: 90_000) }
    }

    /// Whether the sound of the segment `data` starts after its first picture (its first audio
    /// PES's PTS later than its first video PES's, modulo 2^33): a segment that follows a join
    /// would leave a gap in the sound there (`CutSound`).
    public static func soundStartsLate(_ data: Data) -> Bool {
        let b = [UInt8](data)
        guard let video = TSPES.firstVideoPTS(b), let audio = TSPES.firstAudioPTS(b) else { return false }
        let d = ((audio - video) % TSPES.wrap + TSPES.wrap) % TSPES.wrap
        return d > 0 && d < TSPES.wrap / 2
    }

    /// How far the first video frame of `data` decodes before it shows (90 kHz): its stream's
    /// decode delay (two frames for x264's B-frame pyramid, 0 without B-frames).
    public static func videoDecodeDelay(_ data: Data) -> Int64? { TSPES.firstVideoDecodeDelay([UInt8](data)) }

    /// The PTS (90 kHz, modulo 2^33, as written) of every video PES of `data`, in decode order:
    /// the frames of a segment (unwrap, then sort, for presentation order).
    public static func videoPTS(_ data: Data) -> [Int64] {
        let b = [UInt8](data)
        var out: [Int64] = []
        TSPES.forEach(b) { p, streamID in
            guard (0xE0...0xEF).contains(streamID), b[p + 7] & 0x80 != 0 else { return }
            out.append(TSPES.timestamp(b, at: p + 9))
        }
        return out
    }

    /// `data` with every PTS, DTS and PCR moved by `offset` (rounded to 90 kHz, modulo 2^33).
    public static func shifted(_ data: Data, by offset: MediaTime) -> Data {
        let ticks = offset.mpegTicks
        var b = [UInt8](data)
        TSPES.shiftPCRs(&b, by: ticks)
        var positions: [(Int, UInt8)] = []
        TSPES.forEach(b) { p, _ in positions.append((p, b[p + 7] >> 6)) }
        for (p, flags) in positions {
            if flags & 0x2 != 0 { TSPES.write(&b, timestamp: TSPES.timestamp(b, at: p + 9) + ticks, at: p + 9) }
            if flags == 0x3 { TSPES.write(&b, timestamp: TSPES.timestamp(b, at: p + 14) + ticks, at: p + 14) }
        }
        return Data(b)
    }
}
