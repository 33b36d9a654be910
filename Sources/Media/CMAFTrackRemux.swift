import CFFmpeg
import Foundation
import Timing

/// One track of an MPEG-TS segment as a CMAF track: its initialization segment (`ftyp` +
/// `moov`) and one media segment (`sidx`, `moof` with `tfdt`, `mdat`), the packets copied (no
/// decode, no encode) into libavformat's mp4 muxer in fragmented mode, as `CMAFSegmentWriter`
/// writes a package's tracks. Timestamps stay the segment's own: `tfdt` is its first decode
/// time, so consecutive segments of one stored run follow one another in CMAF as in TS, and a
/// DASH Period says where they play by its `presentationTimeOffset`.
///
/// H.264 and HEVC get the sample entries that allow parameter sets in band (`avc3`, `hev1`): a
/// Period's segments can come from different encodes of one rendition (content copied from its
/// package, the re-encoded GOP of a cut) whose SPS/PPS differ. AAC, framed as ADTS in
/// MPEG-TS, goes through `aac_adtstoasc`. The TS file is opened as ad media is (the MPEG-TS
/// demuxer through the file protocol only).
public enum CMAFTrackRemux {
    /// An initialization segment and a media segment.
    public struct Output: Sendable {
        /// `ftyp` + `moov`.
        public var initialization: Data
        /// `sidx` + `moof` + `mdat`.
        public var segment: Data
    }

    /// The track of `kind` of the MPEG-TS file `ts` (its best stream of that kind), its
    /// timestamps moved by `shift` (an HLS session's clock; the initialization segment does not
    /// depend on it), with scratch files in `scratch`. Throws `MediaError` when the file has no
    /// such stream or cannot be read.
    public static func track(_ kind: StreamInfo.Kind, of ts: URL, shift: MediaTime = .zero, scratch: URL) throws -> Output {
        let demuxer = try Demuxer(url: ts.path, policy: .adMedia)
        guard let index = demuxer.bestStream(kind) else { throw MediaError.missingStream("\(ts.lastPathComponent) has no \(kind) stream") }
        demuxer.keepOnly([index])
        let codec = demuxer.streams[index].codecName
        // ADTS to raw AAC first: the AudioSpecificConfig the `moov` holds comes out with the first packet
        let adts = codec == "aac" ? try BitstreamFilter("aac_adtstoasc", for: index, of: demuxer) : nil
        var packets: [Packet] = []
        let tb = demuxer.timeBase(of: index)
        let offset = MediaTime(value: shift.value * tb.denominator, timescale: shift.timescale * tb.numerator).rescaled(to: 1, rounding: .nearest).value
        let packet = try Packet()
        while try demuxer.read(into: packet) == .packet {
            guard packet.streamIndex == index else { continue }
            if offset != 0 { packet.setTimestamps(pts: packet.ptsTicks.map { $0 + offset }, dts: packet.dtsTicks.map { $0 + offset }) }
            if let adts { packets += try adts.filter(try packet.take()) } else { packets.append(try packet.take()) }
        }
        guard !packets.isEmpty else { throw MediaError.missingStream("\(ts.lastPathComponent) has no \(kind) packets") }

        let id = UUID().uuidString
        let initURL = scratch.appendingPathComponent(".cmaf-\(id).init"), segmentURL = scratch.appendingPathComponent(".cmaf-\(id).m4s")
        defer {
            try? FileManager.default.removeItem(at: initURL)
            try? FileManager.default.removeItem(at: segmentURL)
        }
        let muxer = try Muxer(url: initURL.path, formatName: "mp4")
        let out = try muxer.addStream(copying: index, of: demuxer)
        if let adts { try muxer.setParameters(of: out, to: adts.output) }
        switch codec {
        case "h264": try muxer.setSampleEntry("avc3", of: out)
        case "hevc": try muxer.setSampleEntry("hev1", of: out)
        default: break
        }
        // the flags of CMAFSegmentWriter (see there): a `sidx`, fragments when asked, the `moov`
        // once the samples are known, `tfdt` the first sample's own decode time, no `mfra`, no
        // edit list, positive composition offsets, CMAF's brand
        try muxer.writeHeader(options: ["movflags": "+dash+frag_custom+delay_moov+default_base_moof+skip_trailer+frag_discont",
                                        "use_editlist": "0", "brand": "cmfc", "avoid_negative_ts": "make_non_negative"])
        for p in packets { try muxer.write(p, stream: out) }
        try muxer.continueInNewFile(segmentURL.path)   // the `moov` into the initialization file
        try muxer.finish()                             // the fragment into the segment file
        return Output(initialization: try Data(contentsOf: initURL), segment: try Data(contentsOf: segmentURL))
    }
}
