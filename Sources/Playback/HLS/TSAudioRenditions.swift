import Foundation
import Manifest
import Media
import Timing

/// The languages of an MPEG-TS package whose content has several (`ContentAudioTracks` made the
/// others tracks of the stitched MP4): each, the main one included, a packed-audio rendition
/// (RFC 8216 §3.4, `PackedAudio`, as the service's MPEG-TS sessions give theirs) cut at the
/// video's segment times (`audio-00000.aac`, `audio-N-00000.aac`: an ID3 `PRIV` timestamp with
/// the PTS of its first AAC frame, then its ADTS frames; `audio.m3u8`, `audio-N.m3u8` with the
/// package's discontinuities and ad markers), and a multivariant playlist `master.m3u8` naming
/// them (the main one the default) beside the package's own `index.m3u8`, which stays the media
/// playlist it always was, its main sound muxed (what a player of `index.m3u8` alone hears).
/// Nothing is written for one language.
enum TSAudioRenditions {
    /// The multivariant playlist's file name.
    static let masterName = "master.m3u8"

    /// Writes the renditions of `mp4`'s audio streams into `folder` (when it has more than one),
    /// each stream's segments by `segments(stream, name)`, and `master.m3u8` over them and the
    /// main playlist's `main` track.
    static func write(mp4: String, main: [HLSPackager.Track], into folder: URL, breaks: [PackagedBreak], programDate: Date,
                      segments: (Int, String) throws -> HLSPackager.Track) throws {
        let demuxer = try Demuxer(url: mp4)
        guard let video = demuxer.bestStream(.video), let mainAudio = demuxer.bestStream(.audio), let track = main.first else { return }
        let others = demuxer.streams.filter { $0.kind == .audio && $0.index != mainAudio }
        guard !others.isEmpty else { return }
        // (every rendition's segments are the variant's planned spans: one target duration)
        let target = HLSPlan.playlist(segments: track.segments, breaks: breaks, programDate: programDate,
                                      ptsAdjustment: HLSPackager.timestampOffset).targetDuration
        var names: Set<String> = []
        var renditions: [HLS.Rendition] = []
        var tracks: [HLSPackager.Track] = []
        // the main language too (the default, `audio.m3u8`): VLC 3 loses its clock when a
        // rendition plays beside a variant's muxed sound, and plays every language clean when
        // each, the default included, is a rendition of its own
        for (n, info) in ([demuxer.streams[mainAudio]] + others).enumerated() {
            let name = n == 0 ? "audio" : "audio-\(n)"
            // cut as MPEG-TS (the package's segment rules, timestamps and offset), then packed
            var t = try segments(info.index, name)
            for i in t.segments.indices {
                let ts = folder.appendingPathComponent(t.segments[i].fileName)
                let packed = try PackedAudio.segment(ts, scratch: folder)
                t.segments[i].fileName = (t.segments[i].fileName as NSString).deletingPathExtension + ".aac"
                try packed.write(to: folder.appendingPathComponent(t.segments[i].fileName))
                try FileManager.default.removeItem(at: ts)
                t.sizes[i] = packed.count
            }
            let playlist = HLSPlan.playlist(segments: t.segments, breaks: breaks, programDate: programDate,
                                            ptsAdjustment: HLSPackager.timestampOffset)
            try Data(HLS.write(playlist).utf8).write(to: folder.appendingPathComponent(name + ".m3u8"))
            var label = n == 0 ? "main" : info.language ?? "audio"
            if names.contains(label) { label += " \(n + 1)" }
            names.insert(label)
            renditions.append(HLS.Rendition(type: .audio, groupID: "audio", name: label, language: info.language, isDefault: n == 0,
                                            autoselect: true, channels: String(info.channels), uri: name + ".m3u8"))
            tracks.append(t)
        }
        // BANDWIDTH: each of the variant's segments with the largest rendition segment of its time
        let rate = SegmentBitRate.of(track.segments.indices.map { i in
            (track.sizes[i] + (tracks.map { $0.sizes[i] }.max() ?? 0), track.segments[i].duration)
        }, targetDuration: target)
        let info = demuxer.streams[video]
        let codecs = [CodecString.video(codecName: info.codecName, sampleEntry: info.codecTag, configuration: demuxer.extradata(of: video)),
                      CodecString.audio(codecName: demuxer.streams[mainAudio].codecName, configuration: demuxer.extradata(of: mainAudio))]
            .compactMap { $0 }.joined(separator: ",")
        let master = HLS.MultivariantPlaylist(renditions: renditions, variants: [
            HLS.Variant(uri: HLSPackager.playlistName, bandwidth: max(1, rate.peak), averageBandwidth: max(1, rate.average),
                        codecs: codecs.isEmpty ? nil : codecs,
                        resolution: HLS.Resolution(width: info.displaySize.width, height: info.displaySize.height),
                        frameRate: info.frameRate, audio: "audio"),
        ])
        try Data(HLS.write(master).utf8).write(to: folder.appendingPathComponent(masterName))
    }
}
