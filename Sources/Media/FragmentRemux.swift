import Foundation
import Timing

/// A CMAF (fragmented MP4) media segment as an MPEG-TS segment: its video and audio packets
/// copied unchanged (no decode, no encode) from its initialization segment and the segment into
/// libavformat's MPEG-TS muxer, timestamps kept on the segment's own clock (`tfdt`) moved by a
/// fixed `shift`, so that consecutive segments of one track follow one another in TS as they do
/// in CMAF. The MP4 side is opened as ad media is (the MOV demuxer, the file protocol only):
/// the bytes come from a network.
public enum FragmentRemux {
    /// Writes `output` (MPEG-TS) from `initialization` and `segment` (fMP4 files). `shift` (added
    /// to every timestamp) keeps decode times that start before the first presentation time
    /// (B-frames) above zero, where MPEG-TS needs them. Throws `MediaError` for a segment that is
    /// not fragmented MP4 with H.264 video.
    public static func mpegTS(initialization: URL, segment: URL, to output: URL, shift: MediaTime = .zero) throws {
        let joined = output.deletingLastPathComponent().appendingPathComponent(".\(output.lastPathComponent).\(getpid()).mp4")
        defer { try? FileManager.default.removeItem(at: joined) }
        var bytes = try Data(contentsOf: initialization)
        bytes.append(try Data(contentsOf: segment))
        try bytes.write(to: joined)
        let demuxer = try Demuxer(url: joined.path, policy: .adMedia)
        guard let video = demuxer.bestStream(.video), demuxer.streams[video].codecName == "h264" else {
            throw MediaError.unsupported("a CMAF segment without H.264 video")
        }
        let audio = demuxer.bestStream(.audio)
        let kept = [video] + (audio.map { [$0] } ?? [])
        demuxer.keepOnly(Set(kept))
        let muxer = try Muxer(url: output.path, formatName: "mpegts")
        var outIndex: [Int: Int] = [:]
        for i in kept { outIndex[i] = try muxer.addStream(copying: i, of: demuxer) }
        // the timestamps as they are: no muxing delay added
        try muxer.writeHeader(options: ["mpegts_copyts": "1"])
        let packet = try Packet()
        var wrote = 0
        while try demuxer.read(into: packet) == .packet {
            guard let out = outIndex[packet.streamIndex] else { continue }
            let tb = demuxer.timeBase(of: packet.streamIndex)
            let offset = MediaTime(value: shift.value * tb.denominator, timescale: shift.timescale * tb.numerator)
                .rescaled(to: 1, rounding: .nearest).value
            packet.setTimestamps(pts: packet.ptsTicks.map { $0 + offset }, dts: packet.dtsTicks.map { $0 + offset })
            try muxer.write(packet, stream: out)
            wrote += 1
        }
        try muxer.finish()
        guard wrote > 0 else { throw MediaError.unsupported("a CMAF segment without samples") }
    }
}
