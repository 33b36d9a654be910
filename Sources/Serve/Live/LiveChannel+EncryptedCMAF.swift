import Foundation
import Manifest
import Media
import Playback
import Timing

/// A live origin of sample-encrypted CMAF — HLS (`EXT-X-KEY:METHOD=SAMPLE-AES` or
/// `SAMPLE-AES-CTR` over `EXT-X-MAP` segments) or DASH (`ContentProtection`): `cbcs` or `cenc`,
/// FairPlay, Widevine, PlayReady or ClearKey alike — taken in as it came. The service holds no key: each video segment is
/// stored byte for byte (`<msn>.enc.m4s`) under its initialization segment (kept in the store
/// once per URI, `init-K.enc.mp4`), read from its clear boxes only (its pictures' times, its
/// `emsg` SCTE-35), with the origin's audio segment of its time kept beside it
/// (`audio/<msn>.enc.m4s`, its own initialization segment and key: `SegmentEncryption.Sound`).
/// The audio rendition's segments must line up with the video's as one packager makes them (the
/// one whose middle falls in the video segment's time is its sound); a segment whose sound is not
/// published yet waits, as a clear demuxed origin's does.
///
/// Such a channel's sessions are DASH (multi-period: each content Period under the origin's
/// initialization segments and `ContentProtection`) and, when its segments have an HLS key, HLS
/// with CMAF segments (their only HLS form); breaks at segment boundaries (a frame-exact cut
/// needs the clear picture).
extension LiveChannel {
    /// How a channel's sample-encrypted CMAF is said to players: whether its segments carry an
    /// HLS key (its sessions' HLS playlists name it; a DASH origin's name none, so it has no HLS),
    /// and its DASH `ContentProtection`s — a DASH origin's as its MPD gave them, an HLS origin's
    /// made from its key (`ProtectedCMAFImport.descriptors`: the scheme and `default_KID`, a DRM
    /// system's `pssh` from a `data:` URI) — the video's and the sound's (none when it is clear).
    public struct EncryptedCMAF: Sendable, Equatable {
        /// Its segments carry an HLS key (`EXT-X-KEY`), which HLS sessions pass on.
        public var hls: Bool
        /// The video AdaptationSets' `ContentProtection`s in a session's MPD.
        public var video: [DASH.ContentProtection]
        /// The sound's; empty when it is clear.
        public var audio: [DASH.ContentProtection]
    }

    /// What `takeEncryptedCMAF` read and kept of one segment.
    struct EncryptedCMAFTake {
        var reading: LiveSegmentIntake.Reading
        var initialization: String
        var sound: SegmentEncryption.Sound?
        /// Its earliest presentation time on its track's timeline.
        var mediaStart: MediaTime
        /// How the channel's encryption is said.
        var said: EncryptedCMAF
    }

    /// Takes in the sample-encrypted CMAF segment fetched to `file` (`entry`, number `sequence`
    /// on the channel) of rendition `key` under initialization segment `map`: its times read
    /// from its boxes, its SCTE-35 from its `emsg` boxes, its sound kept beside it. Throws
    /// `AudioNotYet` while the sound of its time is not published; the first segment of each
    /// rendition is probed (`clearRung`).
    func takeEncryptedCMAF(_ file: URL, map: String, entry: LivePlaylist.Segment, sequence: Int, rendition r: inout Rendition,
                           key: String, hlsKey: HLS.Key?, scratch: URL) async throws -> EncryptedCMAFTake {
        let initialization = try await keptInitialization(map, rendition: &r, key: key)
        let initFile = folder.appendingPathComponent(initialization)
        // (in presentation order: the first is the earliest)
        let (times, startsWithKeyframe) = try FragmentRemux.pictures(initialization: initFile, segment: file, scratch: scratch)
        guard let first = times.first else { throw LiveIntakeFailure(description: "\(entry.uri.prefix(200)) has no pictures") }
        guard startsWithKeyframe else { throw LiveIntakeFailure(description: "\(entry.uri.prefix(200)) does not start with a keyframe") }
        // (media times bounded: a tfdt past 2^32 s would overflow the clock's arithmetic)
        guard times.allSatisfy({ $0.seconds >= 0 && $0.seconds < 4e9 }) else { throw LiveIntakeFailure(description: "\(entry.uri.prefix(200)): times out of range") }
        let ticks = times.map { $0.rescaled(to: 90_000, rounding: .nearest).value % LivePTS.wrap }
        let sound = try await keptSound(entry, from: first, sequence: sequence, rendition: &r, key: key)
        let emsg = SCTE35EventMessageScan([UInt8](try Data(contentsOf: file)))
        if clearRungs[key] == nil {
            clearRungs[key] = (try? LiveSegmentProbe.probeCMAF(initialization: initFile, segment: file, audio: sound != nil, scratch: scratch)).map(LiveRungInfo.init)
        }
        let reading = LiveSegmentIntake.Reading(firstPTS: UInt64(ticks[0]), framePTS: ticks, cues: emsg.sections, rejectedSections: emsg.rejected)
        return EncryptedCMAFTake(reading: reading, initialization: initialization, sound: sound, mediaStart: first,
                                 said: said(initialization, map: map, hlsKey: hlsKey, sound: sound))
    }

    /// How encryption under `initialization` (kept from the origin's `map`) is said
    /// (`EncryptedCMAF`), worked out once per initialization segment: a DASH origin's descriptors
    /// (those of the Period listing segments under `map`), else those of the HLS key; the sound's
    /// as said when its initialization segment was kept (`soundProtection`).
    private func said(_ initialization: String, map: String, hlsKey: HLS.Key?, sound: SegmentEncryption.Sound?) -> EncryptedCMAF {
        if let known = protectionByInit.withLock({ $0[initialization] }) { return known }
        var out = EncryptedCMAF(hls: hlsKey != nil, video: [], audio: sound.map { soundProtection(initialization: $0.initialization) } ?? [])
        if let mpd, !mpd.videoProtection.isEmpty {
            // (the descriptors of the origin's Period whose segments are under this initialization segment)
            out.video = mpd.protection(initialization: map) ?? mpd.videoProtection
        } else if let hlsKey {
            out.video = descriptors(hlsKey, under: initialization)
        }
        protectionByInit.withLock { if $0.count < 64 { $0[initialization] = out } }
        return out
    }

    /// The DASH descriptors of HLS key `key` over the segments under kept initialization segment
    /// `initialization` (a store path): the scheme's with the `default_KID` of its `tenc`, and a
    /// DRM system's `pssh` (`ProtectedCMAFImport.descriptors`); none when they cannot be made.
    private func descriptors(_ key: HLS.Key, under initialization: String) -> [DASH.ContentProtection] {
        let kid = (try? Data(contentsOf: folder.appendingPathComponent(initialization))).flatMap(ProtectedCMAFImport.defaultKID) ?? ""
        return (try? ProtectedCMAFImport.descriptors(key, kid: kid)) ?? []
    }

    /// The store path of rendition `key`'s initialization segment `map` (against its playlist):
    /// fetched once per URI (at most `HLSImport.maxInitBytes`) into `live/<channel>/<key>/init-K.enc.mp4`,
    /// kept while the intake folder lives.
    private func keptInitialization(_ map: String, rendition r: inout Rendition, key: String) async throws -> String {
        if let known = r.keptInits[map] { return known }
        let path = "live/\(storeName)/\(key)/init-\(r.initsKept).enc.mp4"
        r.initsKept += 1
        let target = folder.appendingPathComponent(path)
        let part = target.deletingLastPathComponent().appendingPathComponent(".init.enc.part")
        try? FileManager.default.removeItem(at: part)
        try await HLSImport.fetch(try r.location.resolve(map), to: part, maxBytes: HLSImport.maxInitBytes, timeout: timeout)
        guard rename(part.path, target.path) == 0 else {
            try? FileManager.default.removeItem(at: part)
            throw LiveIntakeFailure(description: "cannot store \(path): \(String(cString: strerror(errno)))")
        }
        r.keptInits[map] = path
        r.newestKeptInit = path
        return path
    }

    /// The origin's audio segment of the video segment `entry` starting at media time `start`
    /// (a DASH origin's main audio, or the followed HLS audio rendition of rendition `r`'s
    /// language: the segment whose middle falls in the video segment's time), linked into the store beside it as `audio/<sequence>.enc.m4s`
    /// with its initialization segment kept once per URI; nil when the channel follows no audio
    /// rendition (its video carries no sound). Throws `AudioNotYet` while the audio playlist does
    /// not reach the segment's end (after `fetchAttempts` × 2 polls, a failure: its sound never came).
    private func keptSound(_ entry: LivePlaylist.Segment, from start: MediaTime, sequence: Int, rendition r: inout Rendition,
                           key: String) async throws -> SegmentEncryption.Sound? {
        // the audio listed: a DASH origin's main audio AdaptationSet's, or the HLS audio rendition followed
        let follow: (segments: [LiveMPD.TrackSegment], ended: Bool, location: HLSLocation)
        if let mpd, mpd.hasAudio {
            // (a language rung's: its language's AdaptationSet)
            guard r.language == 0 || mpd.languages.indices.contains(r.language - 1) else { return nil }
            follow = (r.language == 0 ? mpd.audio : mpd.languages[r.language - 1].audio, mpd.ended, source)
        }
        else if audioFollows.indices.contains(r.language) { follow = (audioFollows[r.language].segments, audioFollows[r.language].ended, audioFollows[r.language].location) }
        else { return nil }
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
        // (an HLS rendition's segments are fetched as it is polled; a DASH origin's now, once)
        let audioFolder = folder.appendingPathComponent("live/\(storeName)/.audio")
        try FileManager.default.createDirectory(at: audioFolder, withIntermediateDirectories: true)
        let file = try await audioFile(s, at: follow.location, in: audioFolder)
        // its initialization segment, in the store once per URI
        let initialization: String
        if let known = r.keptSoundInits[s.initialization] { initialization = known } else {
            let local = try await audioInitialization(s.initialization, at: follow.location, in: audioFolder)
            initialization = "live/\(storeName)/\(key)/\(ProtectedCMAFImport.audioFolder)/init-\(r.initsKept).enc.mp4"
            r.initsKept += 1
            try storeLinked(local, as: initialization)
            r.keptSoundInits[s.initialization] = initialization
            r.newestKeptSoundInit = initialization
            // (how its encryption is said, once: an HLS key's descriptors, or a DASH origin's)
            let said = s.key.map { descriptors($0, under: initialization) } ?? s.protection
            if !said.isEmpty { soundProtectionByInit.withLock { if $0.count < 64 { $0[initialization] = said } } }
        }
        let path = LiveSegment.soundPath(channel: storeName, rendition: key, sequence: sequence)
        try storeLinked(file, as: path)
        let ticks = s.start.timescale == s.duration.timescale ? s.start.timescale : 90_000
        return SegmentEncryption.Sound(path: path, initialization: initialization, key: s.key,
                                       span: [s.start.rescaled(to: ticks).value, s.duration.rescaled(to: ticks).value, ticks])
    }

    /// Removes rendition `r`'s kept initialization segments (video and sound) that no segment it
    /// keeps is under any more and that are not the newest — what an origin's key rotation left
    /// behind — from the store and from what is said of them (evicted with the last segment
    /// under them, as a segment's sound goes with it).
    func forgetInitializations(_ r: inout Rendition) {
        var used = Set([r.newestKeptInit, r.newestKeptSoundInit].compactMap { $0 })
        guard r.keptInits.count + r.keptSoundInits.count > used.count else { return }
        for s in r.segments {
            if let i = s.encryption?.initialization { used.insert(i) }
            if let i = s.encryption?.sound?.initialization { used.insert(i) }
        }
        let gone = Array(r.keptInits.values.filter { !used.contains($0) }) + r.keptSoundInits.values.filter { !used.contains($0) }
        guard !gone.isEmpty else { return }
        r.keptInits = r.keptInits.filter { used.contains($0.value) }
        r.keptSoundInits = r.keptSoundInits.filter { used.contains($0.value) }
        for p in gone { StoreFile.remove(p, in: folder) }
        protectionByInit.withLock { for p in gone { $0[p] = nil } }
        soundProtectionByInit.withLock { for p in gone { $0[p] = nil } }
        evicted(gone)
    }

    /// Whether the channel's newest segment is sample-encrypted CMAF kept as it came: its
    /// sessions are DASH (multi-period) and, with an HLS key, HLS with CMAF segments; its breaks
    /// at segment boundaries.
    public nonisolated var isEncryptedCMAF: Bool { encryptedCMAF.withLock { $0 != nil } }

    /// How the newest segment's encryption is said, when it is sample-encrypted CMAF.
    public nonisolated var encryptedCMAFSaid: EncryptedCMAF? { encryptedCMAF.withLock { $0 } }

    /// The `ContentProtection`s of the sound under kept initialization segment `initialization`
    /// (a store path; an HLS origin's audio rendition's, another language's included): those of
    /// its key, empty when it is clear.
    public nonisolated func soundProtection(initialization: String) -> [DASH.ContentProtection] {
        soundProtectionByInit.withLock { $0[initialization] } ?? []
    }

    /// How the encryption of the segments under kept initialization segment `initialization`
    /// (a store path) is said: a Period of them says that, not the newest's (an origin that
    /// rotates its key gives its later segments another); the newest's when it is not known.
    public nonisolated func encryptedCMAFSaid(initialization: String?) -> EncryptedCMAF? {
        initialization.flatMap { i in protectionByInit.withLock { $0[i] } } ?? encryptedCMAFSaid
    }
}
