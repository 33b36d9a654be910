import Media
import Timing

/// One pass over an ad's video packets: the span their timestamps cover (first shown pts to the
/// end of the last), how many are shown, which are damaged, and whether the first frame decodes.
/// Only packets up to the first decoded frame are decoded.
struct AdPacketScan {
    /// Packets that will be shown (not dropped by an edit list).
    private(set) var packets = 0
    /// Earliest presentation time of a shown packet.
    private(set) var first: MediaTime?
    /// Latest end (pts + duration) of a shown packet.
    private(set) var end: MediaTime?
    /// Packets the demuxer flagged as incomplete or corrupt with good packets after them (damage
    /// inside the file). Incomplete packets at the very end are a file cut short, not damage: they
    /// are played as far as they decode, and the ad is measured as it is (`truncatedTail`).
    private(set) var corruptPackets = 0
    /// Whether the file ends in incomplete packets (cut short).
    private(set) var truncatedTail = false
    /// Whether a frame came out of the decoder.
    private(set) var decodedFirstFrame = false
    /// A read error that ended the file early.
    private(set) var readError: MediaError?

    /// Scans stream `index` of a freshly opened `demuxer` (it is read to its end).
    init(demuxer: Demuxer, stream index: Int) throws {
        demuxer.keepOnly([index])
        let info = demuxer.streams[index]
        let tb = demuxer.timeBase(of: index)
        let fallback = (info.frameRate ?? Rational(25, 1)).period
        let decoder = try Decoder(demuxer: demuxer, streamIndex: index, threads: 1)
        let packet = try Packet()
        let frame = try Frame()
        var decoding = true
        var pendingCorrupt = 0
        func time(_ ticks: Int64) -> MediaTime { MediaTime(value: ticks * tb.numerator, timescale: tb.denominator) }
        while true {
            do {
                guard try demuxer.read(into: packet) == .packet else { break }
            } catch let e as MediaError {
                readError = e
                break
            }
            guard packet.streamIndex == index else { continue }
            if packet.isCorrupt { pendingCorrupt += 1 } else { corruptPackets += pendingCorrupt; pendingCorrupt = 0 }
            if !packet.isDiscarded, let ticks = packet.ptsTicks ?? packet.dtsTicks {
                packets += 1
                let pts = time(ticks)
                let d = packet.durationTicks > 0 ? time(packet.durationTicks) : fallback
                first = first.map { MediaTime.min($0, pts) } ?? pts
                end = end.map { MediaTime.max($0, pts + d) } ?? pts + d
            }
            if decoding {
                try decoder.send(packet)
                if try decoder.receive(into: frame) == .produced { decodedFirstFrame = true; decoding = false }
            }
        }
        truncatedTail = pendingCorrupt > 0
        if decoding {
            try decoder.send(nil)
            decodedFirstFrame = try decoder.receive(into: frame) == .produced
        }
    }
}
