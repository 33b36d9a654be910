import Foundation

/// The PIDs of a cut piece made the origin's: the store's muxer writes FFmpeg's (PMT 0x1000,
/// video 0x100, audio 0x101, program 1), an origin may use others (a live encoder's 480/481/482).
/// A piece that continues the origin's stream, or that the next origin segment continues, must
/// carry its PIDs, program number and transport stream id, or a client sees streams vanish and
/// new ones appear without a discontinuity. Rewritten in place: each TS packet's PID, and the
/// PAT, PMT and SDT sections (with their CRC) when each fits in one packet, as FFmpeg writes them.
enum SegmentCutPIDs {
    /// The program of a transport stream, from its first PAT and PMT.
    struct Layout: Equatable {
        var transportStreamID: Int
        var program: Int
        var pmt: Int
        var pcr: Int
        var video: Int?
        var audio: Int?
    }

    private static let size = 188

    /// The layout of `b`, nil when it has no PAT and PMT that fit in a packet each.
    static func layout(_ b: [UInt8]) -> Layout? {
        var pat: (ts: Int, program: Int, pmt: Int)?
        var i = 0
        while i + size <= b.count {
            defer { i += size }
            guard b[i] == 0x47, let s = section(b, i) else { continue }
            let pid = Int(b[i + 1] & 0x1F) << 8 | Int(b[i + 2])
            if pid == 0, pat == nil, b[s] == 0x00 {
                let end = s + 3 + sectionLength(b, s) - 4
                var p = s + 8
                while p + 4 <= end {
                    let program = Int(b[p]) << 8 | Int(b[p + 1])
                    if program != 0 { pat = (Int(b[s + 3]) << 8 | Int(b[s + 4]), program, Int(b[p + 2] & 0x1F) << 8 | Int(b[p + 3])); break }
                    p += 4
                }
            } else if let pat, pid == pat.pmt, b[s] == 0x02 {
                let end = s + 3 + sectionLength(b, s) - 4
                var layout = Layout(transportStreamID: pat.ts, program: pat.program, pmt: pat.pmt,
                                    pcr: Int(b[s + 8] & 0x1F) << 8 | Int(b[s + 9]))
                var p = s + 12 + (Int(b[s + 10] & 0x0F) << 8 | Int(b[s + 11]))
                while p + 5 <= end {
                    let type = b[p], es = Int(b[p + 1] & 0x1F) << 8 | Int(b[p + 2])
                    if type == 0x1B, layout.video == nil { layout.video = es }
                    if type == 0x0F || type == 0x11, layout.audio == nil { layout.audio = es }
                    p += 5 + (Int(b[p + 3] & 0x0F) << 8 | Int(b[p + 4]))
                }
                return layout
            }
        }
        return nil
    }

    /// Rewrites `b` (laid out as `ours`) to the origin's `target` layout.
    static func remap(_ b: inout [UInt8], from ours: Layout, to target: Layout) {
        guard ours != target else { return }
        var map: [Int: Int] = [ours.pmt: target.pmt]
        if let v = ours.video, let t = target.video { map[v] = t }
        if let a = ours.audio, let t = target.audio { map[a] = t }
        guard Set(map.values).count == map.count, !map.values.contains(where: { [0, 0x11, 0x1FFF].contains($0) }) else { return }
        var i = 0
        while i + size <= b.count {
            defer { i += size }
            guard b[i] == 0x47 else { continue }
            let pid = Int(b[i + 1] & 0x1F) << 8 | Int(b[i + 2])
            if let s = section(b, i) {
                if pid == 0, b[s] == 0x00 {
                    let end = s + 3 + sectionLength(b, s) - 4
                    put16(&b, s + 3, target.transportStreamID)
                    var p = s + 8
                    while p + 4 <= end {
                        if Int(b[p]) << 8 | Int(b[p + 1]) != 0 {
                            put16(&b, p, target.program)
                            put13(&b, p + 2, target.pmt)
                        }
                        p += 4
                    }
                    sealCRC(&b, s, end)
                } else if pid == 0x11, b[s] == 0x42 {
                    // the SDT names the service (the program) too
                    let end = s + 3 + sectionLength(b, s) - 4
                    put16(&b, s + 3, target.transportStreamID)
                    var p = s + 11
                    while p + 5 <= end {
                        if Int(b[p]) << 8 | Int(b[p + 1]) == ours.program { put16(&b, p, target.program) }
                        p += 5 + (Int(b[p + 3] & 0x0F) << 8 | Int(b[p + 4]))
                    }
                    sealCRC(&b, s, end)
                } else if pid == ours.pmt, b[s] == 0x02 {
                    let end = s + 3 + sectionLength(b, s) - 4
                    put16(&b, s + 3, target.program)
                    let pcr = Int(b[s + 8] & 0x1F) << 8 | Int(b[s + 9])
                    put13(&b, s + 8, map[pcr] ?? pcr)
                    var p = s + 12 + (Int(b[s + 10] & 0x0F) << 8 | Int(b[s + 11]))
                    while p + 5 <= end {
                        let es = Int(b[p + 1] & 0x1F) << 8 | Int(b[p + 2])
                        put13(&b, p + 1, map[es] ?? es)
                        p += 5 + (Int(b[p + 3] & 0x0F) << 8 | Int(b[p + 4]))
                    }
                    sealCRC(&b, s, end)
                }
            }
            if let to = map[pid] { put13(&b, i + 1, to) }
        }
    }

    /// Offset of the PSI section starting in the packet at `i` (payload unit start, pointer
    /// field), when the whole section lies in the packet.
    private static func section(_ b: [UInt8], _ i: Int) -> Int? {
        guard b[i + 1] & 0x40 != 0 else { return nil }
        let afc = (b[i + 3] >> 4) & 0x03
        guard afc & 0x01 != 0 else { return nil }
        var p = i + 4
        if afc & 0x02 != 0 { p += 1 + Int(b[p]) }
        guard p < i + size else { return nil }
        p += 1 + Int(b[p])   // pointer field
        guard p + 3 <= i + size, p + 3 + sectionLength(b, p) <= i + size, sectionLength(b, p) >= 9 else { return nil }
        return p
    }

    private static func sectionLength(_ b: [UInt8], _ s: Int) -> Int { Int(b[s + 1] & 0x0F) << 8 | Int(b[s + 2]) }

    private static func put16(_ b: inout [UInt8], _ p: Int, _ v: Int) {
        b[p] = UInt8(truncatingIfNeeded: v >> 8); b[p + 1] = UInt8(truncatingIfNeeded: v)
    }

    /// A 13-bit PID after 3 flag bits.
    private static func put13(_ b: inout [UInt8], _ p: Int, _ v: Int) {
        b[p] = (b[p] & 0xE0) | UInt8((v >> 8) & 0x1F); b[p + 1] = UInt8(v & 0xFF)
    }

    /// Writes the MPEG-2 CRC-32 of the section `s..<end` at `end`.
    private static func sealCRC(_ b: inout [UInt8], _ s: Int, _ end: Int) {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in b[s..<end] {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        b[end] = UInt8(crc >> 24); b[end + 1] = UInt8((crc >> 16) & 0xFF); b[end + 2] = UInt8((crc >> 8) & 0xFF); b[end + 3] = UInt8(crc & 0xFF)
    }
}
