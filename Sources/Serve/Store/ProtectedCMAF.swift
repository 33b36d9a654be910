import Ads
import Foundation
import Manifest
import Timing

/// An encrypted CMAF origin's media as the store keeps it (a DASH origin whose AdaptationSets
/// carry `ContentProtection`: `cenc` or `cbcs` sample encryption): every segment as it came, byte
/// for byte, with the protection descriptors a player needs to get its keys. The service never
/// holds a key: the segments' timing and keyframes are read from their clear boxes (`moof`,
/// `trun`), never from their pictures, so a break goes in at a segment boundary (a frame-exact
/// cut needs the clear picture). Such content is served as DASH, and as HLS with CMAF segments
/// when its origin was HLS (`hls`: the `EXT-X-KEY`s it gave; a DASH `ContentProtection` names
/// no HLS key system).
///
/// Each rung's video segments are its `SegmentSpan`s (`segNNNNN.enc.m4s`, `SegmentEncryption`
/// without a key, naming the rung's initialization segment); the sound is one track of the
/// origin's segments with their own times (`audio`), listed in each content Period by the time
/// it covers.
struct ProtectedCMAF: Codable, Sendable, Hashable {
    /// The video AdaptationSet's `ContentProtection`s.
    var video: [DASH.ContentProtection]
    /// The sound, nil when the origin has none.
    var audio: Audio?
    /// The origin's other audio languages (at most `HLSImport.maxLanguages`), each kept as the
    /// main one is; nil or empty when it has none.
    var languages: [Audio]?
    /// An HLS origin's keys as its playlists gave them (URIs absolute; any key system, FairPlay's
    /// included), which its HLS sessions pass on; nil for a DASH origin, whose
    /// `ContentProtection` names no HLS key: such content is served as DASH only.
    var hls: HLSKeys?

    /// The `EXT-X-KEY` of an HLS origin's sample-encrypted variants (an audio rendition's is its
    /// `Audio.hlsKey`).
    struct HLSKeys: Codable, Sendable, Hashable {
        /// The variants' key.
        var video: HLS.Key
    }

    /// The main sound, then each other language.
    var audioTracks: [Audio] { (audio.map { [$0] } ?? []) + (languages ?? []) }

    /// The origin's main audio Representation, kept as it came.
    struct Audio: Codable, Sendable, Hashable {
        /// Store-relative path of its initialization segment.
        var initialization: String
        /// Its segments in order.
        var segments: [Segment]
        /// Ticks per second of `Segment.start` and `duration` (the track's timescale).
        var timescale: Int64
        /// Its audio time at video time 0, as (value, timescale): the origin's two
        /// `presentationTimeOffset`s put the tracks on one presentation timeline.
        var zero: [Int64]
        /// `@codecs`, `@bandwidth`, `@audioSamplingRate`, channels, `@lang` as the origin gave them.
        var codecs: String
        var bandwidth: Int
        var sampleRate: Int?
        var channels: Int?
        var language: String?
        /// Its AdaptationSet's `ContentProtection`s (none: the sound is clear).
        var protection: [DASH.ContentProtection]
        /// An HLS origin's rendition: its `EXT-X-KEY` when it is encrypted.
        var hlsKey: HLS.Key? = nil

        /// Its audio time at video time 0.
        var zeroTime: MediaTime { zero.count == 2 && zero[1] > 0 ? MediaTime(value: zero[0], timescale: zero[1]) : .zero }
    }

    /// One audio segment: store-relative path, start and duration in the track's timescale.
    struct Segment: Codable, Sendable, Hashable {
        var path: String
        var start: Int64
        var duration: Int64
    }

    /// Its files besides the rungs' video segments: the sound's, every language's.
    var files: [String] { audioTracks.flatMap { [$0.initialization] + $0.segments.map(\.path) } }

    /// Whether a record read back from the store is one the store could have written: the
    /// descriptors as `descriptors(_:)` keeps them, the audio's paths in the package (`inPackage`),
    /// its segments in order, times and attributes in bounds.
    func isWellFormed(inPackage: (String) -> Bool) -> Bool {
        guard !video.isEmpty, video.count <= Self.maxDescriptors, video.allSatisfy(Self.isKept) else { return false }
        if let hls, !SegmentEncryption.isPassedOn(hls.video, cmaf: true) { return false }
        guard (languages?.count ?? 0) <= 8, languages == nil || audio != nil else { return false }
        return audioTracks.allSatisfy { $0.isWellFormed(inPackage: inPackage) }
    }
}

extension ProtectedCMAF.Audio {
    /// Whether a track read back from the store is one the store could have written: its paths
    /// in the package, its segments in order, times, attributes and key in bounds.
    func isWellFormed(inPackage: (String) -> Bool) -> Bool {
        let a = self
        if let k = hlsKey, !SegmentEncryption.isPassedOn(k, cmaf: true) { return false }
        guard inPackage(a.initialization), !a.segments.isEmpty, a.segments.count <= 100_000, (1...10_000_000).contains(a.timescale),
              a.zero.count == 2, a.zero[1] > 0, a.zero[1] <= 10_000_000, abs(a.zero[0]) <= a.zero[1] * 86_400 * 2,
              a.protection.count <= ProtectedCMAF.maxDescriptors, a.protection.allSatisfy(ProtectedCMAF.isKept),
              a.codecs.count <= 64, a.codecs.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-".contains($0)) }),
              a.bandwidth > 0, (a.sampleRate ?? 8000) > 0, (0...64).contains(a.channels ?? 2),
              PackagedAudioTrack.printable(a.language, max: 64) else { return false }
        var next: Int64?
        for s in a.segments {
            guard inPackage(s.path), s.duration > 0, s.start >= 0, s.start <= a.timescale * 86_400 * 2, next.map({ s.start >= $0 }) ?? true else { return false }
            next = s.start + s.duration
        }
        return true
    }
}

extension ProtectedCMAF {
    /// Most descriptors kept per AdaptationSet.
    static let maxDescriptors = 8

    /// The `ContentProtection`s of `node` (an AdaptationSet or Representation) a player may be
    /// given, read from a network's XML as hostile: the scheme a URN (`urn:mpeg:dash:mp4protection:2011`
    /// or a DRM system's `urn:uuid:…`), a key id a UUID, a `pssh` base64 of at most 8 KiB, a licence
    /// URL http(s) of at most 2 KiB, every value printable without quotes or markup. Throws
    /// `StoreError` in one line for one that is not.
    static func descriptors(_ node: XMLElementNode) throws -> [DASH.ContentProtection] {
        let found = node.children("ContentProtection")
        guard found.count <= maxDescriptors else { throw StoreError.unsupported("DASH source: more than \(maxDescriptors) ContentProtection descriptors") }
        return try found.map { e in
            func fail(_ why: String) -> StoreError { StoreError.unsupported("DASH source: a ContentProtection \(why)") }
            guard let scheme = e.attribute("schemeIdUri")?.trimmingCharacters(in: .whitespaces), scheme.count <= 128,
                  scheme.lowercased() == mp4Protection || isUUIDScheme(scheme) else { throw fail("scheme is not mp4protection or urn:uuid") }
            var out = DASH.ContentProtection(schemeIdUri: scheme)
            if let v = e.attribute("value") {
                guard isPlain(v, max: 64) else { throw fail("value is not plain text") }
                out.value = v
            }
            if let kid = e.attribute("default_KID") {
                guard isUUID(kid) else { throw fail("default_KID is not a UUID") }
                out.defaultKID = kid.lowercased()
            }
            if let pssh = e.childText("pssh")?.trimmingCharacters(in: .whitespacesAndNewlines) {
                guard pssh.utf8.count <= 8192, Data(base64Encoded: pssh) != nil else { throw fail("pssh is not base64 of at most 8 KiB") }
                out.pssh = pssh
            }
            if let url = (e.childText("laurl") ?? e.childText("Laurl"))?.trimmingCharacters(in: .whitespacesAndNewlines) {
                guard isPlain(url, max: 2048), let s = URL(string: url)?.scheme?.lowercased(), s == "http" || s == "https" else {
                    throw fail("licence URL is not http(s)")
                }
                out.licenseURL = url
            }
            return out
        }
    }

    /// MPEG Common Encryption's scheme (the encryption scheme in `@value`).
    static let mp4Protection = "urn:mpeg:dash:mp4protection:2011"

    /// Whether a descriptor read back from the store is one `descriptors(_:)` keeps.
    static func isKept(_ d: DASH.ContentProtection) -> Bool {
        (d.schemeIdUri == mp4Protection || isUUIDScheme(d.schemeIdUri)) && (d.value.map { isPlain($0, max: 64) } ?? true)
            && (d.defaultKID.map(isUUID) ?? true) && (d.pssh.map { $0.utf8.count <= 8192 && Data(base64Encoded: $0) != nil } ?? true)
            && (d.licenseURL.map { isPlain($0, max: 2048) && ["http", "https"].contains(URL(string: $0)?.scheme?.lowercased() ?? "") } ?? true)
    }

    private static func isUUIDScheme(_ s: String) -> Bool { s.lowercased().hasPrefix("urn:uuid:") && isUUID(String(s.dropFirst(9))) }

    private static func isUUID(_ s: String) -> Bool {
        let groups = s.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }

    private static func isPlain(_ s: String, max: Int) -> Bool {
        !s.isEmpty && s.utf8.count <= max && s.allSatisfy { $0.isASCII && !$0.isNewline && $0 != "\"" && $0 != "<" && $0 != ">" && $0 != "&" && ($0.asciiValue ?? 0) >= 0x20 }
    }
}
