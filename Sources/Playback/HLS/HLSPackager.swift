import Foundation
import Media
import Timing

/// Cuts a stitched MP4 into an HLS package (MPEG-TS segments and a VOD playlist with ad markers)
/// by copying its packets: nothing is decoded or encoded again.
///
/// Each segment is its own MPEG-TS file written by FFmpeg's mpegts muxer (which adds the Annex B
/// parameter sets and ADTS headers); timestamps stay those of the stitched timeline, so segments
/// join without gaps. The playlist is written here rather than by FFmpeg's hls muxer, which can
/// neither cut at exact ad boundaries nor write cue markers.
enum HLSPackager {
    /// What was written.
    struct Package {
        var segments: [HLSSegment]
        var playlist: String
    }

    /// The playlist's file name inside the package folder.
    static let playlistName = "index.m3u8"

    /// Writes the package for `mp4` into the existing, empty folder `directory`.
    static func package(mp4: String, into directory: String, duration: MediaTime, breaks: [PackagedBreak],
                        settings: HLSSettings, programDate: Date) throws -> Package {
        let keyframes = try keyframeTimes(mp4)
        let segments = HLSPlan.segments(keyframes: keyframes, duration: duration, breaks: breaks,
                                        target: settings.segmentDuration)
        try writeSegments(mp4, segments: segments, directory: directory)
        let playlist = HLSPlan.playlist(segments: segments, breaks: breaks, programDate: programDate)
        try Data(playlist.utf8).write(to: URL(fileURLWithPath: directory).appendingPathComponent(playlistName))
        return Package(segments: segments, playlist: playlist)
    }

    /// Presentation times of the video keyframes.
    static func keyframeTimes(_ url: String) throws -> [MediaTime] {
        let demuxer = try Demuxer(url: url)
        guard let video = demuxer.bestStream(.video) else { throw MediaError.missingStream("\(url) has no video stream") }
        demuxer.keepOnly([video])
        let tb = demuxer.timeBase(of: video)
        let packet = try Packet()
        var keys: [MediaTime] = []
        while try demuxer.read(into: packet) == .packet {
            guard packet.streamIndex == video, packet.isKeyframe, let pts = packet.ptsTicks else { continue }
            keys.append(MediaTime(value: pts * tb.numerator, timescale: tb.denominator))
        }
        return keys
    }

    private static func writeSegments(_ url: String, segments: [HLSSegment], directory: String) throws {
        let demuxer = try Demuxer(url: url)
        let streams = [demuxer.bestStream(.video), demuxer.bestStream(.audio)].compactMap { $0 }
        demuxer.keepOnly(Set(streams))
        let timeBases = Dictionary(uniqueKeysWithValues: streams.map { ($0, demuxer.timeBase(of: $0)) })
        let hevc = HEVCAnnexB(demuxer: demuxer)
        var open: [Int: (muxer: Muxer, map: [Int: Int])] = [:]
        var lastDTS: [Int: MediaTime] = [:]
        var closedThrough = -1
        let packet = try Packet()
        func close(_ i: Int) throws {
            guard let m = open.removeValue(forKey: i) else { return }
            try m.muxer.finish()
            closedThrough = max(closedThrough, i)
        }
        func muxer(_ i: Int) throws -> (muxer: Muxer, map: [Int: Int]) {
            if let m = open[i] { return m }
            let path = URL(fileURLWithPath: directory).appendingPathComponent(segments[i].fileName).path
            let m = try Muxer(url: path, formatName: "mpegts")
            var map: [Int: Int] = [:]
            for s in streams { map[s] = try m.addStream(copying: s, of: demuxer) }
            // Keep the stitched timeline as it is in every segment: a constant 0.7 s mux delay
            // (as the ffmpeg CLI) instead of a per-file shift that would differ between segments.
            try m.writeHeader(options: ["max_delay": "700000", "avoid_negative_ts": "disabled"])
            open[i] = (m, map)
            return (m, map)
        }
        while try demuxer.read(into: packet) == .packet {
            let s = packet.streamIndex
            guard let tb = timeBases[s], let ticks = packet.ptsTicks ?? packet.dtsTicks else { continue }
            let pts = MediaTime(value: ticks * tb.numerator, timescale: tb.denominator)
            // A late packet of a segment already closed goes to the next (never reopen a file).
            let index = min(segments.count - 1, max(closedThrough + 1, (segments.lastIndex { $0.start <= pts }) ?? 0))
            let m = try muxer(index)
            if s == hevc?.stream { try hevc?.convert(packet) }
            try m.muxer.write(packet, stream: m.map[s]!)
            if let d = packet.dtsTicks ?? packet.ptsTicks { lastDTS[s] = MediaTime(value: d * tb.numerator, timescale: tb.denominator) }
            // A segment is complete once every stream has moved past its end.
            let reached = streams.map { lastDTS[$0] ?? .zero }.min() ?? .zero
            for i in open.keys.sorted() where segments[i].end <= reached && i < segments.count - 1 { try close(i) }
        }
        for i in open.keys.sorted() { try close(i) }
        // A segment no packet fell into (cannot happen with keyframe cuts) would be missing: make it an error.
        for seg in segments where !FileManager.default.fileExists(atPath: URL(fileURLWithPath: directory).appendingPathComponent(seg.fileName).path) {
            throw MediaError.unsupported("HLS segment \(seg.fileName) received no packets")
        }
    }
}

/// HEVC packets of a smart-rendered MP4 in Annex B for MPEG-TS. FFmpeg 5.1's `hevc_mp4toannexb`
/// (which the mpegts muxer adds for length-prefixed HEVC) puts the `hvcC` parameter sets right
/// before the slices of every IRAP packet, after any sets the packet carries itself: it would
/// override the encoder's in-band sets of a re-encoded IDR with the content's. Here an IRAP
/// packet without its own VPS gets the `hvcC` sets in front, one with its own keeps them, and the
/// muxer, seeing start codes, adds no filter.
struct HEVCAnnexB {
    /// The video stream converted.
    let stream: Int
    private let sets: [[UInt8]]

    /// For the best video stream of `demuxer` when it is HEVC with an `hvcC`; nil otherwise.
    init?(demuxer: Demuxer) {
        guard let v = demuxer.bestStream(.video), demuxer.streams[v].codecName == "hevc",
              let config = HVCConfig(hvcC: demuxer.videoCodecParameters(of: v).extradata) else { return nil }
        stream = v
        sets = config.parameterSets
        lengthSize = config.lengthSize
    }
    private let lengthSize: Int

    /// Rewrites `packet` (NAL lengths) as Annex B, with parameter sets before an IRAP picture.
    func convert(_ packet: Packet) throws {
        guard var units = NALUnits.split(lengthPrefixed: packet.bytes, lengthSize: lengthSize) else {
            throw MediaError.unsupported("a malformed HEVC packet in the stitched output")
        }
        if units.contains(where: HVCConfig.isIRAP), !units.contains(where: { HVCConfig.nalType($0) == 32 }) {
            units = sets + units
        }
        try packet.replacePayload(with: NALUnits.annexB(units))
    }
}
