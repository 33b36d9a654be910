import Foundation
import Media

/// H.264 packets of an MP4 (`avcC`, NAL lengths) in Annex B for MPEG-TS, with the `avcC`'s SPS
/// and PPS before every IDR that lacks its own, as `h264_mp4toannexb` does. Converting in the
/// caller rather than in FFmpeg's automatic filter lets one TS stream carry both copied packets
/// and an encoder's Annex B packets (the filter is chosen once, from a stream's first packet).
package struct AVCAnnexB: Sendable {
    private let sets: [[UInt8]]
    private let lengthSize: Int
    /// The `avc1.PPCCLL` CODECS value of the stream (profile, constraints, level of its SPS).
    public let codecs: String

    /// For an `avcC` record (a stream's extradata); nil when it is not one.
    public init?(avcC: [UInt8]) {
        guard let config = AVCConfig(avcC: avcC) else { return nil }
        sets = config.sps + config.pps
        lengthSize = config.lengthSize
        codecs = "avc1." + config.header[1...3].map { String(format: "%02X", $0) }.joined()
    }

    /// Whether NAL unit `unit` is an IDR slice.
    static func isIDR(_ unit: [UInt8]) -> Bool { unit.first.map { $0 & 0x1F } == 5 }

    /// Rewrites `packet` (NAL lengths) as Annex B, with the parameter sets before an IDR picture.
    public func convert(_ packet: Packet) throws {
        guard var units = NALUnits.split(lengthPrefixed: packet.bytes, lengthSize: lengthSize) else {
            throw MediaError.unsupported("a malformed H.264 packet")
        }
        if units.contains(where: AVCAnnexB.isIDR), !units.contains(where: { $0.first.map { $0 & 0x1F } == 7 }) {
            units = sets + units
        }
        try packet.replacePayload(with: NALUnits.annexB(units))
    }
}
