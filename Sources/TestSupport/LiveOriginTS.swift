import Foundation

/// MPEG-TS reading and rewriting for `LiveOrigin`, independent of the engine: the video PTS of a
/// segment, and in-band SCTE-35 added to a segment made by ffmpeg's muxer (which cannot write it):
/// every PMT rebuilt with a `CUEI` registration descriptor and a stream_type 0x86 entry, the
/// sections' packets inserted right after the first PMT.
public enum LiveOriginTS {
    /// The SCTE-35 PID the origin adds (ffmpeg's muxer uses 0x100/0x101 for video/audio, 0x1000 for the PMT).
    public static let scte35PID = 500

    /// The PMT PIDs the PAT names (program_number ≠ 0).
    static func pmtPIDs(_ b: [UInt8]) -> Set<Int> {
        var out: Set<Int> = []
        forEachSection(b, pid: 0) { s in
            guard s.first == 0x00, s.count >= 12 else { return }
            var i = 8
            while i + 4 <= s.count - 4 {
                let program = Int(s[i]) << 8 | Int(s[i + 1])
                if program != 0 { out.insert(Int(s[i + 2] & 0x1F) << 8 | Int(s[i + 3])) }
                i += 4
            }
        }
        return out
    }

    /// The elementary streams the PMTs list: (stream_type, PID).
    static func streams(_ b: [UInt8]) -> [(type: UInt8, pid: Int)] {
        var out: [(UInt8, Int)] = []
        for pmt in pmtPIDs(b) {
            forEachSection(b, pid: pmt) { s in
                guard s.first == 0x02, s.count >= 16 else { return }
                var i = 12 + (Int(s[10] & 0x0F) << 8 | Int(s[11]))
                while i + 5 <= s.count - 4 {
                    let entry = (s[i], Int(s[i + 1] & 0x1F) << 8 | Int(s[i + 2]))
                    if !out.contains(where: { $0 == entry }) { out.append(entry) }
                    i += 5 + (Int(s[i + 3] & 0x0F) << 8 | Int(s[i + 4]))
                }
            }
        }
        return out
    }

    /// The PTS of every video PES (stream_type 0x1B or 0x24) in `b`, in stream (decode) order.
    public static func videoPTS(_ b: [UInt8]) -> [Int64] {
        let video = Set(streams(b).filter { $0.type == 0x1B || $0.type == 0x24 }.map(\.pid))
        var out: [Int64] = []
        forEachPacket(b) { p, pid, start, payload in
            guard start, video.contains(pid), payload + 14 <= p + 188,
                  b[payload] == 0, b[payload + 1] == 0, b[payload + 2] == 1, b[payload + 7] & 0x80 != 0 else { return }
            let q = payload + 9
            let pts = Int64(b[q] >> 1 & 0x07) << 30 | Int64(b[q + 1]) << 22 | Int64(b[q + 2] >> 1) << 15
                | Int64(b[q + 3]) << 7 | Int64(b[q + 4] >> 1)
            out.append(pts)
        }
        return out
    }

    /// `segment` with its PMTs listing `scte35PID` (stream_type 0x86, `CUEI` registration) and
    /// `sections` each in its own packet(s) on that PID right after the first PMT, continuity
    /// counters starting at `continuity` (mod 16). Throws when the segment has no PAT/PMT or a
    /// rebuilt PMT does not fit its packet.
    public static func addingSCTE35(_ segment: [UInt8], sections: [[UInt8]], continuity: Int = 0) throws -> [UInt8] {
        let pmts = pmtPIDs(segment)
        guard !pmts.isEmpty else { throw VerifierError.malformedOutput("segment has no PAT naming a PMT") }
        var out: [UInt8] = []
        out.reserveCapacity(segment.count + 188 * (sections.count + 1))
        var inserted = false, cc = continuity
        var rewrote = 0
        for p in stride(from: 0, to: segment.count - 187, by: 188) {
            var packet = Array(segment[p..<(p + 188)])
            let pid = Int(packet[1] & 0x1F) << 8 | Int(packet[2])
            if pmts.contains(pid), packet[1] & 0x40 != 0 {
                packet = try rewritePMT(packet)
                rewrote += 1
                out += packet
                if !inserted {
                    inserted = true
                    var writer = TSSectionWriter(scte35PID: scte35PID)
                    for s in sections {
                        var bytes = writer.packets([s], pid: scte35PID)
                        for q in stride(from: 0, to: bytes.count, by: 188) {
                            bytes[q + 3] = (bytes[q + 3] & 0xF0) | UInt8(cc & 0x0F)
                            cc += 1
                        }
                        out += bytes
                    }
                }
            } else {
                out += packet
            }
        }
        guard rewrote > 0 else { throw VerifierError.malformedOutput("segment has no PMT packet") }
        return out
    }

    /// Moves every timestamp of `b` by `ticks` (modulo 2^33): each PES header's PTS and DTS
    /// (a packet starting a payload that begins 00 00 01) and each adaptation field's PCR base,
    /// as an origin whose clock jumps writes them. PSI and SCTE-35 packets are left alone.
    public static func shiftTimestamps(_ b: inout [UInt8], by ticks: Int64) {
        let wrap: Int64 = 1 << 33
        func move(_ v: Int64) -> Int64 { (((v + ticks) % wrap) + wrap) % wrap }
        func readPTS(_ q: Int) -> Int64 {
            Int64(b[q] >> 1 & 0x07) << 30 | Int64(b[q + 1]) << 22 | Int64(b[q + 2] >> 1) << 15 | Int64(b[q + 3]) << 7 | Int64(b[q + 4] >> 1)
        }
        func writePTS(_ q: Int, _ v: Int64) {
            b[q] = (b[q] & 0xF1) | UInt8((v >> 29) & 0x0E)
            b[q + 1] = UInt8((v >> 22) & 0xFF)
            b[q + 2] = UInt8((v >> 14) & 0xFE) | 1
            b[q + 3] = UInt8((v >> 7) & 0xFF)
            b[q + 4] = UInt8((v << 1) & 0xFE) | 1
        }
        for p in stride(from: 0, to: b.count - 187, by: 188) where b[p] == 0x47 {
            let afc = (b[p + 3] >> 4) & 3
            var o = p + 4
            if afc & 2 != 0 {
                let length = Int(b[p + 4])
                if length >= 7, b[p + 5] & 0x10 != 0 {   // PCR: 33-bit base, 6 reserved, 9-bit extension
                    let q = p + 6
                    let base = Int64(b[q]) << 25 | Int64(b[q + 1]) << 17 | Int64(b[q + 2]) << 9 | Int64(b[q + 3]) << 1 | Int64(b[q + 4] >> 7)
                    let v = move(base)
                    b[q] = UInt8((v >> 25) & 0xFF); b[q + 1] = UInt8((v >> 17) & 0xFF); b[q + 2] = UInt8((v >> 9) & 0xFF)
                    b[q + 3] = UInt8((v >> 1) & 0xFF); b[q + 4] = (b[q + 4] & 0x7F) | UInt8((v & 1) << 7)
                }
                o += 1 + length
            }
            guard afc & 1 != 0, b[p + 1] & 0x40 != 0, o + 19 <= p + 188,
                  b[o] == 0, b[o + 1] == 0, b[o + 2] == 1 else { continue }
            let flags = b[o + 7] >> 6
            if flags & 0x2 != 0 { writePTS(o + 9, move(readPTS(o + 9))) }
            if flags == 0x3 { writePTS(o + 14, move(readPTS(o + 14))) }
        }
    }

    /// The number of packets `sections` take on the SCTE-35 PID (each section starts a packet).
    public static func packetCount(_ sections: [[UInt8]]) -> Int {
        sections.reduce(0) { $0 + max(1, ($1.count + 1 + 183) / 184) }
    }

    /// One PMT packet (section starting in it) with the 0x86 entry and the registration descriptor.
    static func rewritePMT(_ packet: [UInt8]) throws -> [UInt8] {
        let afc = (packet[3] >> 4) & 3
        var o = 4
        if afc & 2 != 0 { o += 1 + Int(packet[4]) }
        guard afc & 1 != 0, o < 188 else { throw VerifierError.malformedOutput("PMT packet without payload") }
        let pointer = Int(packet[o])
        let s0 = o + 1 + pointer
        guard s0 + 3 <= 188, packet[s0] == 0x02 else { throw VerifierError.malformedOutput("PMT packet without a PMT section") }
        let length = Int(packet[s0 + 1] & 0x0F) << 8 | Int(packet[s0 + 2])
        guard s0 + 3 + length <= 188, length >= 13 else { throw VerifierError.malformedOutput("PMT section spans packets") }
        let s = Array(packet[s0..<(s0 + 3 + length)])
        let infoLength = Int(s[10] & 0x0F) << 8 | Int(s[11])
        var info = Array(s[12..<(12 + infoLength)])
        var loop = Array(s[(12 + infoLength)..<(s.count - 4)])
        let cuei: [UInt8] = [0x05, 0x04, 0x43, 0x55, 0x45, 0x49]
        if !contains(info, cuei) { info += cuei }
        let entry: [UInt8] = [0x86, 0xE0 | UInt8(scte35PID >> 8), UInt8(scte35PID & 0xFF), 0xF0, 0x00]
        if !contains(loop, Array(entry[0..<3])) { loop += entry }
        var body = Array(s[3..<10])   // program_number, version, section numbers, PCR PID
        body += [0xF0 | UInt8(info.count >> 8), UInt8(info.count & 0xFF)] + info + loop
        let newLength = body.count + 4
        var section: [UInt8] = [0x02, (s[1] & 0xF0) | UInt8(newLength >> 8), UInt8(newLength & 0xFF)] + body
        let crc = crc32MPEG2(section)
        section += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        var out = Array(packet[0..<(o + 1 + pointer)]) + section
        guard out.count <= 188 else { throw VerifierError.malformedOutput("rebuilt PMT does not fit its packet") }
        out += [UInt8](repeating: 0xFF, count: 188 - out.count)
        return out
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }

    /// CRC-32/MPEG-2 (polynomial 0x04C11DB7, initial 0xFFFFFFFF, not reflected, no final xor).
    public static func crc32MPEG2(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        return crc
    }

    /// Calls `body(packetOffset, pid, payloadUnitStart, payloadOffset)` for each packet with a payload.
    static func forEachPacket(_ b: [UInt8], _ body: (Int, Int, Bool, Int) -> Void) {
        for p in stride(from: 0, to: b.count - 187, by: 188) where b[p] == 0x47 {
            let afc = (b[p + 3] >> 4) & 3
            guard afc & 1 != 0 else { continue }
            var o = p + 4
            if afc & 2 != 0 { o += 1 + Int(b[p + 4]) }
            guard o < p + 188 else { continue }
            body(p, Int(b[p + 1] & 0x1F) << 8 | Int(b[p + 2]), b[p + 1] & 0x40 != 0, o)
        }
    }

    /// Each PSI section that starts and ends inside one packet on `pid` (ffmpeg's PAT and PMT do).
    static func forEachSection(_ b: [UInt8], pid: Int, _ body: ([UInt8]) -> Void) {
        forEachPacket(b) { p, q, start, o in
            guard q == pid, start else { return }
            let s0 = o + 1 + Int(b[o])
            guard s0 + 3 <= p + 188 else { return }
            let end = s0 + 3 + (Int(b[s0 + 1] & 0x0F) << 8 | Int(b[s0 + 2]))
            guard end <= p + 188 else { return }
            body(Array(b[s0..<end]))
        }
    }
}

/// SCTE-35 `splice_info_section`s written independently of the engine (the same fields as
/// Playback's `SCTE35` writer: pts_adjustment 0, unique_program_id 0, program splice, no UPID),
/// for the cues `LiveOrigin` signals. Times are 90 kHz ticks (taken modulo 2^33).
public enum LiveOriginSCTE35 {
    /// A `splice_insert`: out of network with `breakDuration` (auto_return set), or back in.
    public static func spliceInsert(eventID: UInt32, outOfNetwork: Bool, pts: Int64, breakDuration: Int64?) -> [UInt8] {
        var c = Bits()
        c.put(UInt64(eventID), 32)
        c.put(0, 1); c.put(0x7F, 7)                   // cancel, reserved
        c.put(outOfNetwork ? 1 : 0, 1); c.put(1, 1)   // out_of_network, program_splice
        c.put(breakDuration == nil ? 0 : 1, 1); c.put(0, 1); c.put(0xF, 4)   // duration flag, immediate, reserved
        c.put(1, 1); c.put(0x3F, 6); c.put(ticks(pts), 33)                  // splice_time
        if let d = breakDuration { c.put(outOfNetwork ? 1 : 0, 1); c.put(0x3F, 6); c.put(ticks(d), 33) }
        c.put(0, 16); c.put(0, 8); c.put(0, 8)        // unique_program_id, avail_num, avails_expected
        return section(command: c.bytes, type: 0x05, descriptors: [])
    }

    /// A `time_signal` at `pts` with one segmentation descriptor (`typeID`, e.g. 0x34/0x35
    /// provider placement opportunity start/end), its duration when given.
    public static func timeSignal(pts: Int64, eventID: UInt32, typeID: UInt8, duration: Int64?) -> [UInt8] {
        var c = Bits()
        c.put(1, 1); c.put(0x3F, 6); c.put(ticks(pts), 33)
        var d = Bits()
        d.put(0x4355_4549, 32); d.put(UInt64(eventID), 32)
        d.put(0, 1); d.put(0x7F, 7)
        d.put(1, 1); d.put(duration == nil ? 0 : 1, 1); d.put(1, 1); d.put(0x1F, 5)
        if let t = duration { d.put(UInt64(max(0, t)) & ((1 << 40) - 1), 40) }
        d.put(0, 8); d.put(0, 8)                      // segmentation_upid_type, length
        d.put(UInt64(typeID), 8); d.put(0, 8); d.put(0, 8)
        return section(command: c.bytes, type: 0x06, descriptors: [0x02, UInt8(d.bytes.count)] + d.bytes)
    }

    /// A `splice_null` whose section_length is 0xFFF: a descriptor loop of private descriptors.
    public static func hugeSpliceNull() -> [UInt8] {
        let total = 3 + 0xFFF
        let loop = total - 3 - 11 - 2 - 4                            // header after length, command (0), loop length, CRC
        var descriptors: [UInt8] = []
        while descriptors.count < loop {
            let length = min(255, loop - descriptors.count - 2)
            descriptors += [0xF0, UInt8(length)] + [UInt8](repeating: 0xAB, count: length)
        }
        var s: [UInt8] = [0xFC, 0x3F, 0xFF, 0x00, 0x00, 0, 0, 0, 0, 0x00, 0xFF, 0xF0, 0x00, 0x00]   // …tier, command length 0, splice_null
        s += [UInt8(loop >> 8), UInt8(loop & 0xFF)] + descriptors
        let crc = LiveOriginTS.crc32MPEG2(s)
        return s + [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
    }

    /// A section that declares 4,095 bytes after its length field and carries 1,000.
    public static func truncated() -> [UInt8] {
        [0xFC, 0x3F, 0xFF] + [UInt8](repeating: 0x5A, count: 1_000)
    }

    /// `s` with `splice_command_length` set to `length` and its CRC made valid again.
    public static func setCommandLength(_ s: inout [UInt8], _ length: Int) {
        s[11] = (s[11] & 0xF0) | UInt8(length >> 8)
        s[12] = UInt8(length & 0xFF)
        s.removeLast(4)
        let crc = LiveOriginTS.crc32MPEG2(s)
        s += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
    }

    /// A `private_command` (0xFF) whose `splice_command_length` is 0xFFF.
    public static func privateCommandFFF() -> [UInt8] {
        let command: [UInt8] = [0x43, 0x55, 0x45, 0x49, 1, 2, 3, 4]
        var s: [UInt8] = [0xFC, 0x30, 0x00, 0x00, 0, 0, 0, 0, 0, 0x00, 0xFF, 0xFF, 0xFF, 0xFF] + command + [0x00, 0x00]
        let length = s.count + 4 - 3
        s[1] = 0x30 | UInt8(length >> 8); s[2] = UInt8(length & 0xFF)
        let crc = LiveOriginTS.crc32MPEG2(s)
        return s + [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
    }


    /// `0x` and upper-case hex, as `EXT-X-DATERANGE` carries it.
    public static func hex(_ bytes: [UInt8]) -> String { "0x" + bytes.map { String(format: "%02X", $0) }.joined() }

    static func ticks(_ t: Int64) -> UInt64 { UInt64(max(0, t)) & ((1 << 33) - 1) }

    static func section(command: [UInt8], type: UInt8, descriptors: [UInt8]) -> [UInt8] {
        var s = Bits()
        s.put(0xFC, 8); s.put(0, 1); s.put(0, 1); s.put(3, 2)
        s.put(UInt64(11 + command.count + 2 + descriptors.count + 4), 12)
        s.put(0, 8); s.put(0, 1); s.put(0, 6); s.put(0, 33)   // protocol, not encrypted, pts_adjustment 0
        s.put(0xFF, 8); s.put(0xFFF, 12)
        s.put(UInt64(command.count), 12); s.put(UInt64(type), 8)
        var out = s.bytes + command + [UInt8(descriptors.count >> 8), UInt8(descriptors.count & 0xFF)] + descriptors
        let crc = LiveOriginTS.crc32MPEG2(out)
        out += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        return out
    }

    struct Bits {
        private(set) var bytes: [UInt8] = []
        private var count = 0
        mutating func put(_ value: UInt64, _ bits: Int) {
            for i in stride(from: bits - 1, through: 0, by: -1) {
                if count % 8 == 0 { bytes.append(0) }
                if (value >> UInt64(i)) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(1 << (7 - count % 8)) }
                count += 1
            }
        }
    }
}
