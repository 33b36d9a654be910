import Foundation
import Timing

/// A `LiveOrigin` made with `dash: true` is also a live HLS origin of demuxed CMAF, as packagers
/// publish one beside their MPD: `/demuxed/master.m3u8` names an audio group of one rendition
/// (`a.m3u8`, English, the default, with its own playlist) and a video-only variant per rendition
/// (`vK.m3u8`, `AUDIO="aud"`), over the same CMAF tracks as `/live.mpd` (`/dash/…`): the video
/// playlists list the last `windowSize` video segments with the schedule's markers (CUE-OUT,
/// DATERANGE with SCTE-35 at the tracks' timestamps; `emsg` in the segments), the audio playlist
/// the audio segments published with them (those ending by the last video segment's end); with
/// `subtitles`, the WebVTT rendition as well (`subs/live.m3u8` under `/demuxed/`); with
/// `secondLanguage`, a second audio rendition (`a2.m3u8`, German, `../dash/a2/N.m4s`).
extension LiveOrigin {
    /// The demuxed master playlist (needs `dash: true`): relative URIs (`a.m3u8`, `vK.m3u8`).
    public func demuxedMaster() -> String { core.demuxedMaster() }
    /// The audio rendition's playlist as it is now (needs `dash: true`): URIs `../dash/a/N.m4s`.
    public func demuxedAudioPlaylist() -> String { core.dash.map { core.demuxedAudio(published: core.published(), $0) } ?? "" }
    /// The second language's playlist as it is now (needs `secondLanguage`): URIs `../dash/a2/N.m4s`.
    public func demuxedSecondLanguagePlaylist() -> String { core.dash.map { core.demuxedAudio(published: core.published(), $0, language: 2) } ?? "" }
}

extension LiveOrigin.Core {
    func respondDemuxed(_ path: String, _ dash: LiveOriginDASH) -> HTTPTestServer.Response? {
        let playlistType = ["Content-Type": "application/vnd.apple.mpegurl", "Cache-Control": "no-cache"]
        let p = published()
        let text: String?
        if subtitles, path.hasPrefix("/demuxed/subs/") { return respondSubtitles(path, prefix: "/demuxed/subs/", offset: dash.ptsOffset) }
        switch path {
        case "/demuxed/master.m3u8": text = demuxedMaster()
        case "/demuxed/a.m3u8": text = demuxedAudio(published: p, dash)
        case "/demuxed/a2.m3u8" where !dash.languages.isEmpty: text = demuxedAudio(published: p, dash, language: 2)
        default:
            guard path.hasPrefix("/demuxed/v"), path.hasSuffix(".m3u8"), let k = Int(path.dropFirst(10).dropLast(5)), dash.videos.indices.contains(k) else { return nil }
            text = demuxedVideo(k, published: p, dash)
        }
        return text.map { .init(headers: playlistType, body: Data($0.utf8)) }
    }

    func demuxedMaster() -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS",
                     "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\",NAME=\"English\",LANGUAGE=\"en\",DEFAULT=YES,AUTOSELECT=YES,URI=\"a.m3u8\""]
        // with `subtitles`: the WebVTT rendition too, on the DASH tracks' clock
        if dash?.languages.isEmpty == false {
            lines.append("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\",NAME=\"Deutsch\",LANGUAGE=\"de\",AUTOSELECT=YES,URI=\"a2.m3u8\"")
        }
        if subtitles { lines.append(Self.subtitleRendition) }
        for (k, r) in media.renditions.enumerated() {
            lines.append("#EXT-X-STREAM-INF:BANDWIDTH=\(r.peakBitRate + 128_000),RESOLUTION=\(r.size.width)x\(r.size.height),CODECS=\"avc1.64001f,mp4a.40.2\",AUDIO=\"aud\""
                         + (subtitles ? ",SUBTITLES=\"subs\"" : ""))
            lines.append("v\(k).m3u8")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func demuxedVideo(_ k: Int, published p: Int, _ dash: LiveOriginDASH) -> String {
        let w = window(published: p)
        let track = dash.videos[k]
        // (with a key rotation, the map and key of the segments from its first on named before it)
        let rotation = sampleEncryption?.rotation
        let rotated = rotation.map { w.segments.lowerBound >= $0.at } ?? false
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(faults.targetDuration(published: p))",
                     "#EXT-X-MEDIA-SEQUENCE:\(w.mediaSequence)", "#EXT-X-MAP:URI=\"../dash/v\(k)/\(rotated ? "init-r" : "init").mp4\""]
        if let sampleEncryption { lines.append(rotated ? rotation?.keyTag ?? "" : sampleEncryption.keyTag) }
        for n in w.segments {
            if let rotation, n == rotation.at, n != w.segments.lowerBound {
                lines += ["#EXT-X-MAP:URI=\"../dash/v\(k)/init-r.mp4\"", rotation.keyTag]
            }
            lines.append("#EXT-X-PROGRAM-DATE-TIME:\(date(ofFrame: media.segments[n].firstFrame))")
            for b in breaks { lines += markers(b, before: n, first: w.mediaSequence, offset: dash.ptsOffset) }
            lines.append("#EXTINF:\(LiveOrigin.decimal(MediaTime(value: track.durations[n], timescale: track.timescale))),")
            lines.append("../dash/v\(k)/t\(track.starts[n]).m4s")
        }
        if w.ended { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The playlist of audio language `language` (1: the sound, 2: the second language's).
    func demuxedAudio(published p: Int, _ dash: LiveOriginDASH, language: Int = 1) -> String {
        let w = window(published: p)
        let a = language == 2 ? dash.languages[0] : dash.audio
        let folder = language == 2 ? "a2" : "a"
        let firstTime = dash.videos[0].starts[w.segments.lowerBound] * a.timescale / 90_000
        let listed = audioPublished(a, dash, published: p).filter { a.end($0) > firstTime }
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(faults.targetDuration(published: p))",
                     "#EXT-X-MEDIA-SEQUENCE:\(listed.first ?? 0)", "#EXT-X-MAP:URI=\"../dash/\(folder)/init.mp4\""]
        for n in listed {
            lines.append("#EXTINF:\(LiveOrigin.decimal(MediaTime(value: a.durations[n], timescale: a.timescale))),")
            lines.append("../dash/\(folder)/\(n).m4s")
        }
        if w.ended { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }
}
