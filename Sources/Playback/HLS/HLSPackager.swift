import Foundation
import Manifest
import Media
import Timing

/// Cuts a stitched MP4 into an HLS package (MPEG-TS segments and a VOD playlist with ad markers)
/// by copying its packets: nothing is decoded or encoded again.
///
/// FFmpeg's mpegts muxer writes the segments (adding the Annex B parameter sets and ADTS
/// headers), one stream per run between discontinuities (`TSRunWriter`); timestamps stay those
/// of the stitched timeline, so segments join without gaps. The playlist is written here rather
/// than by FFmpeg's hls muxer, which can neither cut at exact ad boundaries nor write cue markers.
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
        try writeSegments(mp4, segments: segments, directory: directory, audioFromStart: settings.audioFromFirstPicture,
                          firstRunDiscontinuous: settings.firstRunDiscontinuous, decodeDelay: settings.decodeDelay)
        let playlist = HLS.write(HLSPlan.playlist(segments: segments, breaks: breaks, programDate: programDate,
                                                  ptsAdjustment: timestampOffset))
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

    /// The mpegts muxer's `max_delay` in µs: 0.7 s, as the ffmpeg CLI's default.
    static let maxDelayMicroseconds: Int64 = 700_000
    /// What FFmpeg 5.1's mpegts muxer adds to every PTS and DTS (twice `max_delay`, mpegtsenc.c):
    /// a frame at stream time t has PTS t + 1.4 s in the segments (126000 ticks at 90 kHz). The
    /// SCTE-35 sections carry it as `pts_adjustment`.
    static let timestampOffset = MediaTime(value: 2 * maxDelayMicroseconds, timescale: 1_000_000)

    /// Cuts the packets of `url` into `segments`. A packet goes to the segment its timestamp falls
    /// in, never to an earlier one than the stream's previous packet (leading pictures of an open
    /// GOP stay with their keyframe), nor to a segment already written. A segment is written out
    /// once every stream has moved past its end.
    /// `audioFromStart`: audio packets before stream time 0 (the AAC priming packet) are left out.
    /// `firstRunDiscontinuous`: the first run is marked as a new stream too. `decodeDelay`: video
    /// decode times at least this long before presentation times.
    private static func writeSegments(_ url: String, segments: [HLSSegment], directory: String, audioFromStart: Bool = false,
                                      firstRunDiscontinuous: Bool = false, decodeDelay: MediaTime = .zero) throws {
        guard !segments.isEmpty else { throw MediaError.unsupported("an HLS package needs at least one segment: the stitch is empty") }
        let demuxer = try Demuxer(url: url)
        let streams = [demuxer.bestStream(.video), demuxer.bestStream(.audio)].compactMap { $0 }
        demuxer.keepOnly(Set(streams))
        let timeBases = Dictionary(uniqueKeysWithValues: streams.map { ($0, demuxer.timeBase(of: $0)) })
        let hevc = HEVCAnnexB(demuxer: demuxer)
        let writer = TSRunWriter(sources: streams.map { (demuxer, $0) }, firstRunDiscontinuous: firstRunDiscontinuous)
        var pending = [[Packet]](repeating: [], count: segments.count)
        var next = 0                       // the first segment not yet written
        var lastIndex: [Int: Int] = [:]    // per stream: the segment of its previous packet
        var lastDTS: [Int: MediaTime] = [:]
        func writeNext() throws {
            let seg = segments[next]
            // A segment no packet fell into (cannot happen with keyframe cuts) would be missing: make it an error.
            guard !pending[next].isEmpty else { throw MediaError.unsupported("HLS segment \(seg.fileName) received no packets") }
            let path = URL(fileURLWithPath: directory).appendingPathComponent(seg.fileName).path
            try writer.writeSegment(path, packets: pending[next], newRun: HLSPlan.startsDiscontinuity(segments, at: next))
            pending[next] = []
            next += 1
        }
        let packet = try Packet()
        while try demuxer.read(into: packet) == .packet {
            let s = packet.streamIndex
            guard let tb = timeBases[s], let ticks = packet.ptsTicks ?? packet.dtsTicks else { continue }
            let pts = MediaTime(value: ticks * tb.numerator, timescale: tb.denominator)
            if audioFromStart, s != streams.first, pts < .zero { continue }
            if decodeDelay > .zero, s == streams.first, demuxer.streams[s].kind == .video {
                let delay = decodeDelay.rescaled(to: tb.denominator, rounding: .nearest).value / max(1, tb.numerator)
                let dts = min(packet.dtsTicks ?? ticks, ticks - delay)
                packet.setTimestamps(pts: packet.ptsTicks, dts: dts)
            }
            let byTime = segments.lastIndex { $0.start <= pts } ?? 0
            let index = min(segments.count - 1, max(next, lastIndex[s] ?? 0, byTime))
            lastIndex[s] = index
            if s == hevc?.stream { try hevc?.convert(packet) }
            if let d = packet.dtsTicks ?? packet.ptsTicks { lastDTS[s] = MediaTime(value: d * tb.numerator, timescale: tb.denominator) }
            pending[index].append(try packet.take())
            // A segment is complete once every stream has moved past its end.
            let reached = streams.map { lastDTS[$0] ?? .zero }.min() ?? .zero
            while next < segments.count - 1 && segments[next].end <= reached { try writeNext() }
        }
        while next < segments.count { try writeNext() }
        try writer.finish()
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
