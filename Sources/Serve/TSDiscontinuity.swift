import Foundation

/// Marks the start of a new stream in a stored MPEG-TS segment without touching its packets: one
/// adaptation-only packet per elementary stream, `discontinuity_indicator` set, placed before the
/// stream's first packet with the continuity counter just before that packet's. A reader that
/// checks continuity across segments (FFmpeg's HLS reader feeds every segment to one demuxer)
/// then accepts the jump from the previous run's counters. Pure.
public enum TSDiscontinuity {
    static let packetSize = 188

    /// A PES stream's first continuity counter in a segment.
    public struct Counter: Sendable, Hashable, Codable {
        /// The stream's PID (0x10…0x1FFE).
        public var pid: Int
        /// The continuity counter of its first packet (0…15).
        public var cc: UInt8

        /// A counter.
        public init(pid: Int, cc: UInt8) { self.pid = pid; self.cc = cc }

        /// Whether it can be a PES stream's counter.
        public var isValid: Bool { (0x10...0x1FFE).contains(pid) && cc < 16 }
    }

    /// `data` with the marker packets in front; unchanged when it holds no PES stream.
    public static func marked(_ data: Data) -> Data {
        guard let firstCC = firstCounters(data), !firstCC.isEmpty else { return data }
        var out = Data(capacity: data.count + firstCC.count * packetSize)
        out.append(leadingInto(firstCC))
        out.append(data)
        return out
    }

    /// The first continuity counter of each PES stream of `data` (its first packet starts a PES
    /// packet), in the order they come; nil when `data` is not aligned MPEG-TS.
    public static func firstCounters(_ data: Data) -> [Counter]? {
        let b = [UInt8](data)
        var firstCC: [Counter] = []
        var seen = Set<Int>()
        var i = 0
        while i + packetSize <= b.count {
            guard b[i] == 0x47 else { return nil }
            let pid = Int(b[i + 1] & 0x1F) << 8 | Int(b[i + 2])
            let pusi = b[i + 1] & 0x40 != 0
            let afc = (b[i + 3] >> 4) & 0x3
            if !seen.contains(pid), pusi, afc & 0x1 != 0 {
                let start = afc & 0x2 != 0 ? i + 5 + Int(b[i + 4]) : i + 4
                if start + 3 <= i + packetSize, b[start] == 0, b[start + 1] == 0, b[start + 2] == 1 {
                    seen.insert(pid)
                    firstCC.append(Counter(pid: pid, cc: b[i + 3] & 0x0F))
                }
            }
            if pid != 0x1FFF { seen.insert(pid) }   // only a stream's very first packet counts
            i += packetSize
        }
        return firstCC
    }

    /// The marker packets that let a reader go on into a segment whose streams start at
    /// `counters`: per stream an adaptation-only packet, `discontinuity_indicator` set, whose
    /// continuity counter is the one just before the stream's first. Put in front of a segment
    /// (`marked`), or after the segment before one that cannot be touched (an encrypted one).
    public static func leadingInto(_ counters: [Counter]) -> Data {
        var out = Data(capacity: counters.count * packetSize)
        for c in counters where c.isValid {
            var p = [UInt8](repeating: 0xFF, count: packetSize)
            p[0] = 0x47
            p[1] = UInt8(c.pid >> 8) & 0x1F
            p[2] = UInt8(c.pid & 0xFF)
            p[3] = 0x20 | ((c.cc &+ 15) & 0x0F)   // adaptation field only; the counter before the stream's first
            p[4] = 183                            // adaptation_field_length: the rest of the packet
            p[5] = 0x80                           // discontinuity_indicator
            out.append(contentsOf: p)
        }
        return out
    }
}
