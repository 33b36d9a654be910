import Foundation
import Media

/// AAC packets of a smart-rendered stitch's audio, kept in the transcode cache (`--transcode-cache`)
/// per source run so that a later stitch placing the same samples at the same phase of the AAC
/// grid copies them instead of encoding them again (`SmartOutput.audioSource`).
///
/// An entry holds, for one source's samples as they reach the output (`identity`: the content's
/// file and timeline origin, or an ad's SHA-256 and origin; conformed to the output's rate and
/// channels, with no loudness gain and no layer mixing sound), encoded by one audio profile
/// (`profile`: encoder, rate, channels, bit rate, AudioSpecificConfig) with one phase (the run's
/// shift modulo the frame size), the packets whose whole MDCT window lay inside a run of that
/// source at least `SmartOutput.audioMargin` packets from its joins, by the source sample their
/// window starts at. Such a packet encodes nothing but those samples; it fits any later run of
/// the same source at the same phase whose interior holds its window. Stored in the transcode
/// cache's own file format (`AdTranscodeCache`, so its size limit and least-recently-used order
/// count these entries too): packet index = the source sample, keyframe flag unused.
final class AudioRunCache {
    private let store: AdTranscodeCache

    init(store: AdTranscodeCache) { self.store = store }

    /// The entry name for `identity` encoded by `profile` at `phase`.
    func key(identity: String, profile: String, phase: Int64) -> String? {
        (try? ContentHash.sha256("interlude-audio-run-v1\n\(identity)\n\(profile)\nphase=\(phase)")).map { "aac-" + $0.prefix(40) }
    }

    /// The packets of entry `key` by source sample (empty when there is none or it is damaged).
    func load(_ key: String) -> [Int64: [UInt8]] {
        guard let entry = store.loadFile(key) else { return [:] }
        var out: [Int64: [UInt8]] = [:]
        for p in entry.packets { out[p.index] = p.bytes }
        return out
    }

    /// Adds `packets` (by source sample) to entry `key`, keeping those it holds.
    func merge(_ packets: [Int64: [UInt8]], key: String) {
        guard !packets.isEmpty else { return }
        var all = load(key)
        let before = all.count
        all.merge(packets) { old, _ in old }
        guard all.count > before else { return }
        var entry = AdTranscodeCache.Entry(frames: 0, sourcePTS: [], sourceEnd: [0, 1], origin: [0, 1])
        entry.packets = all.keys.sorted().map { AdTranscodeCache.CachedPacket(index: $0, key: false, bytes: all[$0]!) }
        store.store(entry, key: key)
    }
}
