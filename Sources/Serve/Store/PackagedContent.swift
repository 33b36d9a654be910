import Foundation
import Manifest
import Timing

/// A content packaged into the store, as its `content.json` records it (a restart reads it back
/// instead of packaging again).
struct PackagedContent: Codable, Sendable {
    /// Bumped when the store's layout or encoding changes: an older package is made again.
    static let version = 4   // 3: renditions carry the frame rate and codec ads are made at; 4: cuts re-encode the sound after a cue (`CutSound`)

    var version: Int
    var name: String
    /// The source file packaged (the copied rung's video and every rung's audio are read from it
    /// when a cut is made).
    var source: String
    var sourceSHA256: String
    var frameRateNumerator: Int64
    var frameRateDenominator: Int64
    var frameCount: Int
    var originFrames: Int
    var audioIndex: Int?
    var renditions: [PackagedRendition]
    /// Frames the origin marks as cues (an HLS source's CUE-OUT / SCTE-35 DATERANGE).
    var originCueFrames: [Int] = []
    /// Content time of frame 0 on the content's timeline, (value, timescale) (`ContentScan.videoStart`);
    /// nil: 0 (an HLS import, or a package made before it was recorded).
    var videoStartTime: [Int64]? = nil
    /// An HLS origin's WebVTT subtitle tracks, cues on the content's timeline; nil: none.
    var subtitles: [SubtitleTrack]? = nil
    /// What the import left out, one line each (a subtitle track it could not read).
    var notes: [String]? = nil
    /// An HLS origin's audio renditions (its variants' `AUDIO` group): the default first, whose
    /// sound the ladder's segments carry, then one per other language with the rung that carries
    /// it (`languageRungs`); nil: the content's own sound only.
    var audioTracks: [PackagedAudioTrack]? = nil
    /// The rungs carrying the other languages: the lowest variant's video with that language's
    /// sound muxed in (a session takes their sound as that language's track), never a variant.
    var languageRungs: [PackagedRendition]? = nil
    /// An encrypted CMAF origin's protection and sound (`ProtectedCMAF`); nil: not one.
    var protectedCMAF: ProtectedCMAF? = nil

    /// Content time of frame 0: cue `t` cuts at the first frame at or after `t - videoStart`
    /// frames of it.
    var videoStart: MediaTime {
        guard let v = videoStartTime, v.count == 2, v[1] > 0, v[0] >= 0 else { return .zero }
        return MediaTime(value: v[0], timescale: v[1])
    }

    var frameRate: Rational { Rational(frameRateNumerator, frameRateDenominator) }
    var period: MediaTime { frameRate.period }
    var duration: MediaTime { period * Int64(frameCount) }

    func rendition(_ name: String) -> PackagedRendition? {
        renditions.first { $0.rendition.name == name } ?? languageRungs?.first { $0.rendition.name == name }
    }

    /// Its stored files but the record: every rung's segments and encoded video.
    var files: [String] {
        let rungs = (renditions + (languageRungs ?? [])).flatMap { r in r.segments.map(\.path) + (r.video.isEmpty ? [] : [r.video]) }
        // an encrypted CMAF rung's initialization segment (the same for all its segments), the sound's files
        let initializations = renditions.compactMap { $0.segments.first?.encryption?.initialization }
        return rungs + initializations + (protectedCMAF?.files ?? [])
    }

    /// What the HTTP side sees.
    var prepared: PreparedContent {
        var p = PreparedContent(name: name, duration: duration, renditions: renditions.map { ($0.rendition.serving(frameRate: frameRate, codecs: $0.codecs, decodeDelayTicks: $0.decodeDelayTicks), $0.codecs) },
                                originCues: originCueFrames.map { period * Int64($0) }, subtitles: subtitles ?? [], notes: notes ?? [])
        p.encrypted = encrypted
        p.protectedCMAF = protectedCMAF
        p.audioTracks = (audioTracks ?? []).map { t in
            AudioTrack(name: t.name, language: t.language, isDefault: t.rung == nil, autoselect: t.autoselect, channels: t.channels,
                       rendition: t.rung.flatMap { name in languageRungs?.first { $0.rendition.name == name } }
                           .map { $0.rendition.serving(frameRate: frameRate, codecs: $0.codecs, decodeDelayTicks: $0.decodeDelayTicks) },
                       base: t.base)
        }
        return p
    }

    /// Whether its segments are encrypted (every rung's, then: an origin encrypts all or none).
    var encrypted: Bool { renditions.contains { $0.segments.contains { $0.encryption != nil } } }
}

/// One rung of a packaged content.
struct PackagedRendition: Codable, Sendable {
    var rendition: Rendition
    /// CODECS of its variant ("avc1.640015,mp4a.40.2").
    var codecs: String
    /// Whether its video is the source's packets (else `video` holds its encode).
    var copied: Bool
    /// Store-relative path of its encoded video (NUT), empty for the copied rung.
    var video: String
    var segments: [SegmentSpan]
    /// Whether its segments are an HLS origin's (a cut reads the segment's own file, video and
    /// audio, on the origin's clock), and their audio stream.
    var hlsOrigin: Bool = false
    var mediaAudioIndex: Int? = nil
    /// Its frames' decode delay (90 kHz), read off its first segment at packaging.
    var decodeDelayTicks: Int64? = nil
}

/// One origin segment: frames `[startFrame, endFrame)` (a keyframe starts it).
struct SegmentSpan: Codable, Sendable, Hashable {
    var startFrame: Int
    var endFrame: Int
    /// Store-relative path.
    var path: String
    /// How it is encrypted (an AES-128 origin's); nil: clear.
    var encryption: SegmentEncryption? = nil
}

extension PackagedContent {
    /// Whether a record read back from the store (`content.json`, which anyone who can write the
    /// folder can plant) is one the store could have written under `prefix`: a frame rate and
    /// frame count in bounds, rungs the store can name (`MediaStore.isRungName`, sizes up to 8192;
    /// CODECS of letters, digits, '.', ',', '-' and spaces), each rung's segments contiguous frames from 0 to
    /// the end, every path plain, under `prefix` and one of the unit's `files` (the index's, whose
    /// files are checked on disk).
    func isWellFormed(prefix: String, files: Set<String>) -> Bool {
        guard frameRateNumerator > 0, frameRateDenominator > 0, frameRateNumerator / frameRateDenominator <= 240,
              frameRateNumerator <= 1_000_000, frameCount > 0, frameCount <= 240 * 3600 * 24,
              !renditions.isEmpty, renditions.count <= 16, Set(renditions.map(\.rendition.name)).count == renditions.count,
              originCueFrames.allSatisfy({ (0...frameCount).contains($0) }), audioIndex.map({ (0..<64).contains($0) }) ?? true,
              (subtitles?.count ?? 0) <= SubtitleTrack.maxTracks, subtitles?.allSatisfy(\.isWellFormed) ?? true,
              (notes?.count ?? 0) <= 64 else { return false }
        func inPackage(_ path: String) -> Bool {
            path.hasPrefix(prefix + "/") && MediaStore.isSafeRelativePath(path) && files.contains(path)
        }
        guard (languageRungs?.count ?? 0) <= 8, (audioTracks?.count ?? 0) <= 9,
              audioTracks?.allSatisfy({ t in t.isWellFormed && (t.rung.map { n in languageRungs?.contains { $0.rendition.name == n } ?? false } ?? true)
                  && (t.base.map { b in renditions.contains { $0.rendition.name == b } } ?? true) }) ?? true,
              Set((renditions + (languageRungs ?? [])).map(\.rendition.name)).count == renditions.count + (languageRungs?.count ?? 0) else { return false }
        for r in renditions + (languageRungs ?? []) {
            let rung = r.rendition
            guard MediaStore.isRungName(rung.name), (2...8192).contains(rung.width), (2...8192).contains(rung.height),
                  rung.videoBitrate > 0, rung.audioBitrate > 0,
                  r.codecs.count <= 128, r.codecs.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".,- ".contains($0)) }),
                  r.copied ? r.video.isEmpty : inPackage(r.video), !r.segments.isEmpty,
                  r.mediaAudioIndex.map({ (0..<64).contains($0) }) ?? true else { return false }
            var next = 0
            for s in r.segments {
                // an encrypted CMAF rung's segments are its origin's, each naming the rung's one initialization segment
                let cmaf = protectedCMAF != nil
                guard s.startFrame == next, s.endFrame > s.startFrame, s.path.hasSuffix(cmaf ? ".enc.m4s" : ".ts"), inPackage(s.path),
                      s.encryption?.isWellFormed ?? !cmaf, (s.encryption?.initialization).map(inPackage) ?? !cmaf,
                      s.encryption?.initialization == r.segments[0].encryption?.initialization else { return false }
                next = s.endFrame
            }
            guard next == frameCount else { return false }
        }
        return protectedCMAF?.isWellFormed(inPackage: inPackage) ?? true
    }
}


/// One audio rendition of an HLS origin as the store keeps it.
struct PackagedAudioTrack: Codable, Sendable, Hashable {
    /// `NAME`, `LANGUAGE`, `AUTOSELECT`, `CHANNELS` as the origin gave them.
    var name: String
    var language: String?
    var autoselect: Bool
    var channels: String?
    /// The language rung carrying it (nil: the default, carried by the ladder's own segments).
    var rung: String?
    /// The ladder rung whose video the language rung copies (its ads are that rung's).
    var base: String?

    /// An origin's `EXT-X-MEDIA:TYPE=AUDIO` rendition as kept (its attributes cut to their
    /// bounds; no rung yet).
    init(_ r: HLS.Rendition) {
        name = String(r.name.prefix(128)); language = r.language.map { String($0.prefix(64)) }
        autoselect = r.autoselect || r.isDefault; channels = r.channels.map { String($0.prefix(16)) }
    }

    /// Printable attributes of bounded length (they go into playlists and MPDs).
    var isWellFormed: Bool {
        Self.printable(name, max: 128) && Self.printable(language, max: 64) && Self.printable(channels, max: 16) && (rung == nil) == (base == nil)
    }

    /// Whether `s` (nil passes) is printable, of at most `max` bytes, with no quote, markup or line end.
    static func printable(_ s: String?, max: Int) -> Bool {
        s.map { !$0.isEmpty && $0.utf8.count <= max && !$0.contains { $0 == "\"" || $0 == "<" || $0 == "&" || $0.isNewline || $0.asciiValue.map { $0 < 0x20 } == true } } ?? true
    }
}
