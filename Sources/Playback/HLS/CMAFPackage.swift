import Foundation
import Manifest
import Media
import Timing

/// The manifests of a CMAF package: one set of CMAF tracks (a video track and an audio track,
/// each an initialization section and fragmented-MP4 segments cut at the same places) addressed
/// by HLS and by DASH alike.
///
/// - `index.m3u8`: a multivariant playlist, one variant (`video.m3u8`) with its audio as an
///   `EXT-X-MEDIA` rendition (`audio.m3u8`; the content's other languages `audio-N.m3u8` in the
///   same group, with their `LANGUAGE`); each media playlist carries the package's ad markers and
///   `EXT-X-MAP` (`HLSPlan.playlist`).
/// - `index.mpd`: a static MPD of one Period (the package is one encoded timeline: a Period per
///   ad would cut its one AAC stream where no AAC frame ends, leaving gaps of under a frame), its
///   breaks as SCTE-35 events (`urn:scte:scte35:2014:xml+bin`, the same `splice_insert`
///   sections as the playlists) and each ad as an event of Interlude's scheme with its id; each
///   track a `SegmentTemplate` whose `SegmentTimeline` lists every segment's exact start and
///   length in the track's own timescale.
enum CMAFPackage {
    /// The manifests (file name and text) for `tracks` written from `mp4`.
    /// `offset`: what the tracks' media times add to stream time (the video's decode delay),
    /// the playlists' SCTE-35 `pts_adjustment` and the MPD's `presentationTimeOffset`.
    static func manifests(mp4: String, tracks: [HLSPackager.Track], breaks: [PackagedBreak], duration: MediaTime,
                          offset: MediaTime, programDate: Date) throws -> [(name: String, text: String)] {
        let demuxer = try Demuxer(url: mp4)
        guard let video = tracks.first(where: { $0.kind == .video }) else { throw MediaError.missingStream("\(mp4) has no video stream") }
        // the main sound first (the variant's), then each other language (`ContentAudioTracks`)
        let audios = tracks.filter { $0.kind == .audio }
        let audio = audios.first
        let videoInfo = demuxer.streams[video.stream]
        let videoCodecs = CodecString.video(codecName: videoInfo.codecName, sampleEntry: videoInfo.codecTag,
                                            configuration: demuxer.extradata(of: video.stream))
        let audioCodecs = audio.flatMap { CodecString.audio(codecName: demuxer.streams[$0.stream].codecName, configuration: demuxer.extradata(of: $0.stream)) }

        var out: [(String, String)] = []
        // one target duration for both playlists, at least every segment's exact length (an audio
        // segment can be most of an AAC frame longer than its pictures: 4.011 s in a 4 s target
        // is RFC 8216's rounding, but GStreamer's hlsdemux warns of any EXTINF over the target)
        let tracks = [video] + audios
        let longest = tracks.flatMap(\.segments).map(\.duration).max() ?? .zero
        let target = max(1, Int(longest.rescaled(to: 1, rounding: .up).value))
        for t in tracks {
            var playlist = HLSPlan.playlist(segments: t.segments, breaks: breaks, programDate: programDate, ptsAdjustment: offset,
                                            map: t.initName.map { HLS.Map(uri: $0) })
            playlist.targetDuration = max(playlist.targetDuration, target)
            out.append((playlistName(t), HLS.write(playlist)))
        }

        // HLS: BANDWIDTH and AVERAGE-BANDWIDTH of video and audio together, by RFC 8216's rule
        // (`SegmentBitRate`); DASH: each track's own
        func rates(_ t: HLSPackager.Track, with other: HLSPackager.Track? = nil) -> (peak: Int, average: Int) {
            SegmentBitRate.of(t.segments.indices.map { i in
                (t.sizes[i] + (other.map { $0.sizes[min(i, $0.sizes.count - 1)] } ?? 0), t.segments[i].duration)
            }, targetDuration: target)
        }
        let both = rates(video, with: audio)
        let codecs = [videoCodecs, audioCodecs].compactMap { $0 }.joined(separator: ",")
        let multivariant = HLS.MultivariantPlaylist(
            renditions: audios.enumerated().map { n, t in
                let info = demuxer.streams[t.stream]
                return HLS.Rendition(type: .audio, groupID: "audio", name: n == 0 ? "main" : info.language ?? "audio \(n + 1)", language: info.language,
                                     isDefault: n == 0, autoselect: true, channels: String(info.channels), uri: playlistName(t))
            },
            variants: [HLS.Variant(uri: playlistName(video), bandwidth: max(1, both.peak), averageBandwidth: max(1, both.average),
                                   codecs: codecs.isEmpty ? nil : codecs,
                                   resolution: HLS.Resolution(width: videoInfo.displaySize.width, height: videoInfo.displaySize.height),
                                   frameRate: videoInfo.frameRate, audio: audio == nil ? nil : "audio")])
        out.append((HLSPackager.playlistName, HLS.write(multivariant)))

        // DASH
        func representation(_ t: HLSPackager.Track) -> DASH.Representation {
            let bandwidth = max(1, rates(t).peak)
            let info = demuxer.streams[t.stream]
            if t.kind == .video {
                return DASH.Representation(id: "video", bandwidth: bandwidth,
                                           codecs: videoCodecs ?? info.codecName, width: info.displaySize.width, height: info.displaySize.height,
                                           frameRate: info.frameRate.map(\.description),
                                           sar: "1:1")
            }
            return DASH.Representation(id: trackName(t), bandwidth: bandwidth, codecs: audioCodecs ?? info.codecName,
                                       audioSamplingRate: info.sampleRate, audioChannels: info.channels)
        }
        func template(_ t: HLSPackager.Track) -> DASH.SegmentTemplate {
            let ticks = t.segments.map { (start: $0.start.rescaled(to: t.timescale, rounding: .nearest).value,
                                          end: $0.end.rescaled(to: t.timescale, rounding: .nearest).value) }
            let name = trackName(t)
            return DASH.SegmentTemplate(timescale: t.timescale, initialization: t.initName ?? "", media: "\(name)$Number%05d$.m4s",
                                        startNumber: 0, presentationTimeOffset: offset.rescaled(to: t.timescale, rounding: .nearest).value,
                                        timeline: DASH.SegmentTemplate.timeline(ticks.map { ($0.start, $0.end - $0.start) }))
        }
        var sets = [DASH.AdaptationSet(id: 1, contentType: "video", mimeType: "video/mp4", segmentTemplate: template(video),
                                       representations: [representation(video)])]
        for (n, t) in audios.enumerated() {
            sets.append(DASH.AdaptationSet(id: 2 + n, contentType: "audio", mimeType: "audio/mp4", language: demuxer.streams[t.stream].language,
                                           segmentTemplate: template(t), representations: [representation(t)]))
        }
        let mpd = DASH.MPD(mediaPresentationDuration: duration, minBufferTime: MediaTime(seconds: 2), periods: [
            DASH.Period(id: "0", start: .zero, eventStreams: eventStreams(breaks, ptsAdjustment: offset), adaptationSets: sets),
        ])
        if let problem = mpd.validate() { throw MediaError.unsupported("the package's MPD: \(problem)") }
        out.append(("index.mpd", DASH.write(mpd)))
        return out
    }

    /// A track's name: `video`, `audio` (the main sound), `audio-N` (the content's other
    /// languages), what its files are named after (`init-NAME.mp4`, `NAME00000.m4s`).
    static func trackName(_ t: HLSPackager.Track) -> String { t.initName.map { String($0.dropFirst(5).dropLast(4)) } ?? (t.kind == .video ? "video" : "audio") }

    /// A track's HLS media playlist name.
    static func playlistName(_ t: HLSPackager.Track) -> String { trackName(t) + ".m3u8" }

    /// The breaks as DASH events (milliseconds): a SCTE-35 `splice_insert` out of network at
    /// each break's start with its duration (the section of the playlists' `SCTE35-OUT`), and
    /// one event per ad. A double box replaced no content: its ads only.
    static func eventStreams(_ breaks: [PackagedBreak], ptsAdjustment: MediaTime) -> [DASH.EventStream] {
        func ms(_ t: MediaTime) -> Int64 { t.rescaled(to: 1000, rounding: .nearest).value }
        var splices: [DASH.Event] = [], ads: [DASH.Event] = []
        for (i, b) in breaks.enumerated() {
            if b.doubleBox == nil {
                let section = SCTE35.spliceInsert(eventID: UInt32(i + 1), outOfNetwork: true, at: b.start, breakDuration: b.end - b.start,
                                                  ptsAdjustment: ptsAdjustment)
                splices.append(DASH.Event(id: UInt32(i + 1), presentationTime: ms(b.start), duration: ms(b.end - b.start), payload: .scte35(section)))
            }
            for ad in b.ads where ad.end > ad.start {
                ads.append(DASH.Event(id: UInt32(ads.count + 1), presentationTime: ms(ad.start), duration: ms(ad.end - ad.start),
                                      payload: .message("\(b.id) \(ad.id)")))
            }
        }
        var out: [DASH.EventStream] = []
        if !splices.isEmpty { out.append(DASH.EventStream(schemeIdUri: DASH.scte35Scheme, timescale: 1000, events: splices)) }
        if !ads.isEmpty { out.append(DASH.EventStream(schemeIdUri: DASH.adScheme, timescale: 1000, events: ads)) }
        return out
    }
}
