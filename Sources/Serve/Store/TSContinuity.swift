import Foundation

/// MPEG-TS continuity counters of whole files, so that a piece written by its own muxer (a shared
/// cut's head or tail, a slate piece) joins the segments around it without a counter jump that
/// strict clients (GStreamer's tsdemux) treat as lost packets.
///
/// A packet's 4-bit counter goes up by one per packet of its PID that carries a payload; adding
/// the same amount to every counter of a PID keeps a file's own sequence intact and moves where
/// it starts and ends.
enum TSContinuity {
    static let packetSize = 188

    /// Per PID, the counter of the last packet with a payload.
    static func lastCounters(_ data: [UInt8]) -> [Int: UInt8] {
        var out: [Int: UInt8] = [:]
        forEachPacket(data) { offset, pid, hasPayload in
            if hasPayload { out[pid] = data[offset + 3] & 0x0F }
        }
        return out
    }

    /// Per PID, the counter of the first packet with a payload.
    static func firstCounters(_ data: [UInt8]) -> [Int: UInt8] {
        var out: [Int: UInt8] = [:]
        forEachPacket(data) { offset, pid, hasPayload in
            if hasPayload && out[pid] == nil { out[pid] = data[offset + 3] & 0x0F }
        }
        return out
    }

    /// Adds `shift[pid]` (mod 16) to every counter of each PID named.
    static func shift(_ data: inout [UInt8], by shift: [Int: UInt8]) {
        guard !shift.isEmpty else { return }
        var offsets: [(Int, UInt8)] = []
        forEachPacket(data) { offset, pid, _ in
            if let s = shift[pid] { offsets.append((offset, s)) }
        }
        for (offset, s) in offsets {
            let b = data[offset + 3]
            data[offset + 3] = (b & 0xF0) | ((b &+ s) & 0x0F)
        }
    }

    /// Makes `data` start each PID's counters right after `previous` (the counters a client last
    /// saw): the file continues that stream.
    static func continuing(_ data: inout [UInt8], after previous: [Int: UInt8]) {
        let first = firstCounters(data)
        var s: [Int: UInt8] = [:]
        for (pid, f) in first { if let p = previous[pid] { s[pid] = (p &+ 1 &- f) & 0x0F } }
        shift(&data, by: s)
    }

    /// Makes `data` end each PID's counters at `next` (the counters the file it stands for ended
    /// at): the segment after it continues from it.
    static func ending(_ data: inout [UInt8], at target: [Int: UInt8]) {
        let last = lastCounters(data)
        var s: [Int: UInt8] = [:]
        for (pid, l) in last { if let t = target[pid] { s[pid] = (t &- l) & 0x0F } }
        shift(&data, by: s)
    }

    private static func forEachPacket(_ data: [UInt8], _ body: (Int, Int, Bool) -> Void) {
        var offset = 0
        while offset + packetSize <= data.count {
            if data[offset] == 0x47 {
                let pid = Int(data[offset + 1] & 0x1F) << 8 | Int(data[offset + 2])
                let afc = (data[offset + 3] >> 4) & 0x03
                if pid != 0x1FFF { body(offset, pid, afc == 1 || afc == 3) }
            }
            offset += packetSize
        }
    }
}
