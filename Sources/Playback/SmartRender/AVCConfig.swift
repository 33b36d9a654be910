/// H.264 parameter-set plumbing for smart rendering: the content's `avcC` record, the encoder's
/// Annex B header, and one `avcC` holding both, so that copied packets (which use the content's
/// SPS/PPS id 0) and re-encoded ones (libx264 with `sps-id=1`) decode from one sample entry.
struct AVCConfig: Equatable {
    /// The five header bytes: version, profile, compatibility, level, length size.
    var header: [UInt8]
    var sps: [[UInt8]]
    var pps: [[UInt8]]
    /// Whatever follows the PPS list (the High-profile chroma/bit-depth fields), kept as is.
    var trailer: [UInt8]

    /// Bytes of each NAL unit's length prefix.
    var lengthSize: Int { Int(header[4] & 0x03) + 1 }

    /// Parses an `avcC` record; nil when malformed.
    init?(avcC b: [UInt8]) {
        guard b.count >= 7, b[0] == 1 else { return nil }
        var i = 6
        func list(_ count: Int) -> [[UInt8]]? {
            var out: [[UInt8]] = []
            for _ in 0..<count {
                guard i + 2 <= b.count else { return nil }
                let n = Int(b[i]) << 8 | Int(b[i + 1])
                i += 2
                guard i + n <= b.count, n > 0 else { return nil }
                out.append(Array(b[i..<i + n]))
                i += n
            }
            return out
        }
        guard let sps = list(Int(b[5] & 0x1F)), !sps.isEmpty, i < b.count else { return nil }
        let ppsCount = Int(b[i]); i += 1
        guard let pps = list(ppsCount), !pps.isEmpty else { return nil }
        header = Array(b[0..<5])
        self.sps = sps
        self.pps = pps
        trailer = Array(b[i...])
    }

    init(header: [UInt8], sps: [[UInt8]], pps: [[UInt8]], trailer: [UInt8]) {
        self.header = header; self.sps = sps; self.pps = pps; self.trailer = trailer
    }

    /// The record's bytes.
    var bytes: [UInt8] {
        var out = header
        out.append(0xE0 | UInt8(sps.count))
        for s in sps { out += [UInt8(s.count >> 8), UInt8(s.count & 0xFF)] + s }
        out.append(UInt8(pps.count))
        for p in pps { out += [UInt8(p.count >> 8), UInt8(p.count & 0xFF)] + p }
        return out + trailer
    }

    /// This record with `other`'s parameter sets appended.
    func adding(sps more: [[UInt8]], pps morePPS: [[UInt8]]) -> AVCConfig {
        AVCConfig(header: header, sps: sps + more, pps: pps + morePPS, trailer: trailer)
    }

    /// NAL units of an Annex B byte stream (start codes removed).
    static func annexBUnits(_ b: [UInt8]) -> [[UInt8]] {
        var starts: [(at: Int, code: Int)] = []
        var i = 0
        while i + 2 < b.count {
            if b[i] == 0, b[i + 1] == 0, b[i + 2] == 1 {
                starts.append((i + 3, 3)); i += 3
            } else { i += 1 }
        }
        var units: [[UInt8]] = []
        for (k, s) in starts.enumerated() {
            var end = k + 1 < starts.count ? starts[k + 1].at - 3 : b.count
            while end > s.at, b[end - 1] == 0 { end -= 1 }   // a 4-byte start code's leading zero, trailing zeros
            if end > s.at { units.append(Array(b[s.at..<end])) }
        }
        return units
    }

    /// NAL units each prefixed with its 4-byte big-endian length (the form MP4 samples take).
    static func lengthPrefixed(_ units: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(units.reduce(0) { $0 + $1.count + 4 })
        for u in units {
            let n = UInt32(u.count)
            out += [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
            out += u
        }
        return out
    }

    /// The NAL unit types (low 5 bits of each header) in a length-prefixed packet; nil when malformed.
    static func nalTypes(lengthPrefixed b: [UInt8], lengthSize: Int) -> [UInt8]? {
        var i = 0
        var types: [UInt8] = []
        while i < b.count {
            guard i + lengthSize <= b.count else { return nil }
            var n = 0
            for k in 0..<lengthSize { n = n << 8 | Int(b[i + k]) }
            i += lengthSize
            guard n > 0, i + n <= b.count else { return nil }
            types.append(b[i] & 0x1F)
            i += n
        }
        return types
    }

    /// The id an SPS declares (its first ue(v) after profile, constraints and level), or a PPS
    /// declares (its first ue(v)); nil when unreadable.
    static func parameterSetID(_ nal: [UInt8]) -> Int? {
        let type = nal.first.map { $0 & 0x1F }
        let offset = type == 7 ? 4 : type == 8 ? 1 : -1
        guard offset > 0, nal.count > offset else { return nil }
        var reader = ExpGolombReader(Array(nal[offset...]))
        return reader.ue()
    }
}

/// Reads Exp-Golomb codes (no emulation-prevention handling: enough for the first fields).
struct ExpGolombReader {
    private let bytes: [UInt8]
    private var bit = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    private mutating func next() -> Int? {
        guard bit / 8 < bytes.count else { return nil }
        let v = Int(bytes[bit / 8] >> (7 - UInt8(bit % 8))) & 1
        bit += 1
        return v
    }

    /// ue(v).
    mutating func ue() -> Int? {
        var zeros = 0
        while true {
            guard let b = next() else { return nil }
            if b == 1 { break }
            zeros += 1
            if zeros > 31 { return nil }
        }
        var value = 0
        for _ in 0..<zeros { guard let b = next() else { return nil }; value = value << 1 | b }
        return (1 << zeros) - 1 + value
    }
}
