/// An HEVC decoder configuration record (`hvcC`, ISO/IEC 14496-15 §8.3.3) as far as smart
/// rendering needs it: the tier, the NAL length size and the parameter sets (VPS, SPS, PPS).
///
/// Smart rendering of HEVC keeps the content's `hvcC` as the track's sample entry and carries
/// parameter sets in band (`hev1`): libx265 numbers its VPS/SPS/PPS 0 like most encoders, and
/// unlike libx264 it cannot be told other ids, so the encoder's sets go before every encoded IDR
/// and the content's sets before every copied keyframe (`SmartOutput`): a decoder that seeks to
/// any sync sample finds the sets it needs there, whatever it decoded before (FFmpeg 5.1's mov
/// muxer cannot write a second sample entry). Those copied packets gain the sets in front; their
/// slices are unchanged.
struct HVCConfig: Equatable {
    /// The record as stored.
    let bytes: [UInt8]
    /// Whether the stream is high tier.
    let highTier: Bool
    /// `general_profile_idc` (1 Main, 2 Main 10).
    let profileIDC: Int
    /// Bytes of each NAL unit's length prefix.
    let lengthSize: Int
    /// The parameter set NAL units (VPS, SPS, PPS, and any SEI kept in the record), in order.
    let units: [[UInt8]]

    init?(hvcC b: [UInt8]) {
        guard b.count >= 23, b[0] == 1 else { return nil }
        highTier = b[1] & 0x20 != 0
        profileIDC = Int(b[1] & 0x1F)
        lengthSize = Int(b[21] & 0x03) + 1
        var i = 23
        var units: [[UInt8]] = []
        for _ in 0..<Int(b[22]) {
            guard i + 3 <= b.count else { return nil }
            let count = Int(b[i + 1]) << 8 | Int(b[i + 2])
            i += 3
            for _ in 0..<count {
                guard i + 2 <= b.count else { return nil }
                let n = Int(b[i]) << 8 | Int(b[i + 1])
                i += 2
                guard n > 0, i + n <= b.count else { return nil }
                units.append(Array(b[i..<i + n]))
                i += n
            }
        }
        bytes = b
        self.units = units
    }

    /// The VPS, SPS and PPS among `units`.
    var parameterSets: [[UInt8]] { units.filter { Self.isParameterSet($0) } }

    /// The NAL unit type of an HEVC NAL unit (6 bits after the forbidden bit).
    static func nalType(_ unit: [UInt8]) -> Int? { unit.first.map { Int($0 >> 1) & 0x3F } }

    /// Whether a NAL unit is a VPS (32), SPS (33) or PPS (34).
    static func isParameterSet(_ unit: [UInt8]) -> Bool { nalType(unit).map { (32...34).contains($0) } ?? false }

    /// Whether a NAL unit is an IDR picture's slice (19 IDR_W_RADL, 20 IDR_N_LP).
    static func isIDR(_ unit: [UInt8]) -> Bool { nalType(unit).map { $0 == 19 || $0 == 20 } ?? false }

    /// Whether a NAL unit is an IRAP picture's slice (16…23: BLA, IDR, CRA).
    static func isIRAP(_ unit: [UInt8]) -> Bool { nalType(unit).map { (16...23).contains($0) } ?? false }
}
