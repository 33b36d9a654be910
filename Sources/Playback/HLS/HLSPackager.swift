import Foundation
import Manifest
import Media
import Timing

/// Cuts a stitched MP4 into an HLS package (MPEG-TS or CMAF segments and a VOD playlist with ad
/// markers) by copying its packets: nothing is decoded or encoded again.
///
/// CMAF: FFmpeg's mp4 muxer writes the initialization section and one fragment per segment
/// (`CMAFSegmentWriter`). MPEG-TS: FFmpeg's mpegts muxer writes the segments (adding the Annex B parameter sets and ADTS
/// headers), one stream per run between discontinuities (`TSRunWriter`); timestamps stay those
/// of the stitched timeline, so segments join without gaps. The playlist is written here rather
/// than by FFmpeg's hls muxer, which can neither cut at exact ad boundaries nor write cue markers.
enum HLSPackager {
    /// The playlist's file name inside the package folder (for CMAF the multivariant playlist).
    static let playlistName = "index.m3u8"

    /// Writes the package for `mp4` into the existing, empty folder `directory`: MPEG-TS segments
    /// and `index.m3u8`, or CMAF tracks (`CMAFPackage`).
    static func package(mp4: String, into directory: String, duration: MediaTime, breaks: [PackagedBreak],
                        settings: HLSSettings, programDate: Date) throws {
        let (keyframes, firstDecode, firstSound) = try keyframeTimes(mp4)
        let cmaf = settings.segmentFormat == .cmaf
        let segments = HLSPlan.segments(keyframes: keyframes, duration: duration, breaks: breaks, target: settings.segmentDuration,
                                        name: cmaf ? "video" : "segment", fileExtension: cmaf ? CMAFSegmentWriter.fileExtension : "ts")
        // CMAF tracks have no edit list (`CMAFSegmentWriter`): both are moved up by what the
        // video decodes before its first picture (B-frames) or the audio's priming starts before
        // it, whichever is more, so that no timestamp is negative; the manifests say where the
        // first picture is (`pts_adjustment`, `presentationTimeOffset`)
        let cmafOffset = cmaf ? max(.zero, MediaTime.zero - firstDecode, settings.audioFromFirstPicture ? .zero : MediaTime.zero - firstSound) : .zero
        let written = try writeSegments(mp4, segments: segments, directory: directory, format: settings.segmentFormat,
                                        offset: cmafOffset, audioFromStart: settings.audioFromFirstPicture,
                                        firstRunDiscontinuous: settings.firstRunDiscontinuous, decodeDelay: settings.decodeDelay)
        let folder = URL(fileURLWithPath: directory)
        if cmaf {
            for (name, text) in try CMAFPackage.manifests(mp4: mp4, tracks: written, breaks: breaks, duration: duration, offset: cmafOffset,
                                                           programDate: programDate) {
                try Data(text.utf8).write(to: folder.appendingPathComponent(name))
            }
        } else {
            let playlist = HLS.write(HLSPlan.playlist(segments: segments, breaks: breaks, programDate: programDate,
                                                      ptsAdjustment: timestampOffset))
            try Data(playlist.utf8).write(to: folder.appendingPathComponent(playlistName))
            try TSAudioRenditions.write(mp4: mp4, main: written, into: folder, breaks: breaks, programDate: programDate) { stream, name in
                let renamed = segments.map { var t = $0; t.fileName = t.fileName.replacingOccurrences(of: "segment", with: name + "-"); return t }
                return try writeSegments(mp4, segments: renamed, directory: directory, format: .mpegTS, only: stream,
                                         audioFromStart: settings.audioFromFirstPicture, firstRunDiscontinuous: settings.firstRunDiscontinuous)[0]
            }
        }
    }

    /// Presentation times of the video keyframes, the video's first decode time and the audio's
    /// first presentation time (its AAC priming: before zero).
    static func keyframeTimes(_ url: String) throws -> (keyframes: [MediaTime], firstDecode: MediaTime, firstSound: MediaTime) {
        let demuxer = try Demuxer(url: url)
        guard let video = demuxer.bestStream(.video) else { throw MediaError.missingStream("\(url) has no video stream") }
        let audio = demuxer.bestStream(.audio)
        demuxer.keepOnly(Set([video] + (audio.map { [$0] } ?? [])))
        let tb = demuxer.timeBase(of: video)
        let packet = try Packet()
        var keys: [MediaTime] = [], firstDecode: MediaTime?, firstSound: MediaTime?
        while try demuxer.read(into: packet) == .packet {
            if packet.streamIndex == audio, firstSound == nil, let pts = packet.ptsTicks {
                let atb = demuxer.timeBase(of: packet.streamIndex)
                firstSound = MediaTime(value: pts * atb.numerator, timescale: atb.denominator)
            }
            guard packet.streamIndex == video else { continue }
            if firstDecode == nil, let dts = packet.dtsTicks ?? packet.ptsTicks { firstDecode = MediaTime(value: dts * tb.numerator, timescale: tb.denominator) }
            guard packet.isKeyframe, let pts = packet.ptsTicks else { continue }
            keys.append(MediaTime(value: pts * tb.numerator, timescale: tb.denominator))
        }
        return (keys, firstDecode ?? .zero, firstSound ?? .zero)
    }

    /// What FFmpeg 5.1's mpegts muxer adds to every PTS and DTS (twice `max_delay`,
    /// `Muxer.mpegTSMaxDelayMicroseconds`; mpegtsenc.c):
    /// a frame at stream time t has PTS t + 1.4 s in the segments (126000 ticks at 90 kHz). The
    /// SCTE-35 sections carry it as `pts_adjustment`.
    static let timestampOffset = MediaTime(value: 2 * Muxer.mpegTSMaxDelayMicroseconds, timescale: 1_000_000)

    /// The segments of one output track as written: MPEG-TS has one track of every stream, CMAF
    /// one per stream.
    struct Track {
        /// The stream of the stitched MP4 it carries (MPEG-TS: the first of them).
        var stream: Int
        /// Its media kind.
        var kind: StreamInfo.Kind
        /// Its initialization section's file name (CMAF), nil for MPEG-TS.
        var initName: String?
        /// Its segments: file name, and the span its packets cover (the first presentation time
        /// to the last one's end; for MPEG-TS the planned span), the playlist's segment indices.
        var segments: [HLSSegment]
        /// Bytes of each segment file.
        var sizes: [Int]
        /// Ticks per second of its media times (CMAF: the track's timescale).
        var timescale: Int64 = 90_000
    }

    /// Cuts the packets of `url` into `segments`. A packet goes to the segment its timestamp falls
    /// in, never to an earlier one than the stream's previous packet (leading pictures of an open
    /// GOP stay with their keyframe), nor to a segment already written. A segment is written out
    /// once every stream has moved past its end.
    /// `offset`: added to every timestamp as written (CMAF). `only`: MPEG-TS of that one stream
    /// (an audio rendition). `audioFromStart`: audio packets before stream time 0 (the AAC
    /// priming packet) are left out. `firstRunDiscontinuous`: the first run is marked as a new
    /// stream too. `decodeDelay`: video decode times at least this long before presentation times.
    private static func writeSegments(_ url: String, segments: [HLSSegment], directory: String, format: HLSSegmentFormat,
                                      offset: MediaTime = .zero, only: Int? = nil, audioFromStart: Bool = false,
                                      firstRunDiscontinuous: Bool = false, decodeDelay: MediaTime = .zero) throws -> [Track] {
        guard !segments.isEmpty else { throw MediaError.unsupported("an HLS package needs at least one segment: the stitch is empty") }
        let demuxer = try Demuxer(url: url)
        // CMAF: every audio track of the stitch (the content's other languages after the main
        // one, `ContentAudioTracks`), each a track of its own; MPEG-TS: the main one (the others
        // are renditions of their own, `TSAudioRenditions`)
        let main = demuxer.bestStream(.audio)
        let others = format == .cmaf ? demuxer.streams.filter { $0.kind == .audio && $0.index != main }.map(\.index) : []
        let streams = only.map { [$0] } ?? [demuxer.bestStream(.video), main].compactMap { $0 } + others
        demuxer.keepOnly(Set(streams))
        let timeBases = Dictionary(uniqueKeysWithValues: streams.map { ($0, demuxer.timeBase(of: $0)) })
        let folder = URL(fileURLWithPath: directory)
        // the writers, and which of them each stream goes to
        var writers: [any PackageSegmentWriter] = [], tracks: [Track] = [], writerOf: [Int: Int] = [:]
        let hevc: HEVCAnnexB?
        switch format {
        case .mpegTS:
            writers = [TSRunWriter(sources: streams.map { (demuxer, $0) }, firstRunDiscontinuous: firstRunDiscontinuous)]
            tracks = [Track(stream: streams[0], kind: demuxer.streams[streams[0]].kind, initName: nil, segments: segments, sizes: [])]
            for s in streams { writerOf[s] = 0 }
            hevc = HEVCAnnexB(demuxer: demuxer)
        case .cmaf:
            // one CMAF track per stream, its packets as they are (length-prefixed, parameter sets in the sample entry)
            for s in streams {
                let kind = demuxer.streams[s].kind
                let name = kind == .video ? "video" : others.firstIndex(of: s).map { "audio-\($0 + 1)" } ?? "audio"
                writerOf[s] = writers.count
                let writer = try CMAFSegmentWriter(initPath: folder.appendingPathComponent("init-\(name).mp4").path, demuxer: demuxer, stream: s)
                writers.append(writer)
                tracks.append(Track(stream: s, kind: kind, initName: "init-\(name).mp4",
                                    segments: segments.map { var t = $0; t.fileName = t.fileName.replacingOccurrences(of: "video", with: name); return t },
                                    sizes: [], timescale: writer.timescale))
            }
            hevc = nil
        }
        var pending = [[[Packet]]](repeating: [[Packet]](repeating: [], count: segments.count), count: writers.count)
        var spans = [[(first: MediaTime, end: MediaTime)?]](repeating: [(first: MediaTime, end: MediaTime)?](repeating: nil, count: segments.count),
                                                            count: writers.count)
        var next = 0                       // the first segment not yet written
        var lastIndex: [Int: Int] = [:]    // per stream: the segment of its previous packet
        var lastDTS: [Int: MediaTime] = [:]
        func writeNext() throws {
            for w in writers.indices {
                let seg = tracks[w].segments[next]
                // A segment no packet fell into (cannot happen with keyframe cuts) would be missing: make it an error.
                guard !pending[w][next].isEmpty else { throw MediaError.unsupported("HLS segment \(seg.fileName) received no packets") }
                let path = folder.appendingPathComponent(seg.fileName).path
                try writers[w].writeSegment(path, packets: pending[w][next], newRun: HLSPlan.startsDiscontinuity(segments, at: next))
                pending[w][next] = []
            }
            next += 1
        }
        let packet = try Packet()
        while try demuxer.read(into: packet) == .packet {
            let s = packet.streamIndex
            guard let tb = timeBases[s], let ticks = packet.ptsTicks ?? packet.dtsTicks, let w = writerOf[s] else { continue }
            let pts = MediaTime(value: ticks * tb.numerator, timescale: tb.denominator)
            if audioFromStart, demuxer.streams[s].kind == .audio, pts < .zero { continue }
            if decodeDelay > .zero, s == streams.first, demuxer.streams[s].kind == .video {
                let delay = decodeDelay.rescaled(to: tb.denominator, rounding: .nearest).value / max(1, tb.numerator)
                let dts = min(packet.dtsTicks ?? ticks, ticks - delay)
                packet.setTimestamps(pts: packet.ptsTicks, dts: dts)
            }
            let byTime = segments.lastIndex { $0.start <= pts } ?? 0
            let index = min(segments.count - 1, max(next, lastIndex[s] ?? 0, byTime))
            lastIndex[s] = index
            if let d = packet.dtsTicks ?? packet.ptsTicks { lastDTS[s] = MediaTime(value: d * tb.numerator, timescale: tb.denominator) }
            if offset > .zero {
                let ticks = offset.rescaled(to: tb.denominator, rounding: .nearest).value / max(1, tb.numerator)
                packet.setTimestamps(pts: packet.ptsTicks.map { $0 + ticks }, dts: packet.dtsTicks.map { $0 + ticks })
            }
            if s == hevc?.stream { try hevc?.convert(packet) }
            let written = pts + offset
            let end = written + MediaTime(value: packet.durationTicks * tb.numerator, timescale: tb.denominator)
            let span = spans[w][index]
            spans[w][index] = (min(span?.first ?? written, written), max(span?.end ?? end, end))
            pending[w][index].append(try packet.take())
            // A segment is complete once every stream has moved past its end.
            let reached = streams.map { lastDTS[$0] ?? .zero }.min() ?? .zero
            while next < segments.count - 1 && segments[next].end <= reached { try writeNext() }
        }
        while next < segments.count { try writeNext() }
        for w in writers { try w.finish() }
        for t in tracks.indices {
            tracks[t].sizes = try tracks[t].segments.map { seg in
                try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(seg.fileName).path)[.size] as? Int ?? 0
            }
            // a CMAF track's segments span what their samples cover: the audio's AAC frames do not end where pictures do
            guard format == .cmaf else { continue }
            for i in tracks[t].segments.indices {
                if let span = spans[t][i] {
                    tracks[t].segments[i].start = span.first
                    tracks[t].segments[i].end = span.end
                }
            }
        }
        return tracks
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
