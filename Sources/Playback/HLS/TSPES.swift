/// MPEG-TS timestamps read and moved in place: PES headers (PTS, DTS) and PCRs. The one reader
/// behind the run clock (`TSRunClock`) and the service's clock shift (`TSTimestamps`).
package enum TSPES {
    /// Bytes in a TS packet.
    package static let packetSize = 188
    /// 2^33: PTS, DTS and PCR bases wrap here.
    package static let wrap: Int64 = 1 << 33

    /// Calls `body` with the offset of each PES header that starts in a TS packet (and fits in
    /// it, DTS included) and its stream id, for audio and video streams.
    package static func forEach(_ b: [UInt8], _ body: (Int, UInt8) -> Void) {
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

    /// The PTS of the first video PES in `b` that has one.
    package static func firstVideoPTS(_ b: [UInt8]) -> Int64? { firstPTS(b, streamIDs: 0xE0...0xEF) }

    /// The PTS of the first audio (MPEG audio stream id) PES in `b` that has one.
    package static func firstAudioPTS(_ b: [UInt8]) -> Int64? { firstPTS(b, streamIDs: 0xC0...0xDF) }

    /// The PTS of the first PES of a stream id in `ids` that has one.
    static func firstPTS(_ b: [UInt8], streamIDs ids: ClosedRange<UInt8>) -> Int64? {
        var found: Int64?
        forEach(b) { p, id in
            guard found == nil, ids.contains(id), b[p + 7] & 0x80 != 0 else { return }
            found = timestamp(b, at: p + 9)
        }
        return found
    }

    /// How far the first video PES with a PTS decodes before it shows (PTS − DTS, 90 kHz; 0 when
    /// it carries no DTS): the stream's decode delay, e.g. two frames for x264's B-frame pyramid.
    package static func firstVideoDecodeDelay(_ b: [UInt8]) -> Int64? {
        var found: Int64?
        forEach(b) { p, id in
            guard found == nil, (0xE0...0xEF).contains(id), b[p + 7] & 0x80 != 0 else { return }
            guard b[p + 7] & 0x40 != 0 else { found = 0; return }
            found = ((timestamp(b, at: p + 9) - timestamp(b, at: p + 14)) % wrap + wrap) % wrap
        }
        return found
    }

    /// The 33-bit timestamp at `q` (a PES header's PTS at +9, DTS at +14).
    package static func timestamp(_ b: [UInt8], at q: Int) -> Int64 {
        Int64((b[q] >> 1) & 0x07) << 30 | Int64(b[q + 1]) << 22 | Int64(b[q + 2] >> 1) << 15 | Int64(b[q + 3]) << 7 | Int64(b[q + 4] >> 1)
    }

    /// Writes `value` (modulo 2^33) as the timestamp at `q`, keeping its prefix bits.
    package static func write(_ b: inout [UInt8], timestamp value: Int64, at q: Int) {
        let v = ((value % wrap) + wrap) % wrap
        b[q] = (b[q] & 0xF1) | UInt8(truncatingIfNeeded: ((v >> 30) & 0x07) << 1)
        b[q + 1] = UInt8(truncatingIfNeeded: v >> 22)
        b[q + 2] = UInt8(truncatingIfNeeded: ((v >> 15) & 0x7F) << 1) | 1
        b[q + 3] = UInt8(truncatingIfNeeded: v >> 7)
        b[q + 4] = UInt8(truncatingIfNeeded: (v & 0x7F) << 1) | 1
    }

    /// Whether the packet at `i` carries a PCR.
    package static func hasPCR(_ b: [UInt8], _ i: Int) -> Bool {
        b[i] == 0x47 && (b[i + 3] >> 4) & 0x02 != 0 && b[i + 4] > 0 && b[i + 5] & 0x10 != 0 && i + 11 < b.count
    }

    /// The PCR base (90 kHz) of the packet at `i` (which `hasPCR`).
    package static func pcr(_ b: [UInt8], packet i: Int) -> Int64 {
        let q = i + 6
        return Int64(b[q]) << 25 | Int64(b[q + 1]) << 17 | Int64(b[q + 2]) << 9 | Int64(b[q + 3]) << 1 | Int64(b[q + 4] >> 7)
    }

    /// The first PCR base in `b`.
    package static func firstPCR(_ b: [UInt8]) -> Int64? {
        var i = 0
        while i + packetSize <= b.count {
            if hasPCR(b, i) { return pcr(b, packet: i) }
            i += packetSize
        }
        return nil
    }

    /// Every PCR base of `b` moved by `ticks` (modulo 2^33); the extension is kept.
    package static func shiftPCRs(_ b: inout [UInt8], by ticks: Int64) {
        guard ticks != 0 else { return }
        var i = 0
        while i + packetSize <= b.count {
            if hasPCR(b, i) {
                let q = i + 6
                let base = ((pcr(b, packet: i) + ticks) % wrap + wrap) % wrap
                b[q] = UInt8(truncatingIfNeeded: base >> 25); b[q + 1] = UInt8(truncatingIfNeeded: base >> 17)
                b[q + 2] = UInt8(truncatingIfNeeded: base >> 9); b[q + 3] = UInt8(truncatingIfNeeded: base >> 1)
                b[q + 4] = UInt8(truncatingIfNeeded: (base & 1) << 7) | (b[q + 4] & 0x7F)
            }
            i += packetSize
        }
    }
}
