import Foundation
import Media
import Timing

/// How an ad's video got into a smart-rendered output.
package enum TranscodeCacheUse: String, Sendable, Codable {
    /// Copied from the transcode cache: nothing of it was encoded.
    case hit
    /// Encoded, and stored in the cache for next time.
    case stored
    /// Encoded, not stored (stopped early, or a remote file).
    case encoded
}

/// Plays ads of a smart-rendered stitch through the transcode cache: a hit copies the cached
/// packets; a miss encodes the ad as its own run (its own encoder, starting on an IDR, flushed at
/// its end, so the packets stand alone) and stores them.
final class AdTranscoding {
    let cache: AdTranscodeCache
    private var hashes: [String: String?] = [:]   // media file → SHA-256 of its bytes, once per stitch

    init(cache: AdTranscodeCache) { self.cache = cache }

    /// The cache key of `url` for `profile`; nil for a remote or unreadable file.
    func key(for url: String, profile: String) -> String? {
        guard let media = mediaHash(url), let p = try? ContentHash.sha256(Data(profile.utf8)) else { return nil }
        return media + "-" + p.prefix(16)
    }

    /// SHA-256 of the bytes of `url`, once per stitch; nil for a remote or unreadable file.
    func mediaHash(_ url: String) -> String? {
        if hashes[url] == nil {
            hashes[url] = .some(url.contains("://") ? nil : try? ContentHash.sha256(fileAt: url))
        }
        return hashes[url] ?? nil
    }

    /// What an ad's audio samples are, for the transcode cache's encoded audio runs: its bytes
    /// (which fix its origin, the first video frame, too).
    func audioIdentity(_ url: String) -> String? { mediaHash(url).map { "ad \($0)" } }

    /// Plays the ad at `url` onto `surface`/`output` through `run` (the frame loop's ad path): a
    /// hit as its cached packets, a miss decoded and encoded as a run of its own, then stored when
    /// it played to its end. `loudness` attaches gain to its audio.
    func play(_ url: String, output: SmartOutput, surface: RenderSurface, threads: Int, endAdjustment: MediaTime = .zero,
              loudness: (AudioTrack, Bool) throws -> LoudnessNormalizer.Applied?,
              run: (any Feed) throws -> AdRun) throws -> (AdRun, LoudnessNormalizer.Applied?, TranscodeCacheUse) {
        let format = surface.format
        let key = self.key(for: url, profile: output.profileKey)
        if let key, let entry = cache.load(key), let origin = MediaTime(pair: entry.origin),
           Self.fits(entry, endAdjustment: endAdjustment, period: format.frameDuration) {
            let reader = try SourceReader(url: url, wantAudio: true, wantVideo: false, policy: .adMedia)
            let audio = try AudioTrack(reader: reader, output: format)
            audio.origin = origin
            audio.runIdentity = audioIdentity(url)
            let levelled = try loudness(audio, reader.audio != nil)
            return (try run(CachedAd(entry, audio: audio, output: output, threads: threads)), levelled, .hit)
        }
        let ad = try MediaSource(url: url, output: format, threads: threads, policy: .adMedia)
        ad.audio.runIdentity = audioIdentity(url)
        let levelled = try loudness(ad.audio, ad.hasAudio)
        try output.endRun()
        let base = surface.presentedFrames
        var packets: [AdTranscodeCache.CachedPacket] = []
        output.recorder = { p, index in packets.append(.init(index: index - base, key: p.isKeyframe, bytes: p.bytes)) }
        defer { output.recorder = nil }
        let feed = RecordedFeed(DecodedFeed(source: ad, output: format, isAd: true, endAdjustment: endAdjustment))
        let ran = try run(feed)
        try output.endRun()
        output.recorder = nil
        let sourcePTS = feed.times, outcome = ran.outcome
        guard ran.end == .playedOut, let key, let origin = ad.video.origin, outcome.frames == Int64(sourcePTS.count),
              packets.count == sourcePTS.count else {
            return (ran, levelled, .encoded)
        }
        var entry = AdTranscodeCache.Entry(frames: sourcePTS.count, sourcePTS: sourcePTS.map(\.pair), sourceEnd: outcome.sourceEnd.pair,
                                           origin: origin.pair)
        entry.endAdjustment = endAdjustment.pair
        entry.packets = packets
        cache.store(entry, key: key)
        return (ran, levelled, .stored)
    }

    /// Whether a cached entry fills exactly the frames the cursor would give the ad now, with the
    /// rounding carried from earlier ads (`endAdjustment`); otherwise the ad is encoded again.
    static func fits(_ entry: AdTranscodeCache.Entry, endAdjustment: MediaTime, period: MediaTime) -> Bool {
        guard let first = entry.sourcePTS.first.flatMap({ MediaTime(pair: $0) }), let end = MediaTime(pair: entry.sourceEnd) else { return false }
        let stored = entry.endAdjustment.flatMap { MediaTime(pair: $0) } ?? .zero
        let natural = end - stored
        return FrameSelection.frameCount(from: first, to: natural + endAdjustment, period: period) == Int64(entry.frames)
    }
}

/// A feed whose frames' source times are kept (an ad being stored in the transcode cache).
private final class RecordedFeed: Feed {
    private let feed: any Feed
    private(set) var times: [MediaTime] = []

    init(_ feed: any Feed) { self.feed = feed }

    func play(until cue: MediaTime?, on surface: RenderSurface, onFrame: (MediaTime) -> Bool) throws -> SegmentOutcome {
        try feed.play(until: cue, on: surface) { pts in
            times.append(pts)
            return onFrame(pts)
        }
    }

    var ended: Bool { feed.ended }
    var nextContentTime: MediaTime? { feed.nextContentTime }
}
