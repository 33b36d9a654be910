/// Finds in-band SCTE-35 in an MPEG transport stream: reads the PAT and PMTs, takes the PIDs of
/// elementary streams with `stream_type` 0x86, reassembles their sections across packets and
/// decodes each with `SCTE35Section`. Sections that fail (CRC, truncation, one still incomplete
/// at the end of the bytes) are counted, not returned. Bytes come from the network: every length
/// is checked, and a section never holds more than its 12-bit length allows.
package struct SCTE35TransportScan: Sendable {
    /// One cue found in the stream.
    public struct Cue: Sendable, Equatable {
        /// The decoded section.
        public var section: SCTE35Section
        /// The section's bytes (table_id through CRC).
        public var bytes: [UInt8]
        /// The PID it came on.
        public var pid: Int
        /// Index of the TS packet in which the section started.
        public var packetIndex: Int
    }

    /// The cues, in stream order.
    public private(set) var cues: [Cue] = []
    /// Sections on SCTE-35 PIDs that did not parse.
    public private(set) var rejected = 0
    /// The SCTE-35 PIDs the PMTs named.
    public private(set) var scte35PIDs: Set<Int> = []

    /// Scans `bytes`, a whole number of 188-byte packets (a trailing partial packet is ignored).
    public init(_ bytes: [UInt8]) {
        var pmtPIDs: Set<Int> = []
        var partial: [Int: (start: Int, bytes: [UInt8])] = [:]
        let count = bytes.count / 188
        for index in 0..<count {
            let p = index * 188
            guard bytes[p] == 0x47 else { continue }
            let pid = Int(bytes[p + 1] & 0x1F) << 8 | Int(bytes[p + 2])
            let start = bytes[p + 1] & 0x40 != 0
            let afc = (bytes[p + 3] >> 4) & 3
            guard afc & 1 != 0 else { continue }
            var o = p + 4
            if afc & 2 != 0 { o += 1 + Int(bytes[p + 4]) }
            guard o < p + 188 else { continue }
            let payload = Array(bytes[o..<(p + 188)])
            if pid == 0, start {
                for table in Self.sections(payload) where table.first == 0x00 { pmtPIDs.formUnion(Self.patPMTs(table)) }
            } else if pmtPIDs.contains(pid), start {
                for table in Self.sections(payload) where table.first == 0x02 { scte35PIDs.formUnion(Self.pmtSCTE35(table)) }
            } else if scte35PIDs.contains(pid) {
                var data: [UInt8]
                var startIndex: Int
                if start {
                    let pointer = Int(payload[0])
                    guard 1 + pointer <= payload.count else {
                        if partial.removeValue(forKey: pid) != nil { rejected += 1 }
                        continue
                    }
                    if var pending = partial[pid] {        // the bytes before the pointer end the last one
                        pending.bytes += payload[1..<(1 + pointer)]
                        finish(pending.bytes, pid: pid, packet: pending.start)
                    }
                    data = Array(payload[(1 + pointer)...]); startIndex = index
                } else {
                    guard let pending = partial[pid] else { continue }
                    data = pending.bytes + payload; startIndex = pending.start
                }
                partial[pid] = nil
                // Whole sections in `data`; keep an incomplete tail.
                while data.count >= 3, data[0] != 0xFF {
                    let length = 3 + (Int(data[1] & 0x0F) << 8 | Int(data[2]))
                    if data.count < length { partial[pid] = (startIndex, data); break }
                    finish(Array(data[0..<length]), pid: pid, packet: startIndex)
                    data.removeFirst(length)
                }
                if data.count > 0, data.count < 3, data[0] != 0xFF { partial[pid] = (startIndex, data) }
            }
        }
        rejected += partial.count   // cut short by the end of the bytes
    }

    private mutating func finish(_ section: [UInt8], pid: Int, packet: Int) {
        guard section.count >= 3 else { return }
        let length = 3 + (Int(section[1] & 0x0F) << 8 | Int(section[2]))
        guard section.count >= length, let parsed = try? SCTE35Section(parsing: Array(section[0..<length])) else {
            rejected += 1; return
        }
        cues.append(Cue(section: parsed, bytes: Array(section[0..<length]), pid: pid, packetIndex: packet))
    }

    /// The whole PSI sections starting in one payload_unit_start payload.
    static func sections(_ payload: [UInt8]) -> [[UInt8]] {
        guard let pointer = payload.first.map(Int.init), 1 + pointer < payload.count else { return [] }
        var o = 1 + pointer, out: [[UInt8]] = []
        while o + 3 <= payload.count, payload[o] != 0xFF {
            let length = 3 + (Int(payload[o + 1] & 0x0F) << 8 | Int(payload[o + 2]))
            guard o + length <= payload.count, length >= 3 + 5 + 4 else { break }
            out.append(Array(payload[o..<(o + length)])); o += length
        }
        return out
    }

    static func patPMTs(_ s: [UInt8]) -> Set<Int> {
        var out: Set<Int> = []
        var o = 8
        while o + 4 <= s.count - 4 {
            let program = Int(s[o]) << 8 | Int(s[o + 1])
            if program != 0 { out.insert(Int(s[o + 2] & 0x1F) << 8 | Int(s[o + 3])) }
            o += 4
        }
        return out
    }

    static func pmtSCTE35(_ s: [UInt8]) -> Set<Int> {
        guard s.count >= 12 + 4 else { return [] }
        var out: Set<Int> = []
        var o = 12 + (Int(s[10] & 0x0F) << 8 | Int(s[11]))
        while o + 5 <= s.count - 4 {
            let type = s[o], pid = Int(s[o + 1] & 0x1F) << 8 | Int(s[o + 2])
            let info = Int(s[o + 3] & 0x0F) << 8 | Int(s[o + 4])
            if type == 0x86 { out.insert(pid) }
            o += 5 + info
        }
        return out
    }
}
