import Foundation
import Manifest
import Media
import Timing

/// The content's other languages in an MPEG-TS package (`ContentAudioTracks` made them tracks of
/// the stitched MP4): each a packed-audio rendition (RFC 8216 §3.4, `PackedAudio`, as the
/// service's MPEG-TS sessions give theirs) cut at the video's segment times (`audio-N-00000.aac`:
/// an ID3 `PRIV` timestamp with the PTS of its first AAC frame, then its ADTS frames;
/// `audio-N.m3u8` with the package's discontinuities and ad markers), and a multivariant playlist
/// `master.m3u8` naming them beside the package's own `index.m3u8`, which stays the media
/// playlist it always was (its segments keep the main sound muxed: the group's default rendition
/// has no URI, RFC 8216 §4.3.4.2.1). Nothing is written for one language.
enum TSAudioRenditions {
    /// The multivariant playlist's file name.
    static let masterName = "master.m3u8"

    /// Writes the renditions of `mp4`'s other audio streams into `folder`, each stream's
    /// segments by `segments(stream, name)`, and `master.m3u8` over them and the main
    /// playlist's `main` track.
    static func write(mp4: String, main: [HLSPackager.Track], into folder: URL, breaks: [PackagedBreak], programDate: Date,
                      settings: HLSSettings, segments: (Int, String) throws -> HLSPackager.Track) throws {
        let demuxer = try Demuxer(url: mp4)
        guard let video = demuxer.bestStream(.video), let mainAudio = demuxer.bestStream(.audio), let track = main.first else { return }
        let others = demuxer.streams.filter { $0.kind == .audio && $0.index != mainAudio }
        guard !others.isEmpty else { return }
        let mainPlaylist = HLSPlan.playlist(segments: track.segments, breaks: breaks, programDate: programDate,
                                            ptsAdjustment: HLSPackager.timestampOffset)
        var target = mainPlaylist.targetDuration
        var names: Set<String> = ["main"]
        let mainInfo = demuxer.streams[mainAudio]
        var renditions = [HLS.Rendition(type: .audio, groupID: "audio", name: "main", language: mainInfo.language, isDefault: true,
                                        autoselect: true, channels: String(mainInfo.channels))]
        var tracks: [HLSPackager.Track] = []
        for (n, info) in others.enumerated() {
            let name = "audio-\(n + 1)"
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
            var playlist = HLSPlan.playlist(segments: t.segments, breaks: breaks, programDate: programDate,
                                            ptsAdjustment: HLSPackager.timestampOffset)
            target = max(target, playlist.targetDuration)
            playlist.targetDuration = target
            try Data(HLS.write(playlist).utf8).write(to: folder.appendingPathComponent(name + ".m3u8"))
            var label = info.language ?? "audio"
            if names.contains(label) { label += " \(n + 2)" }
            names.insert(label)
            renditions.append(HLS.Rendition(type: .audio, groupID: "audio", name: label, language: info.language, autoselect: true,
                                            channels: String(info.channels), uri: name + ".m3u8"))
            tracks.append(t)
        }
        // BANDWIDTH: each of the variant's segments with the largest rendition segment of its time
        let rate = SegmentBitRate.of(track.segments.indices.map { i in
            (track.sizes[i] + (tracks.map { $0.sizes[i] }.max() ?? 0), track.segments[i].duration)
        }, targetDuration: target)
        let info = demuxer.streams[video]
        let codecs = [CodecString.video(codecName: info.codecName, sampleEntry: info.codecTag, configuration: demuxer.extradata(of: video)),
                      CodecString.audio(codecName: mainInfo.codecName, configuration: demuxer.extradata(of: mainAudio))]
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
