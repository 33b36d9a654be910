/// Finds in-band SCTE-35 in a CMAF (fragmented MP4) segment: its top-level `emsg` boxes (ISO/IEC
/// 23009-1 §5.10.3.3, versions 0 and 1) whose `scheme_id_uri` is `urn:scte:scte35:2013:bin`,
/// each one's `message_data` a whole splice_info_section decoded with `SCTE35Section`. Sections
/// that fail are counted, not returned. Bytes come from the network: every box size and string
/// is bounds-checked, and a box that does not fit ends the scan.
package struct SCTE35EventMessageScan: Sendable {
    /// The scheme that carries SCTE-35 sections in binary.
    public static let scheme = "urn:scte:scte35:2013:bin"

    /// The sections found, in box order.
    public private(set) var sections: [SCTE35Section] = []
    /// `emsg` boxes of the SCTE-35 scheme whose section did not parse (or whose box is malformed).
    public private(set) var rejected = 0

    /// Scans the top-level boxes of `bytes`.
    public init(_ bytes: [UInt8]) {
        var offset = 0
        while offset + 8 <= bytes.count {
            var size = Int(Self.u32(bytes, offset))
            let type = bytes[offset + 4..<offset + 8]
            var header = 8
            if size == 1 {
                guard offset + 16 <= bytes.count else { return }
                let large = Self.u64(bytes, offset + 8)
                guard large <= UInt64(bytes.count) else { return }
                size = Int(large)
                header = 16
            } else if size == 0 {
                size = bytes.count - offset
            }
            guard size >= header, offset + size <= bytes.count else { return }
            if type.elementsEqual("emsg".utf8) { take(bytes, from: offset + header, to: offset + size) }
            offset += size
        }
    }

    /// One `emsg` box's payload (after the box header), `bytes[start..<end]`.
    private mutating func take(_ bytes: [UInt8], from start: Int, to end: Int) {
        guard start + 4 <= end else { return }
        let version = bytes[start]
        var i = start + 4   // version and flags
        func string() -> String? {
            guard let nul = bytes[i..<end].firstIndex(of: 0) else { return nil }
            defer { i = nul + 1 }
            return String(decoding: bytes[i..<nul], as: UTF8.self)
        }
        let scheme: String?
        switch version {
        case 0:
            scheme = string()
            guard scheme != nil, string() != nil else { return }     // value
            i += 16                                                    // timescale, presentation_time_delta, event_duration, id
        case 1:
            i += 20                                                    // timescale, presentation_time (64), event_duration, id
            guard i <= end else { return }
            scheme = string()
            guard scheme != nil, string() != nil else { return }
        default:
            return
        }
        guard scheme == Self.scheme else { return }
        guard i < end, let section = try? SCTE35Section(parsing: Array(bytes[i..<end])) else { rejected += 1; return }
        sections.append(section)
    }

    private static func u32(_ b: [UInt8], _ o: Int) -> UInt32 {
        UInt32(b[o]) << 24 | UInt32(b[o + 1]) << 16 | UInt32(b[o + 2]) << 8 | UInt32(b[o + 3])
    }

    private static func u64(_ b: [UInt8], _ o: Int) -> UInt64 { UInt64(u32(b, o)) << 32 | UInt64(u32(b, o + 4)) }
}
