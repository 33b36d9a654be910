import Foundation
import Manifest
import Media
import Playback
import Timing

/// A live HLS origin of sample-encrypted CMAF (`EXT-X-KEY:METHOD=SAMPLE-AES` or
/// `SAMPLE-AES-CTR` over `EXT-X-MAP` segments: `cbcs` or `cenc`, FairPlay, Widevine, PlayReady
/// or ClearKey alike) taken in as it came. The service holds no key: each video segment is
/// stored byte for byte (`<msn>.enc.m4s`) under its initialization segment (kept in the store
/// once per URI, `init-K.enc.mp4`), read from its clear boxes only (its pictures' times, its
/// `emsg` SCTE-35), with the origin's audio segment of its time kept beside it
/// (`audio/<msn>.enc.m4s`, its own initialization segment and key: `SegmentEncryption.Sound`).
/// The audio rendition's segments must line up with the video's as one packager makes them (the
/// one whose middle falls in the video segment's time is its sound); a segment whose sound is not
/// published yet waits, as a clear demuxed origin's does.
///
/// Such a channel's sessions are HLS with CMAF segments (its segments' only HLS form), breaks
/// at segment boundaries (a frame-exact cut needs the clear picture).
extension LiveChannel {
    /// What `takeEncryptedCMAF` read and kept of one segment.
    struct EncryptedCMAFTake {
        var reading: LiveSegmentIntake.Reading
        var initialization: String
        var sound: SegmentEncryption.Sound?
    }

    /// Takes in the sample-encrypted CMAF segment fetched to `file` (`entry`, number `sequence`
    /// on the channel) of rendition `key` under initialization segment `map`: its times read
    /// from its boxes, its SCTE-35 from its `emsg` boxes, its sound kept beside it. Throws
    /// `AudioNotYet` while the sound of its time is not published; the first segment of each
    /// rendition is probed (`clearRung`).
    func takeEncryptedCMAF(_ file: URL, map: String, entry: LivePlaylist.Segment, sequence: Int, rendition r: inout Rendition,
                           key: String, scratch: URL) async throws -> EncryptedCMAFTake {
        let initialization = try await keptInitialization(map, rendition: &r, key: key)
        let initFile = folder.appendingPathComponent(initialization)
        let (times, startsWithKeyframe) = try FragmentRemux.pictures(initialization: initFile, segment: file, scratch: scratch)
        guard let first = times.min() else { throw LiveIntakeFailure(description: "\(entry.uri.prefix(200)) has no pictures") }
        guard startsWithKeyframe else { throw LiveIntakeFailure(description: "\(entry.uri.prefix(200)) does not start with a keyframe") }
        // (media times bounded: a tfdt past 2^32 s would overflow the clock's arithmetic)
        guard times.allSatisfy({ $0.seconds >= 0 && $0.seconds < 4e9 }) else { throw LiveIntakeFailure(description: "\(entry.uri.prefix(200)): times out of range") }
        let ticks = times.map { $0.rescaled(to: 90_000, rounding: .nearest).value % LivePTS.wrap }
        let sound = try await keptSound(entry, from: first, sequence: sequence, rendition: &r, key: key)
        let emsg = SCTE35EventMessageScan([UInt8](try Data(contentsOf: file)))
        if clearRungs[key] == nil {
            clearRungs[key] = (try? LiveSegmentProbe.probeCMAF(initialization: initFile, segment: file, audio: sound != nil, scratch: scratch)).map(LiveRungInfo.init)
        }
        let reading = LiveSegmentIntake.Reading(firstPTS: UInt64(first.rescaled(to: 90_000, rounding: .nearest).value % LivePTS.wrap),
                                                framePTS: ticks, cues: emsg.sections, rejectedSections: emsg.rejected)
        return EncryptedCMAFTake(reading: reading, initialization: initialization, sound: sound)
    }

    /// The store path of rendition `key`'s initialization segment `map` (against its playlist):
    /// fetched once per URI (at most `HLSImport.maxInitBytes`) into `live/<channel>/<key>/init-K.enc.mp4`,
    /// kept while the intake folder lives.
    private func keptInitialization(_ map: String, rendition r: inout Rendition, key: String) async throws -> String {
        if let known = r.keptInits[map] { return known }
        let path = "live/\(storeName)/\(key)/init-\(r.keptInits.count).enc.mp4"
        let target = folder.appendingPathComponent(path)
        let part = target.deletingLastPathComponent().appendingPathComponent(".init.enc.part")
        try? FileManager.default.removeItem(at: part)
        try await HLSImport.fetch(try r.location.resolve(map), to: part, maxBytes: HLSImport.maxInitBytes, timeout: timeout)
        guard rename(part.path, target.path) == 0 else {
            try? FileManager.default.removeItem(at: part)
            throw LiveIntakeFailure(description: "cannot store \(path): \(String(cString: strerror(errno)))")
        }
        r.keptInits[map] = path
        return path
    }

    /// The origin's audio segment of the video segment `entry` starting at media time `start`
    /// (the followed audio rendition of rendition `r`'s language: the segment whose middle falls in
    /// the video segment's time), linked into the store beside it as `audio/<sequence>.enc.m4s`
    /// with its initialization segment kept once per URI; nil when the channel follows no audio
    /// rendition (its video carries no sound). Throws `AudioNotYet` while the audio playlist does
    /// not reach the segment's end (after `fetchAttempts` × 2 polls, a failure: its sound never came).
    private func keptSound(_ entry: LivePlaylist.Segment, from start: MediaTime, sequence: Int, rendition r: inout Rendition,
                           key: String) async throws -> SegmentEncryption.Sound? {
        guard audioFollows.indices.contains(r.language) else { return nil }
        let follow = audioFollows[r.language]
        let end = start + entry.duration
        r.mediaEnd = end
        // the middle of a segment in [start, end): compared doubled, exactly
        guard let s = follow.segments.first(where: { $0.start + $0.end >= start + start && $0.start + $0.end < end + end }) else {
            if !follow.ended, (follow.segments.last?.end ?? .zero) < end {
                let count = (r.audioWaits?.uri == entry.uri ? r.audioWaits?.count ?? 0 : 0) + 1
                if count < Self.fetchAttempts * 2 {
                    r.audioWaits = (entry.uri, count)
                    throw AudioNotYet()
                }
            }
            r.audioWaits = nil
            throw LiveIntakeFailure(description: "\(entry.uri.prefix(200)): no audio segment of its time (\(start.seconds)–\(end.seconds) s) in the audio rendition: its segments must line up with the video's")
        }
        r.audioWaits = nil
        let resolved = try follow.location.resolve(s.uri)
        guard let source = audioFiles[Self.key(resolved)]?.file else { throw LiveIntakeFailure(description: "\(s.uri.prefix(200)): the audio segment is gone") }
        // its initialization segment, in the store once per URI
        let initialization: String
        if let known = r.keptSoundInits[s.initialization] { initialization = known } else {
            let local = try await audioInitialization(s.initialization, at: follow.location,
                                                      in: folder.appendingPathComponent("live/\(storeName)/.audio"))
            initialization = "live/\(storeName)/\(key)/\(ProtectedCMAFImport.audioFolder)/init-\(r.keptSoundInits.count).enc.mp4"
            try storeLinked(local, as: initialization)
            r.keptSoundInits[s.initialization] = initialization
        }
        let path = LiveSegment.soundPath(channel: storeName, rendition: key, sequence: sequence)
        try storeLinked(source, as: path)
        return SegmentEncryption.Sound(path: path, initialization: initialization, key: s.key)
    }

    /// `file` linked (copied where a link cannot be made) to store path `path`, under a
    /// temporary name renamed once whole.
    private func storeLinked(_ file: URL, as path: String) throws {
        let target = folder.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let part = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).part")
        try? FileManager.default.removeItem(at: part)
        guard link(file.path, part.path) == 0 || (try? FileManager.default.copyItem(at: file, to: part)) != nil,
              rename(part.path, target.path) == 0 else {
            try? FileManager.default.removeItem(at: part)
            throw LiveIntakeFailure(description: "cannot store \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Whether the channel's newest segment is sample-encrypted CMAF kept as it came: its
    /// sessions are HLS with CMAF segments only, its breaks at segment boundaries.
    public nonisolated var isEncryptedCMAF: Bool { encryptedCMAF.withLock { $0 } }
}
