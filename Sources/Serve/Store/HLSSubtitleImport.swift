import Foundation
import Manifest

/// Reads an HLS origin's subtitle renditions (`EXT-X-MEDIA:TYPE=SUBTITLES` with a URI): each
/// one's VOD media playlist and WebVTT segments, fetched under the origin's rules (sizes, time
/// limits, a remote playlist never naming a local file), their cues placed on the MPEG-TS clock
/// by each segment's `X-TIMESTAMP-MAP` (RFC 8216 §3.5) and a cue a packager repeated in the next
/// segment kept once; a playlist of fMP4 segments (IMSC `stpp` or `wvtt` behind an `EXT-X-MAP`)
/// read by `MP4TextCues`, its media time the MPEG-TS clock's. A track that cannot be read (not
/// WebVTT, not VOD, encrypted, too large) is
/// left out with a one-line note: subtitles never cost the content.
enum HLSSubtitleImport {
    /// Largest subtitle segment read.
    static let maxSegmentBytes: Int64 = 1 << 20
    /// Most segments a subtitle playlist may list.
    static let maxSegments = 20_000

    /// One track as fetched: its rendition and its cues on the origin's MPEG-TS clock (90 kHz).
    struct Track {
        var rendition: HLS.Rendition
        var cues: [WebVTT.Cue]
    }

    /// The subtitle tracks `master` names (at most `SubtitleTrack.maxTracks`), and a note per
    /// track left out. `clockShift` (ticks) moves cue times as the store moves the origin's
    /// timestamps (a CMAF origin's); each segment's bytes count towards `total`, which may not
    /// pass `cap`.
    static func fetch(_ master: HLS.MultivariantPlaylist, location: HLSLocation, scratch: URL, timeout: Double, clockShift: Int64,
                      total: inout Int64, cap: Int64) async -> (tracks: [Track], notes: [String]) {
        var tracks: [Track] = [], notes: [String] = []
        for r in master.renditions where r.type == .subtitles {
            guard let uri = r.uri else { continue }
            guard tracks.count < SubtitleTrack.maxTracks else { notes.append("subtitles '\(r.name.prefix(64))': more than \(SubtitleTrack.maxTracks) tracks"); continue }
            do {
                let cues = try await track(uri, location: location, scratch: scratch, timeout: timeout, total: &total, cap: cap)
                tracks.append(Track(rendition: r, cues: cues.map { var c = $0; c.start += clockShift; c.end += clockShift; return c }))
            } catch {
                notes.append("subtitles '\(r.name.prefix(64))' left out: \(String(describing: error).prefix(200))")
            }
        }
        return (tracks, notes)
    }

    /// One track's cues on the MPEG-TS clock, in start order, each once.
    static func track(_ uri: String, location: HLSLocation, scratch: URL, timeout: Double, total: inout Int64, cap: Int64) async throws -> [WebVTT.Cue] {
        let at = try location.resolve(uri)
        guard case .media(let p) = try HLSPlaylistText.parse(try await HLSImport.text(at, scratch: scratch, timeout: timeout)) else {
            throw StoreError.unsupported("a multivariant playlist where a subtitle playlist was expected")
        }
        guard p.endList else { throw StoreError.unsupported("not a VOD playlist (no EXT-X-ENDLIST)") }
        guard p.segments.count <= maxSegments else { throw StoreError.unsupported("\(p.segments.count) segments (at most \(maxSegments))") }
        if p.segments.contains(where: { $0.key.map { $0.method != .none } ?? false || $0.byteRange != nil }) {
            throw StoreError.unsupported("encrypted or byte-range subtitle segments (WebVTT files, or WebVTT or IMSC in fMP4, are read)")
        }
        if let map = p.segments.first?.map {
            return try await mp4Track(p, map: map, at: at, scratch: scratch, timeout: timeout, total: &total, cap: cap)
        }
        var seen = Set<WebVTT.Cue>()
        var cues: [WebVTT.Cue] = []
        for s in p.segments {
            let file = scratch.appendingPathComponent("subtitle-\(UUID().uuidString).vtt")
            defer { try? FileManager.default.removeItem(at: file) }
            try await HLSImport.fetch(try at.resolve(s.uri), to: file, maxBytes: maxSegmentBytes, timeout: timeout, total: &total, cap: cap)
            for c in try Self.cues(in: file, what: "segment \(s.uri.prefix(120))") where seen.insert(c).inserted { cues.append(c) }
            guard cues.count <= SubtitleTrack.maxCues else { throw StoreError.unsupported("more than \(SubtitleTrack.maxCues) cues") }
        }
        return cues
    }

    /// The cues of a subtitle playlist of fMP4 segments (`EXT-X-MAP`: IMSC `stpp` or `wvtt`, read
    /// by `MP4TextCues`), one map for all of them: their media time is the MPEG-TS clock's
    /// seconds (HLS puts every rendition on one timeline), so each cue's time is taken modulo
    /// 2^33 ticks as a PTS is; a cue the segments cut made one again.
    static func mp4Track(_ p: HLS.MediaPlaylist, map: HLS.Map, at: HLSLocation, scratch: URL, timeout: Double,
                         total: inout Int64, cap: Int64) async throws -> [WebVTT.Cue] {
        guard p.segments.allSatisfy({ $0.map == nil || $0.map == map }), map.byteRange == nil else {
            throw StoreError.unsupported("fMP4 subtitle segments under more than one EXT-X-MAP, or a map by byte range")
        }
        let file = scratch.appendingPathComponent("subtitle-\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: file) }
        try await HLSImport.fetch(try at.resolve(map.uri), to: file, maxBytes: 64 << 10, timeout: timeout, total: &total, cap: cap)
        let header = try FragmentedTextTrack.header(try Data(contentsOf: file))
        var cues: [WebVTT.Cue] = []
        for s in p.segments {
            try await HLSImport.fetch(try at.resolve(s.uri), to: file, maxBytes: maxSegmentBytes, timeout: timeout, total: &total, cap: cap)
            for var c in try MP4TextCues.cues(try Data(contentsOf: file), header, what: "segment \(s.uri.prefix(120))")
            where c.text.utf8.count <= SubtitleTrack.maxCueText {
                let length = c.end - c.start
                c.start = ((c.start % (WebVTT.maxMPEGTS + 1)) + (WebVTT.maxMPEGTS + 1)) % (WebVTT.maxMPEGTS + 1)
                c.end = c.start + length
                cues.append(c)
            }
            guard cues.count <= SubtitleTrack.maxCues else { throw StoreError.unsupported("more than \(SubtitleTrack.maxCues) cues") }
        }
        return FragmentedTextTrack.merged(cues)
    }

    /// The cues of the WebVTT file at `file` on the MPEG-TS clock (by its `X-TIMESTAMP-MAP`),
    /// those with more than `SubtitleTrack.maxCueText` bytes of text dropped; a file that is not
    /// UTF-8 WebVTT within `SubtitleTrack.maxCues` is an error naming `what`.
    static func cues(in file: URL, what: String) throws -> [WebVTT.Cue] {
        guard let text = String(data: try Data(contentsOf: file), encoding: .utf8) else { throw StoreError.unsupported("\(what) is not UTF-8 text") }
        do {
            return try WebVTT.parse(text, maxCues: SubtitleTrack.maxCues).cuesOnMPEGTSClock.filter { $0.text.utf8.count <= SubtitleTrack.maxCueText }
        } catch {
            throw StoreError.unsupported("\(what): \(error)")
        }
    }

    /// `tracks` on the content's timeline: cue times less `firstPTS` (the content's first frame
    /// on the same clock), cut to `[0, duration)`; cues wholly outside dropped.
    static func onContentTimeline(_ tracks: [Track], firstPTS: Int64, duration: Int64) -> [SubtitleTrack] {
        tracks.map { t in
            let cues = t.cues.compactMap { c -> WebVTT.Cue? in
                var c = c
                c.start = max(0, c.start - firstPTS)
                c.end = min(duration, c.end - firstPTS)
                return c.end > c.start ? c : nil
            }
            let r = t.rendition
            return SubtitleTrack(name: r.name, language: r.language, isDefault: r.isDefault, autoselect: r.autoselect, forced: r.forced,
                                 characteristics: r.characteristics, cues: cues)
        }
    }
}
