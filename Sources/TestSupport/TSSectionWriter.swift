import Foundation

/// Writes PSI/SCTE-35 sections into 188-byte MPEG-TS packets, for tests of in-band signal
/// readers (ffmpeg's muxer cannot write SCTE-35): a PAT, a PMT naming an H.264 PID and a
/// stream_type 0x86 PID, and sections split across packets with pointer fields.
public struct TSSectionWriter {
    /// The PMT's PID, the SCTE-35 PID and the (absent) video PID the PMT names.
    public let pmtPID: Int, scte35PID: Int, videoPID: Int
    private var counters: [Int: UInt8] = [:]

    /// A writer for one program.
    public init(pmtPID: Int = 0x1000, scte35PID: Int = 500, videoPID: Int = 256) {
        self.pmtPID = pmtPID; self.scte35PID = scte35PID; self.videoPID = videoPID
    }

    /// PAT and PMT packets.
    public mutating func programTables() -> [UInt8] {
        let pat = Self.psi(table: 0x00, id: 1, body: [0x00, 0x01, 0xE0 | UInt8(pmtPID >> 8), UInt8(pmtPID & 0xFF)])
        var pmt: [UInt8] = [0xE0 | UInt8(videoPID >> 8), UInt8(videoPID & 0xFF), 0xF0, 0x00]   // PCR PID, program_info_length 0
        pmt += [0x1B, 0xE0 | UInt8(videoPID >> 8), UInt8(videoPID & 0xFF), 0xF0, 0x00]
        pmt += [0x86, 0xE0 | UInt8(scte35PID >> 8), UInt8(scte35PID & 0xFF), 0xF0, 0x00]
        return packets([pat], pid: 0) + packets([Self.psi(table: 0x02, id: 1, body: pmt)], pid: pmtPID)
    }

    /// `sections` back to back on the SCTE-35 PID (a packet may hold the end of one and the
    /// start of the next; a long one spans packets).
    public mutating func scte35(_ sections: [[UInt8]]) -> [UInt8] { packets(sections, pid: scte35PID) }

    /// `sections` as payload on `pid`, stuffed with 0xFF.
    public mutating func packets(_ sections: [[UInt8]], pid: Int) -> [UInt8] {
        // Byte stream with pointer fields: each packet that starts a section gets one.
        let data = sections.flatMap { $0 }
        var starts: [Int] = [], o = 0
        for s in sections { starts.append(o); o += s.count }
        var out: [UInt8] = [], at = 0
        while at < data.count {
            let next = starts.first { $0 >= at && $0 < at + 183 }
            var payload: [UInt8] = []
            if let n = next { payload.append(UInt8(n - at)) }
            let room = next == nil && starts.contains(at + 183) ? 183 : 184 - payload.count
            let take = min(room, data.count - at)
            payload += data[at..<(at + take)]
            at += take
            payload += [UInt8](repeating: 0xFF, count: 184 - payload.count)
            let cc = counters[pid, default: 0]
            counters[pid] = (cc + 1) & 0x0F
            out += [0x47, (next != nil ? 0x40 : 0) | UInt8(pid >> 8), UInt8(pid & 0xFF), 0x10 | cc] + payload
        }
        return out
    }

    static func psi(table: UInt8, id: UInt16, body: [UInt8]) -> [UInt8] {
        let length = 5 + body.count + 4
        var s: [UInt8] = [table, 0xB0 | UInt8(length >> 8), UInt8(length & 0xFF), UInt8(id >> 8), UInt8(id & 0xFF), 0xC1, 0, 0] + body
        var crc: UInt32 = 0xFFFF_FFFF
        for b in s { crc ^= UInt32(b) << 24; for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 } }
        s += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        return s
    }
}
