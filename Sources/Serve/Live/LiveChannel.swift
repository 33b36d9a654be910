import Foundation
import Manifest
import Media
import Playback
import Threads
import Timing

/// A live HLS source (a sliding media or multivariant playlist) followed into the store.
/// Each `poll()` reads every rendition's playlist through the hardened fetcher
/// (`HLSImport.text` / `HLSImport.fetch`: size caps, timeouts, http(s) only from a remote
/// playlist), fetches each new segment once to `live/<channel>/<intake>/<rendition>/<seq>.ts`
/// under `folder` (written under a temporary name, renamed once whole), reads its first video
/// PTS and in-band SCTE-35 (`LiveSegmentIntake`), places it on the channel's own numbering and clock (`LiveTimeline`), folds markers and cues into breaks
/// (`LiveBreakTracker`) and keeps `history` of segments after they left the origin's window
/// (viewers' playlists hold more than the origin shows: at least three target durations, and a
/// viewer waiting on an ad decision stays inside what the channel holds), deleting older ones.
/// `run()` polls at the playlist's target duration. Readers take snapshots with
/// `window(rendition:)`. A multivariant source's renditions are named `v0`, `v1` … by
/// descending bandwidth; a media playlist source is rendition `main`.
///
/// Each process takes a channel into an intake folder of its own (`intake`: the host and the
/// process id), so that nodes sharing a store folder (a fleet) never read one another's
/// half-written segment, remove one another's files, or number one origin segment differently
/// under one path; an intake folder nothing has written to for `staleIntakeAge` (a node gone) is
/// removed when a channel of that name starts.
///
/// The origin is hostile, and the channel goes on whatever it does (each `LiveFault` logged once
/// per channel as a `live_origin_fault` line until it has not happened for a few polls):
/// - its media sequence goes back, resets, jumps or cannot be read: new segments are found by
///   URI and numbered on (`LiveTimeline`);
/// - its PTS jump (back, reset, repeated, by over a second, with or without a discontinuity):
///   the segment is re-anchored right after the last one on the channel's clock, a
///   discontinuity, with its `clockOffset`;
/// - a segment's `EXTINF` is 0 or over the target: skipped, the next one a discontinuity; the
///   target duration changes: taken, viewers split longer items;
/// - a segment cannot be fetched or is not MPEG-TS with video: retried at the next polls (the
///   segments after it wait), skipped after `fetchAttempts` polls, the next one a discontinuity;
/// - in-band SCTE-35 sections that do not parse, and splice times over 10 minutes from their
///   segment, make no break.
public actor LiveChannel {
    /// The channel's name (a store path component).
    public let name: String
    /// This process's intake folder under `live/<name>/` (a store path component).
    public nonisolated let intake: String
    /// `<name>/<intake>`: where this process's segments of the channel lie under `live/`.
    public nonisolated var storeName: String { "\(name)/\(intake)" }
    /// An intake folder not written to for this long belongs to a node that is gone.
    public static let staleIntakeAge: Double = 600
    /// How long segments are kept (on disk, and in `window`) after they leave the origin's window.
    public let history: MediaTime
    let source: HLSLocation
    let folder: URL
    let timeout: Double
    private var renditions: [String: Rendition] = [:]
    let evicted: @Sendable ([String]) -> Void
    private let log: ServeLog?
    private var faults = LiveFaultLog()
    /// The origin is a DASH MPD (known after the first poll).
    private var isDASH = false
    /// DASH: the MPD read at the last poll.
    var mpd: LiveMPD?
    /// DASH: the audio segments fetched, by URI (a file in the intake's `.audio` folder and its
    /// media span), and their initialization segments.
    private var audioFiles: [String: (file: URL, start: MediaTime, end: MediaTime)] = [:]
    private var audioInits: [String: URL] = [:]
    private var audioCount = 0
    /// HLS: the origin's audio renditions with a playlist of their own (CMAF), followed: the
    /// default of the variants' `AUDIO` group first, whose sound is muxed into every variant's
    /// segments as a DASH origin's audio AdaptationSet's is, then up to `maxLanguages` other
    /// languages, each muxed into a language rung (`a1`, `a2` …: the lowest variant's video
    /// with that sound). Empty when the variants carry their own sound.
    var audioFollows: [LiveAudioFollow] = []
    /// The origin's main audio rendition and its other languages (`LiveChannel.languages`), as
    /// the first poll found them (HLS: the `AUDIO` group's; DASH: the audio AdaptationSets').
    private var mainAudio: HLS.Rendition?
    private var otherAudio: [HLS.Rendition] = []
    /// HLS: the origin's WebVTT subtitle renditions and their cues on the channel's clock.
    private var subtitles = LiveSubtitles()
    /// The text tracks' initialization segments read (MP4 text: a DASH origin's, an HLS
    /// origin's fMP4 subtitle renditions'), by location (`textHeader`).
    private var textHeaders: [(location: HLSLocation, header: FragmentedTextTrack.Header)] = []

    /// What the newest segment taken in says when it is sample-encrypted CMAF kept as it came
    /// (`isEncryptedCMAF`), readable without waiting for the actor (every request of a session
    /// asks); nil when it is not.
    let encryptedCMAF = Locked<EncryptedCMAF?>(nil)
    /// The DASH descriptors of each kept initialization segment (by store path), said once;
    /// readable without waiting for the actor (a content Period says those of its segments'
    /// initialization segment: `encryptedCMAFSaid(initialization:)`).
    let protectionByInit = Locked<[String: EncryptedCMAF]>([:])
    /// The DASH descriptors of each kept sound initialization segment under a key (by store
    /// path): another language's sound says its own (`soundProtection(initialization:)`).
    let soundProtectionByInit = Locked<[String: [DASH.ContentProtection]]>([:])

    /// Most CMAF initialization segments a rendition keeps fetched (clear CMAF: each is needed
    /// only while its segments are taken in; one evicted is fetched again if named again).
    static let maxInitializations = 8

    /// Polls a segment that cannot be fetched (or read) is tried before it is skipped.
    public static let fetchAttempts = 3

    struct Rendition {
        var location: HLSLocation
        var segments: [LiveSegment] = []
        var tracker = LiveBreakTracker()
        var timeline = LiveTimeline()
        var targetDuration = MediaTime(seconds: 6)
        var targetSeen = false
        var ended = false
        /// Failed polls of the segment the rendition waits for (its origin URI).
        var failures: (uri: String, count: Int)?
        /// The markers in front of segments skipped since the last one taken: they go with the
        /// next one (a break signalled before a segment that could not be had still happens).
        var carried: [LiveMarker] = []
        /// CMAF: the initialization segments fetched, by URI (files in the intake folder; the
        /// newest `maxInitializations`, oldest first: an origin naming a new one per segment
        /// leaves no trail), and how many were ever fetched (what names the next).
        var inits: [(uri: String, file: URL)] = []
        var initsFetched = 0
        /// Sample-encrypted CMAF: the initialization segments kept in the store (store paths), by
        /// URI, the video's and the sound's (`LiveChannel+EncryptedCMAF`), each while a segment
        /// kept is under it or it is the newest; how many were ever kept (what names the next).
        var keptInits: [String: String] = [:]
        var keptSoundInits: [String: String] = [:]
        var initsKept = 0
        /// The newest kept video and sound initialization segments (store paths): they stay
        /// while no segment is under them yet (`forgetInitializations`).
        var newestKeptInit: String?, newestKeptSoundInit: String?
        /// CMAF: the continuity counters the last remuxed segment ended at (the next continues them).
        var counters: [Int: UInt8] = [:]
        /// This process's first segment of the rendition is kept as its initialization source
        /// (`LiveSegment.initializationPath`).
        var initializationKept = false
        /// DASH: where the last segment taken ends on its media timeline (audio before it can go).
        var mediaEnd: MediaTime?
        /// DASH: polls the segment waited for its audio (its origin URI).
        var audioWaits: (uri: String, count: Int)?
        /// The audio muxed in: 0 the main sound (a variant), N the N-th other language
        /// (language rung `aN`: `audioFollows[N]`, or a DASH origin's `LiveMPD.languages[N - 1]`).
        var language = 0
        /// A language rung's variant, whose video it carries.
        var video: String?
        /// A language rung whose variant's segments are MPEG-TS: not carried (not offered).
        var refused = false

        mutating func skipped(_ new: LiveTimeline.New) {
            timeline.skip(new)
            carried = Array((carried + new.entry.markers).suffix(64))
        }
    }

    /// A channel reading `source` (an http(s) URL or a local path) into `folder` (the store root);
    /// `evicted` hears the store paths of segments deleted (what the store made of them can go too).
    public init(name: String, source: String, folder: URL, history: MediaTime = MediaTime(seconds: 60), timeout: Double = 10,
                log: ServeLog? = nil, evicted: @escaping @Sendable ([String]) -> Void = { _ in }) throws {
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw StoreError.unsupported("live channel name \(name) must be letters, digits, - or _")
        }
        self.name = name
        intake = Self.processIntake
        self.source = try HLSLocation.source(source)
        self.folder = folder
        Self.removeStaleIntakes(of: name, in: folder, keeping: intake)
        self.history = MediaTime.max(.zero, history)
        self.timeout = timeout
        self.evicted = evicted
        self.log = log
    }

    /// This process's intake folder name: its host (letters, digits, `-`, `.`) and process id.
    static let processIntake: String = {
        let host = ProcessInfo.processInfo.hostName.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
        return "\(host.isEmpty ? "host" : String(host.prefix(64)))-\(getpid())"
    }()

    /// Removes the intake folders of channel `name` under the store `root` other than `keeping`
    /// that nothing has written to for `staleIntakeAge` (the folder or a rendition folder in it),
    /// and the files and folders of the layout before intake folders (`<rendition>/<seq>.ts`
    /// directly under it) as old. Through `StoreFile`: a link planted on the way is never
    /// followed, and nothing outside the store is removed.
    static func removeStaleIntakes(of name: String, in root: URL, keeping: String) {
        let channel = "live/\(name)"
        guard StoreFile.isFolder(channel, in: root),
              let entries = try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(channel).path) else { return }
        func changed(_ relative: String) -> Int { StoreFile.status(relative, in: root).map { Int($0.st_mtim.tv_sec) } ?? 0 }
        let now = Int(Date().timeIntervalSince1970)
        for entry in entries where entry != keeping && !entry.hasPrefix(".") {
            let intake = "\(channel)/\(entry)"
            var newest = changed(intake)
            if StoreFile.isFolder(intake, in: root) {
                for sub in (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(intake).path)) ?? [] {
                    newest = max(newest, changed("\(intake)/\(sub)"))
                }
            }
            if Double(now - newest) > staleIntakeAge { StoreFile.remove(intake, in: root) }
        }
    }

    /// The rendition names of the variants (not the language rungs), after the first poll.
    public var renditionNames: [String] { renditions.filter { $0.value.language == 0 }.keys.sorted() }

    /// The origin's other audio languages this channel carries, in order: each one's language
    /// rung key (`a1` …: the lowest variant's video with that sound, a rendition of
    /// `window(rendition:)`), the variant whose video it carries, and the origin's `EXT-X-MEDIA`
    /// for it (name, language, channels).
    public var languages: [(key: String, video: String, rendition: HLS.Rendition)] {
        otherAudio.indices.compactMap { k in
            guard let r = renditions["a\(k + 1)"], !r.refused, let video = r.video else { return nil }
            return ("a\(k + 1)", video, otherAudio[k])
        }
    }

    /// The main audio rendition (HLS: the default's `EXT-X-MEDIA`; DASH: the main audio
    /// AdaptationSet's name and `lang`) when the channel has other languages (what a viewer
    /// names the variants' own sound); nil otherwise.
    public var defaultLanguage: HLS.Rendition? { otherAudio.isEmpty ? nil : mainAudio }

    /// Breaks signalled since the channel started (the first rendition's).
    public var breaksSeen: Int { renditionNames.first.flatMap { renditions[$0]?.tracker.opened } ?? 0 }

    /// A snapshot of `rendition`: the segments the channel holds (the origin's current window
    /// and up to `history` before it) and the breaks that start or are expected to end within or
    /// after them. Nil for an unknown rendition.
    public func window(rendition: String) -> LiveWindow? {
        guard let r = renditions[rendition] else { return nil }
        let segments = r.segments
        let from = segments.first?.firstPTS ?? .min
        let breaks = r.tracker.breaks.filter { $0.startPTS >= from || ($0.expectedEndPTS ?? .max) >= from }
        return LiveWindow(segments: segments, breaks: breaks, targetDuration: r.targetDuration, ended: r.ended)
    }

    /// Polls every rendition once, after any poll in progress (the actor is reentrant at its
    /// awaits: two polls at once would fetch the same segment into the same file).
    public func poll() async throws {
        let previous = polling
        let task = Task { _ = try? await previous?.value; try await self.pollOnce() }
        polling = task
        defer { if polling == task { polling = nil } }
        try await task.value
    }

    private var polling: Task<Void, any Error>?

    private func pollOnce() async throws {
        let scratch = folder.appendingPathComponent("live/\(storeName)/.scratch")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        if isDASH || renditions.isEmpty {
            let text: String
            do { text = try await HLSImport.text(source, scratch: scratch, timeout: timeout) } catch {
                if isDASH { report(.playlistUnavailable, rendition: "mpd", "\(error)") }
                throw error
            }
            if renditions.isEmpty { isDASH = DASHImport.isMPD(text) }
            if isDASH { return try await pollDASH(text, scratch: scratch) }
            audioFollows = try audioGroup(text)
            if case .multivariant(let m) = try HLSPlaylistText.parse(text) { subtitles.tracks = LiveSubtitles.tracks(in: m, at: source) }
            if let variants = try HLSPlaylistText.variants(text) {
                for (i, v) in variants.enumerated() { renditions["v\(i)"] = Rendition(location: try source.resolve(v.uri)) }
                // each other language: a rung of the lowest variant's video with its sound
                if let lowest = renditions["v\(variants.count - 1)"], audioFollows.count > 1 {
                    mainAudio = audioFollows[0].rendition
                    otherAudio = audioFollows.dropFirst().map(\.rendition)
                    for k in audioFollows.indices.dropFirst() {
                        renditions["a\(k)"] = Rendition(location: lowest.location, language: k, video: "v\(variants.count - 1)")
                    }
                }
            } else {
                renditions["main"] = Rendition(location: source)
            }
        }
        defer { faults.pollEnded(); if !audioFollows.isEmpty { forgetAudio() } }
        // every rendition is polled even when one fails (the first failure is thrown after): the
        // variants' playlists first, then the sound to mux into them (read after the pictures:
        // it lists at least as much), then the variants' new segments, then each language rung
        // on the playlist its variant was read at
        var failure: (any Error)?
        var read: [String: LivePlaylist] = [:]
        for key in renditionNames {
            do { read[key] = try await readPlaylist(key, scratch: scratch) } catch { failure = failure ?? error }
        }
        // MPEG-TS variants carry their own sound: nothing muxes the AUDIO group's renditions in
        if !audioFollows.isEmpty, let first = read["v0"]?.segments.first, first.map == nil { stopFollowingAudio() }
        // (a refused language rung's sound is not followed: nothing would mux it)
        for k in audioFollows.indices where renditions["a\(k)"]?.refused != true { await pollAudio(k, scratch: scratch) }
        for key in renditionNames {
            guard let playlist = read[key] else { continue }
            do { try await take(playlist, key: key, scratch: scratch) } catch { failure = failure ?? error }
        }
        for key in renditions.keys.sorted() {
            guard let video = renditions[key]?.video, let playlist = read[video] else { continue }   // its variant's playlist: said already
            do { try await take(playlist, key: key, scratch: scratch) } catch { failure = failure ?? error }
        }
        if !subtitles.tracks.isEmpty { await pollSubtitles(scratch: scratch) }
        if let failure { throw failure }
    }

    /// The cues of subtitle track `track` showing in channel time `[from, to)` (90 kHz), cut to
    /// it and counted from `from`; nil when there is no such track.
    public func subtitleCues(track: Int, from: Int64, to: Int64) -> [WebVTT.Cue]? {
        guard subtitles.tracks.indices.contains(track) else { return nil }
        return SubtitleTrack(name: "", cues: subtitles.tracks[track].cues).cues(from: from, to: to)
    }

    /// The origin's subtitle renditions this channel follows (`EXT-X-MEDIA:TYPE=SUBTITLES` of
    /// the variants' group, with a playlist), in order.
    public func subtitleRenditions() -> [HLS.Rendition] { subtitles.tracks.map(\.rendition) }

    /// The WebVTT segment of subtitle track `track` for channel time `[from, to)` (90 kHz), its
    /// first frame MPEG-TS time `wirePTS` for the viewer; nil when there is no such track.
    public func subtitleSegment(track: Int, from: Int64, to: Int64, wirePTS: Int64?, local: Int64 = 0) -> String? {
        subtitles.segment(track: track, from: from, to: to, wirePTS: wirePTS, local: local)
    }

    /// Each subtitle rendition at this poll: its playlist read, each new segment (by media
    /// sequence number, at most `LiveSubtitles.maxSegmentsPerPoll`) fetched once (at most
    /// 1 MiB, WebVTT) and its cues put on the channel's clock where the first rendition's video
    /// is. A failure is logged and that track waits for the next poll: subtitles never cost the video.
    private func pollSubtitles(scratch: URL) async {
        guard let clock = subtitleClock else { return }
        for k in subtitles.tracks.indices {
            let t = subtitles.tracks[k]
            let playlist: LivePlaylist
            do { playlist = try LivePlaylist(parsing: try await HLSImport.text(t.location, scratch: scratch, timeout: timeout)) } catch {
                report(.playlistUnavailable, rendition: "subtitles", "\(t.rendition.name.prefix(64)): \(error)")
                continue
            }
            if let last = playlist.segments.last?.sequence, last + 1 < t.next { subtitles.tracks[k].next = 0 }   // a restarted origin
            for entry in playlist.segments.filter({ $0.sequence >= subtitles.tracks[k].next }).prefix(LiveSubtitles.maxSegmentsPerPoll) {
                // a segment that cannot be had, or read, is skipped (said once): its cues are lost, not the video's time
                subtitles.tracks[k].next = entry.sequence + 1
                // WebVTT mapped by its `X-TIMESTAMP-MAP`; fMP4 (IMSC or WebVTT in MP4) on the same clock by its media time
                await takeSubtitleSegment(entry.uri, at: t.location, initialization: entry.map, track: k, clock: clock, scratch: scratch)
            }
        }
    }

    /// Logs `fault` (one line) unless it is being logged already.
    func report(_ fault: LiveFault, rendition: String, _ detail: String) {
        guard faults.happened(fault) else { return }
        log?.event("live_origin_fault", ["channel": name, "rendition": rendition, "kind": fault.rawValue, "detail": String(detail.prefix(500))])
    }

    /// Polls until the origin's playlist ends or the task is cancelled, at the smallest target
    /// duration; a failed poll is retried at the next tick.
    public func run() async {
        while !Task.isCancelled {
            try? await poll()
            if !renditions.isEmpty, renditions.values.allSatisfy(\.ended) { return }
            let tick = renditions.values.map(\.targetDuration).min() ?? MediaTime(seconds: 2)
            try? await Task.sleep(nanoseconds: UInt64(max(0.2, tick.seconds) * 1e9))
        }
    }

    /// Keeps `file`, the rendition's first segment taken in by this process, as
    /// `LiveSegment.initializationPath` for as long as the intake folder lives (never evicted):
    /// what a viewer's CMAF playlists name in their one `EXT-X-MAP` (its CMAF tracks' initialization
    /// segments), so that the map's URI stays the same, and fetchable, at every refresh while the
    /// segments it was first made from slide out. Linked (copied where a link cannot be made) under
    /// a temporary name and renamed. False when it could not be kept (tried again at the next segment).
    private func keepInitialization(_ file: URL, rendition key: String) -> Bool {
        (try? storeLinked(file, as: LiveSegment.initializationPath(channel: storeName, rendition: key))) != nil
    }

    /// `file` linked (copied where a link cannot be made) to store path `path`, under a
    /// temporary name renamed once whole; a failure says why in one line.
    func storeLinked(_ file: URL, as path: String) throws {
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

    /// The origin's video segment at `location` into `file`, fetched once: the bytes fetched
    /// before are taken again (`rawVideo`, kept as links, the newest 64) — by a language rung,
    /// which shows its variant's pictures, and by a segment taken again at the next poll because
    /// its sound was not published yet (a demuxed origin's last segment, most polls); a segment
    /// that failed otherwise is fetched again (`forgetRawVideo`). `keep`: the bytes can be taken
    /// again (a CMAF segment; an MPEG-TS one is stored as it came and never waits).
    private func fetchVideo(_ location: HLSLocation, to file: URL, keep: Bool) async throws {
        let id = Self.key(location)
        if let raw = rawVideo.first(where: { $0.id == id }), (try? FileManager.default.copyItem(at: raw.file, to: file)) != nil { return }
        try await HLSImport.fetch(location, to: file, maxBytes: HLSImport.maxSegmentBytes, timeout: timeout)
        guard keep else { return }
        let folder = folder.appendingPathComponent("live/\(storeName)/.raw")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        rawCount += 1
        let kept = folder.appendingPathComponent("\(rawCount).m4s")
        guard link(file.path, kept.path) == 0 || (try? FileManager.default.copyItem(at: file, to: kept)) != nil else { return }
        rawVideo.append((id, kept))
        while rawVideo.count > 64 { try? FileManager.default.removeItem(at: rawVideo.removeFirst().file) }
    }

    /// Forgets the bytes kept for `location` (the next take fetches it again).
    private func forgetRawVideo(_ location: HLSLocation) {
        let id = Self.key(location)
        for raw in rawVideo where raw.id == id { try? FileManager.default.removeItem(at: raw.file) }
        rawVideo.removeAll { $0.id == id }
    }

    /// The AES-128 key `key` names (16 bytes) and the key as players get it (its URI absolute),
    /// fetched once per URI (`HLSImport.keyBytes`; the newest 64 kept).
    private func keyBytes(_ key: HLS.Key, at location: HLSLocation, scratch: URL) async throws -> (HLS.Key, [UInt8]) {
        var cache = keys
        let found = try await HLSImport.keyBytes(key, at: location, scratch: scratch, timeout: timeout, keys: &cache)
        if cache.count > 64, let uri = found.0.uri { cache = [uri: found.1] }
        keys = cache
        return found
    }

    /// AES-128 keys fetched, by absolute URI.
    private var keys: [String: [UInt8]] = [:]

    /// What an AES-128 segment fetched to `file` holds, decrypted in memory only (the store keeps
    /// it as it came); the first of `rendition` is probed too (`clearRung`: its picture, frame rate
    /// and codecs, read from a private temporary file removed at once). A failure says why.
    private func readEncrypted(_ file: URL, key: [UInt8], iv: [UInt8], rendition: String) -> Result<LiveSegmentIntake.Reading, LiveIntakeFailure> {
        let clear: Data
        do { clear = try AES128.decryptCBC(try Data(contentsOf: file), key: key, iv: iv) } catch {
            return .failure(LiveIntakeFailure(description: "cannot be decrypted: \(error)"))
        }
        guard let reading = LiveSegmentIntake.read(clear, counters: true) else { return .failure(LiveIntakeFailure(description: "decrypted is not MPEG-TS with video")) }
        if clearRungs[rendition] == nil {
            let probe = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-probe-\(UUID().uuidString).ts")
            if FileManager.default.createFile(atPath: probe.path, contents: clear, attributes: [.posixPermissions: 0o600]) {
                clearRungs[rendition] = (try? LiveSegmentProbe.probe(probe)).map(LiveRungInfo.init)
            }
            try? FileManager.default.removeItem(at: probe)
        }
        return .success(reading)
    }

    /// What the first segment of each encrypted rendition showed: its clear bytes (AES-128,
    /// `readEncrypted`), or its clear headers and parameter sets (SAMPLE-AES).
    var clearRungs: [String: LiveRungInfo] = [:]

    /// Whether the channel's newest segments are encrypted (AES-128 or SAMPLE-AES, kept as they came): its
    /// sessions are HLS with MPEG-TS segments only, its breaks at segment boundaries.
    public var isEncrypted: Bool { renditions.values.contains { $0.segments.last?.encryption != nil } }

    /// What rendition `key` is, read from its first segment's clear bytes when its segments are
    /// encrypted (the store cannot probe them); nil otherwise.
    public func clearRung(_ key: String) -> LiveRungInfo? { clearRungs[key] }

    /// The newest video segments fetched (by resolved location), oldest first.
    private var rawVideo: [(id: String, file: URL)] = []
    private var rawCount = 0

    /// A CMAF segment fetched to `file`, made MPEG-TS in place: its initialization segment
    /// `map` (fetched once per URI, at most `HLSImport.maxInitBytes`) and it remuxed with their
    /// packets copied and timestamps kept (`FragmentRemux`: SCTE-35 splice times in the playlist
    /// stay on the segments' clock), its continuity counters following the segment before.
    private func remuxCMAF(_ file: URL, map: String, rendition r: inout Rendition, folder dir: URL, entry: LivePlaylist.Segment) async throws {
        let initFile: URL
        if let known = r.inits.first(where: { $0.uri == map })?.file { initFile = known } else {
            initFile = dir.appendingPathComponent(".init\(r.initsFetched).mp4")
            r.initsFetched += 1
            try await HLSImport.fetch(try r.location.resolve(map), to: initFile, maxBytes: HLSImport.maxInitBytes, timeout: timeout)
            r.inits.append((map, initFile))
            while r.inits.count > Self.maxInitializations { try? FileManager.default.removeItem(at: r.inits.removeFirst().file) }
        }
        let ts = file.appendingPathExtension("ts")
        defer { try? FileManager.default.removeItem(at: ts) }
        var audio: FragmentRemux.AudioSpan?
        if let mpd, mpd.hasAudio, entry.mediaStart != nil {
            // a language rung's: its language's segments (none when a later MPD dropped it)
            let listed = r.language == 0 ? mpd.audio : mpd.languages.indices.contains(r.language - 1) ? mpd.languages[r.language - 1].audio : []
            audio = try await audioSpan(for: file, initialization: initFile, entry: entry, rendition: &r, listed: listed, ended: mpd.ended,
                                        at: source, folder: dir)
        } else if audioFollows.indices.contains(r.language) {
            let follow = audioFollows[r.language]
            audio = try await audioSpan(for: file, initialization: initFile, entry: entry, rendition: &r, listed: follow.segments,
                                        ended: follow.ended, at: follow.location, folder: dir)
        }
        defer { if let audio { try? FileManager.default.removeItem(at: audio.file) } }
        try StoreRemux.segment(file, initialization: initFile, to: ts, audio: audio, counters: &r.counters, what: "live source: CMAF segment")
        try FileManager.default.removeItem(at: file)
        try FileManager.default.moveItem(at: ts, to: file)
    }

    /// A video segment's sound is not published yet.
    struct AudioNotYet: Error {}

    /// The audio of video segment `file` (`entry`) of a DASH origin or of an HLS origin with an
    /// audio rendition: from its first picture for its duration, as one fMP4 file (the audio
    /// initialization segment and every audio segment of that time, each fetched once, URIs
    /// against `location`), for `FragmentRemux` to mux in. `listed`: the audio segments the
    /// origin lists now (`ended`: all it will). Throws `AudioNotYet` while they do not reach the
    /// segment's end (tried again at the next poll; after `fetchAttempts` × 2 polls the segment
    /// goes on with the sound there is, none when none of its time is listed: nil).
    private func audioSpan(for file: URL, initialization: URL, entry: LivePlaylist.Segment, rendition r: inout Rendition,
                           listed: [LiveMPD.TrackSegment], ended: Bool, at location: HLSLocation, folder dir: URL) async throws -> FragmentRemux.AudioSpan? {
        let picture = try FragmentRemux.firstPicture(initialization: initialization, segment: file, scratch: dir)
        let need = picture + entry.duration
        if entry.mediaStart == nil { r.mediaEnd = need }
        if !ended, (listed.last?.end ?? .zero) < need {
            let count = (r.audioWaits?.uri == entry.uri ? r.audioWaits?.count ?? 0 : 0) + 1
            if count < Self.fetchAttempts * 2 {
                r.audioWaits = (entry.uri, count)
                throw AudioNotYet()
            }
            report(.segmentUnavailable, rendition: "audio", "no audio listed to \(need.seconds) s for \(entry.uri.prefix(200)): taken with the sound there is")
        }
        r.audioWaits = nil
        let margin = MediaTime(value: 1, timescale: 2)
        let parts = listed.filter { $0.end > picture - margin && $0.start < need + margin }
        guard !parts.isEmpty else { return nil }   // no sound listed for its time at all: the segment goes without
        let folder = folder.appendingPathComponent("live/\(storeName)/.audio")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // one fMP4: the first part's initialization segment (fetched once per URI), then every part
        let initFile = try await audioInitialization(parts[0].initialization, at: location, in: folder)
        var bytes = try Data(contentsOf: initFile)
        for part in parts {
            bytes.append(try Data(contentsOf: try await audioFile(part, at: location, in: folder)))
        }
        let span = dir.appendingPathComponent(".audio-span.mp4")
        try bytes.write(to: span)
        return FragmentRemux.AudioSpan(file: span, length: entry.duration, first: false, last: false)
    }

    /// The file of listed audio segment `part` (its URI against `location`): fetched into
    /// `folder` (which exists) the first time, kept by its resolved location (`audioFiles`).
    func audioFile(_ part: LiveMPD.TrackSegment, at location: HLSLocation, in folder: URL) async throws -> URL {
        let resolved = try location.resolve(part.uri)
        if let known = audioFiles[Self.key(resolved)] { return known.file }
        audioCount += 1
        let fragment = folder.appendingPathComponent("\(audioCount).m4s")
        try await HLSImport.fetch(resolved, to: fragment, maxBytes: HLSImport.maxSegmentBytes, timeout: timeout)
        audioFiles[Self.key(resolved)] = (fragment, part.start, part.end)
        return fragment
    }

    /// The audio track's initialization segment `uri` (against `location`): fetched into `folder`
    /// the first time (at most `HLSImport.maxInitBytes`), kept by URI.
    func audioInitialization(_ uri: String, at location: HLSLocation, in folder: URL) async throws -> URL {
        let resolved = try location.resolve(uri)
        if let known = audioInits[Self.key(resolved)] { return known }
        let file = folder.appendingPathComponent("init\(audioInits.count).mp4")
        try await HLSImport.fetch(resolved, to: file, maxBytes: HLSImport.maxInitBytes, timeout: timeout)
        audioInits[Self.key(resolved)] = file
        return file
    }

    /// What audio files and initialization segments are kept by: the resolved location (two
    /// languages' playlists may name their segments alike).
    private static func key(_ location: HLSLocation) -> String {
        switch location {
        case .file(let path): return "file:" + path
        case .remote(let url): return url.absoluteString
        }
    }

    /// Stops following the origin's audio renditions (the variants carry their own sound), said
    /// once: their files go, and no poll reads their playlists again.
    private func stopFollowingAudio() {
        log?.event("live_origin_note", ["channel": name, "detail": "the variants are MPEG-TS with their own sound: the AUDIO group's renditions are not followed"])
        for f in audioFiles.values { try? FileManager.default.removeItem(at: f.file) }
        for f in audioInits.values { try? FileManager.default.removeItem(at: f) }
        audioFiles = [:]
        audioInits = [:]
        audioFollows = []
    }

    /// Deletes the audio segments no rendition needs any more (ending 10 s before where the
    /// slowest one is), and the oldest past 256.
    private func forgetAudio() {
        guard !audioFiles.isEmpty else { return }
        let slowest = renditions.values.compactMap(\.mediaEnd).min()
        var gone = audioFiles.filter { e in slowest.map { e.value.end + MediaTime(seconds: 10) < $0 } ?? false }.map(\.key)
        let left = audioFiles.count - gone.count
        if left > 256 { gone += audioFiles.filter { !gone.contains($0.key) }.sorted { $0.value.start < $1.value.start }.prefix(left - 256).map(\.key) }
        for uri in gone {
            if let f = audioFiles.removeValue(forKey: uri) { try? FileManager.default.removeItem(at: f.file) }
        }
        if !gone.isEmpty {
            for k in audioFollows.indices {
                let location = audioFollows[k].location
                audioFollows[k].segments.removeAll { s in (try? location.resolve(s.uri)).map { audioFiles[Self.key($0)] == nil } ?? true }
            }
        }
    }

    /// Most other audio languages a channel carries (each a language rung).
    public static let maxLanguages = 3

    /// The audio renditions of the variants' `AUDIO` group in master playlist `text` that have
    /// a playlist of their own, to follow: the default (or the first) first, then up to
    /// `maxLanguages` others, each one's name and language as the origin gives them. Empty: the
    /// variants carry their sound, or name no group. Those left out are noted.
    private func audioGroup(_ text: String) throws -> [LiveAudioFollow] {
        guard case .multivariant(let m) = try HLSPlaylistText.parse(text), let group = m.variants.first?.audio else { return [] }
        let all = m.renditions.filter { $0.type == .audio && $0.groupID == group }
        guard let chosen = all.first(where: { $0.isDefault && $0.uri != nil }) ?? all.first(where: { $0.uri != nil }), let uri = chosen.uri else { return [] }
        var follows = [LiveAudioFollow(location: try source.resolve(uri), rendition: chosen)]
        for other in all where other != chosen {
            guard let uri = other.uri, follows.count <= Self.maxLanguages, let location = try? source.resolve(uri) else {
                log?.event("live_origin_note", ["channel": name, "detail": "audio '\(other.name.prefix(64))' left out: a live channel carries its default audio rendition and \(Self.maxLanguages) others with playlists of their own"])
                continue
            }
            follows.append(LiveAudioFollow(location: location, rendition: other))
        }
        return follows
    }

    /// Audio rendition `k` (of `audioFollows`) at this poll: its playlist read, each segment not
    /// fetched yet fetched once (CMAF: its initialization segment once per URI) and its media
    /// span read from its packets, appended to its segments. A failure is logged and the rest
    /// waits for the next poll (the video segments needing that sound wait, as for DASH).
    private func pollAudio(_ k: Int, scratch: URL) async {
        let location = audioFollows[k].location
        let label = k == 0 ? "audio" : "audio-\(k)"
        let playlist: LivePlaylist
        do { playlist = try LivePlaylist(parsing: try await HLSImport.text(location, scratch: scratch, timeout: timeout)) } catch {
            report(.playlistUnavailable, rendition: label, "\(error)")
            return
        }
        audioFollows[k].ended = playlist.ended
        let folder = folder.appendingPathComponent("live/\(storeName)/.audio")
        // taken by media sequence number (a segment forgotten since is not fetched again); numbers
        // that went back are a restarted origin: taken from its start again
        if let last = playlist.segments.last?.sequence, last + 1 < audioFollows[k].next {
            report(.mediaSequence, rendition: label, "the audio rendition's media sequence went back to \(last): taken again from there")
            audioFollows[k].next = 0
            audioFollows[k].segments.removeAll()
        }
        for entry in playlist.segments where entry.sequence >= audioFollows[k].next {
            guard let map = entry.map else {
                report(.segmentUnreadable, rendition: label, "\(entry.uri.prefix(200)): an MPEG-TS audio rendition is not read live (CMAF is)")
                return
            }
            do {
                // (a sample-encrypted one's key passed on: its sound goes out as it came, beside encrypted video)
                let key = try entry.key.map { try HLSImport.passedOn($0, at: location, cmaf: true) }
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let initFile = try await audioInitialization(map, at: location, in: folder)
                audioCount += 1
                let fragment = folder.appendingPathComponent("\(audioCount).m4s")
                let resolved = try location.resolve(entry.uri)
                try await HLSImport.fetch(resolved, to: fragment, maxBytes: HLSImport.maxSegmentBytes, timeout: timeout)
                guard let span = try FragmentRemux.soundSpan(initialization: initFile, segment: fragment, scratch: scratch) else {
                    try? FileManager.default.removeItem(at: fragment)
                    report(.segmentUnreadable, rendition: label, "\(entry.uri.prefix(200)) has no sound")
                    return
                }
                // in order on the track's timeline: a segment going back is the origin's fault, not listed
                if let last = audioFollows[k].segments.last, span.start < last.start {
                    try? FileManager.default.removeItem(at: fragment)
                    report(.segmentUnreadable, rendition: label, "\(entry.uri.prefix(200)) starts before the one before it: skipped")
                    audioFollows[k].next = entry.sequence + 1
                    continue
                }
                audioFiles[Self.key(resolved)] = (fragment, span.start, span.end)
                audioFollows[k].next = entry.sequence + 1
                audioFollows[k].segments.append(LiveMPD.TrackSegment(uri: entry.uri, initialization: map, start: span.start, duration: span.end - span.start, key: key))
            } catch {
                report(.segmentUnavailable, rendition: label, "\(entry.uri.prefix(200)): \(error)")
                return
            }
        }
    }

    /// A DASH origin's poll: its MPD (`text`) read once for every rendition (`LiveMPD`: a
    /// `LivePlaylist` per video Representation, `v0` the highest bandwidth), each taken in as an
    /// HLS rendition's playlist is.
    private func pollDASH(_ text: String, scratch: URL) async throws {
        let read: LiveMPD
        do { read = try LiveMPD(parsing: text, now: Date()) } catch {
            report(.playlistUnavailable, rendition: "mpd", "\(error)")
            throw error
        }
        if renditions.isEmpty {
            for i in read.videos.indices { renditions["v\(i)"] = Rendition(location: source) }
            // each other language: a rung of the lowest Representation's video with its sound
            if read.hasAudio, !read.languages.isEmpty {
                mainAudio = read.mainAudio
                otherAudio = read.languages.map(\.rendition)
                for k in read.languages.indices {
                    renditions["a\(k + 1)"] = Rendition(location: source, language: k + 1, video: "v\(read.videos.count - 1)")
                }
            }
            for note in read.notes { log?.event("live_origin_note", ["channel": name, "detail": note]) }
            subtitles.tracks = read.texts.map { LiveSubtitles.Track(rendition: $0.rendition, location: source) }
        }
        mpd = read
        defer { faults.pollEnded(); forgetAudio() }
        var failure: (any Error)?
        for key in renditions.keys.sorted() {
            // a language rung takes its variant's video
            guard let i = Int((renditions[key]?.video ?? key).dropFirst()), read.videos.indices.contains(i) else { continue }
            do { try await take(read.videos[i].playlist, key: key, scratch: scratch) } catch { failure = failure ?? error }
        }
        if !subtitles.tracks.isEmpty { await pollDASHSubtitles(read, scratch: scratch) }
        if let failure { throw failure }
    }

    /// A DASH origin's subtitles at this poll: each text AdaptationSet's segments not taken yet
    /// (by media time, at most `LiveSubtitles.maxSegmentsPerPoll`), each fetched once (at most
    /// 1 MiB; its initialization segment once per URI) and read (`FragmentedTextTrack`: WebVTT
    /// samples, or TTML documents clipped to their samples: `MP4TextCues`), the cues moved onto the video's
    /// media timeline (the channel's file clock) and placed as an HLS origin's are. A failure is
    /// logged once and that segment's cues are lost, never the video's time.
    private func pollDASHSubtitles(_ read: LiveMPD, scratch: URL) async {
        guard let clock = subtitleClock else { return }
        for k in subtitles.tracks.indices where read.texts.indices.contains(k) {
            let listed = read.texts[k].segments
            // an origin whose text went back (restarted): taken again from its newest
            if let taken = subtitles.tracks[k].taken, let last = listed.last, last.start + last.duration < taken { subtitles.tracks[k].taken = nil }
            // the first poll takes the newest (older cues would be dropped at once), later ones what follows
            let due = subtitles.tracks[k].taken.map { taken in Array(listed.filter { $0.start >= taken }.prefix(LiveSubtitles.maxSegmentsPerPoll)) }
                ?? Array(listed.suffix(LiveSubtitles.maxSegmentsPerPoll))
            for entry in due {
                subtitles.tracks[k].taken = entry.start + entry.duration
                await takeSubtitleSegment(entry.uri, at: source, initialization: entry.initialization, shift: entry.shift, track: k,
                                          clock: clock, scratch: scratch)
            }
        }
    }

    /// Where new cues are placed (`LiveSubtitles.add`): the first rendition's video on its file's
    /// clock and that clock's offset from the channel's, and the oldest segment kept; nil before it has any.
    private var subtitleClock: (file: Int64, offset: Int64, oldest: Int64?)? {
        guard let top = renditionNames.first, let r = renditions[top], let end = r.timeline.end else { return nil }
        return (end - r.timeline.clockOffset, r.timeline.clockOffset, r.segments.first?.firstPTS)
    }

    /// Takes subtitle segment `uri` (against `location`) into track `k`: fetched once (at most
    /// 1 MiB) and read — WebVTT by its `X-TIMESTAMP-MAP`, or MP4 text (`initialization`: its
    /// initialization segment's URI, against `location` too; `MP4TextCues`) on its media time moved by `shift` (a cue moved
    /// before the clock's zero dropped) — and its cues placed where the video is (`clock`). A
    /// failure is logged once: that segment's cues are lost, never the video's time.
    private func takeSubtitleSegment(_ uri: String, at location: HLSLocation, initialization: String?, shift: MediaTime = .zero,
                                     track k: Int, clock: (file: Int64, offset: Int64, oldest: Int64?), scratch: URL) async {
        let file = scratch.appendingPathComponent("subtitle-\(k).segment")
        defer { try? FileManager.default.removeItem(at: file) }
        var header: FragmentedTextTrack.Header?
        do {
            if let initialization { header = try await textHeader(try location.resolve(initialization), scratch: scratch) }
            try await HLSImport.fetch(try location.resolve(uri), to: file, maxBytes: HLSSubtitleImport.maxSegmentBytes, timeout: timeout)
        } catch {
            report(.segmentUnavailable, rendition: "subtitles", "\(uri.prefix(200)): \(error)")
            return
        }
        do {
            var cues: [WebVTT.Cue]
            if let header {
                cues = try MP4TextCues.cues(try Data(contentsOf: file), header, what: String(uri.prefix(120))).map { c in
                    var c = c
                    c.start += shift.mpegTicks; c.end += shift.mpegTicks
                    return c
                }
                cues.removeAll { $0.start < 0 }
            } else {
                cues = try HLSSubtitleImport.cues(in: file, what: "subtitle segment \(uri.prefix(120))")
            }
            subtitles.add(cues, track: k, fileClock: clock.file, clockOffset: clock.offset, oldest: clock.oldest)
        } catch {
            report(.segmentUnreadable, rendition: "subtitles", "\(uri.prefix(200)): \(error)")
        }
    }

    /// The text track of the MP4 text initialization segment at `location`, fetched once (at
    /// most 64 KiB) and kept while the channel lives (the newest 16).
    private func textHeader(_ location: HLSLocation, scratch: URL) async throws -> FragmentedTextTrack.Header {
        if let known = textHeaders.first(where: { $0.location == location }) { return known.header }
        let file = scratch.appendingPathComponent("subtitle-init.mp4")
        defer { try? FileManager.default.removeItem(at: file) }
        try await HLSImport.fetch(location, to: file, maxBytes: 64 << 10, timeout: timeout)
        let header = try FragmentedTextTrack.header(try Data(contentsOf: file))
        textHeaders = Array((textHeaders + [(location, header)]).suffix(16))
        return header
    }

    /// Rendition `key`'s playlist at this poll.
    private func readPlaylist(_ key: String, scratch: URL) async throws -> LivePlaylist {
        guard let location = renditions[key]?.location else { throw StoreError.unsupported("live source: no rendition \(key)") }
        do {
            return try LivePlaylist(parsing: try await HLSImport.text(location, scratch: scratch, timeout: timeout))
        } catch {
            report(.playlistUnavailable, rendition: key, "\(error)")
            throw error
        }
    }

    /// Takes in the new segments of `playlist`, rendition `key`'s at this poll.
    private func take(_ playlist: LivePlaylist, key: String, scratch: URL) async throws {
        guard var r = renditions[key] else { return }
        if r.targetSeen, playlist.targetDuration != r.targetDuration {
            report(.targetDuration, rendition: key, "EXT-X-TARGETDURATION went from \(r.targetDuration.seconds) to \(playlist.targetDuration.seconds) s")
        }
        r.targetDuration = playlist.targetDuration
        r.targetSeen = true
        r.ended = playlist.ended
        let dir = folder.appendingPathComponent("live/\(storeName)/\(key)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let (fresh, finding) = r.timeline.newEntries(playlist)
        if let finding { report(.mediaSequence, rendition: key, finding) }
        for new in fresh {
            let entry = new.entry
            if let problem = entry.problem {
                report(.badDuration, rendition: key, problem + ": skipped")
                r.skipped(new)
                continue
            }
            // a language rung carries CMAF video with its language's sound; MPEG-TS variants carry their own
            if r.language > 0, entry.map == nil {
                report(.segmentUnreadable, rendition: key, "\(entry.uri.prefix(200)): the variants are MPEG-TS; a live channel carries other languages with CMAF variants")
                r.refused = true
                r.skipped(new)
                continue
            }
            let sampleEncryptedCMAF = entry.isSampleEncryptedCMAF
            let path = LiveSegment.storePath(channel: storeName, rendition: key, sequence: new.sequence, encrypted: entry.key != nil, cmaf: sampleEncryptedCMAF)
            let file = folder.appendingPathComponent(path)
            var reading: LiveSegmentIntake.Reading?
            var failure: (LiveFault, String)?
            var segmentKey: HLS.Key?
            var kept: (initialization: String, sound: SegmentEncryption.Sound?, mediaStart: MediaTime, said: EncryptedCMAF)?
            // fetched under a temporary name and renamed once whole: the final name never holds half a segment
            let partial = dir.appendingPathComponent(".\(new.sequence).part")
            try? FileManager.default.removeItem(at: partial)
            do {
                try await fetchVideo(try r.location.resolve(entry.uri), to: partial, keep: entry.map != nil)
                if sampleEncryptedCMAF, let map = entry.map {
                    // sample-encrypted CMAF: kept as it came with its initialization segment and the
                    // origin's audio segment of its time, read from its clear boxes, its key passed on
                    segmentKey = try entry.key.map { try HLSImport.passedOn($0, at: r.location, cmaf: true) }
                    let taken = try await takeEncryptedCMAF(partial, map: map, entry: entry, sequence: new.sequence, rendition: &r, key: key,
                                                            hlsKey: segmentKey, scratch: dir)
                    reading = taken.reading
                    kept = (taken.initialization, taken.sound, taken.mediaStart, taken.said)
                } else if let given = entry.key, given.method == .sampleAES {
                    // SAMPLE-AES: kept as it came and read as it is (its headers are clear), its
                    // key passed on, never fetched (`HLSImport.passedOn`)
                    segmentKey = try HLSImport.passedOn(given, at: r.location)
                    reading = LiveSegmentIntake.read(try Data(contentsOf: partial), counters: true)
                    if reading != nil, clearRungs[key] == nil { clearRungs[key] = (try? LiveSegmentProbe.probe(partial, sampleEncrypted: true)).map(LiveRungInfo.init) }
                } else if let given = entry.key {
                    // AES-128: kept as it came, read decrypted in memory (`readEncrypted`)
                    let (absolute, bytes) = try await keyBytes(given, at: r.location, scratch: scratch)
                    segmentKey = absolute
                    switch readEncrypted(partial, key: bytes, iv: absolute.iv ?? [], rendition: key) {
                    case .success(let read): reading = read
                    case .failure(let why): failure = (.segmentUnreadable, "\(entry.uri.prefix(200)) \(why)")
                    }
                } else {
                    // CMAF: its emsg SCTE-35 read from the fMP4 bytes, then the segment made MPEG-TS
                    // (a DASH origin's with the audio of its time)
                    var emsg: SCTE35EventMessageScan?
                    if let map = entry.map {
                        emsg = SCTE35EventMessageScan([UInt8](try Data(contentsOf: partial)))
                        try await remuxCMAF(partial, map: map, rendition: &r, folder: dir, entry: entry)
                    }
                    reading = LiveSegmentIntake.read(try Data(contentsOf: partial))
                    if let emsg, reading != nil {
                        reading?.cues += emsg.sections
                        reading?.rejectedSections += emsg.rejected
                    }
                }
                if reading == nil, failure == nil { failure = (.segmentUnreadable, "\(entry.uri.prefix(200)) is not MPEG-TS with video") }
                else if rename(partial.path, file.path) != 0 { reading = nil; failure = (.segmentUnavailable, "cannot store \(path): \(String(cString: strerror(errno)))") }
            } catch is AudioNotYet {
                // its sound is not published yet: the segment (and those after it) wait a poll
                try? FileManager.default.removeItem(at: partial)
                break
            } catch {
                failure = (.segmentUnavailable, "\(entry.uri.prefix(200)): \(error)")
            }
            try? FileManager.default.removeItem(at: partial)
            guard let reading else {
                StoreFile.remove(path, in: folder)
                if let sound = kept?.sound { StoreFile.remove(sound.path, in: folder) }
                // fetched again at the next poll: what came may have been the fault
                if let location = try? r.location.resolve(entry.uri) { forgetRawVideo(location) }
                let count = (r.failures?.uri == entry.uri ? r.failures?.count ?? 0 : 0) + 1
                let (fault, why) = failure ?? (.segmentUnavailable, entry.uri)
                if count >= Self.fetchAttempts {
                    report(fault, rendition: key, why + "; skipped after \(count) polls")
                    r.failures = nil
                    r.skipped(new)
                    continue
                }
                report(fault, rendition: key, why + "; tried again at the next poll")
                r.failures = (entry.uri, count)
                break   // the segments after it wait: taken in order
            }
            r.failures = nil
            let placed = r.timeline.place(raw: reading.firstPTS, duration: entry.duration, discontinuity: entry.discontinuity)
            if let jump = placed.jumped {
                report(.ptsJump, rendition: key, "segment \(entry.uri.prefix(200)) starts \(Double(jump) / 90_000) s from where the one before ended\(entry.discontinuity ? " (after EXT-X-DISCONTINUITY)" : ""): re-anchored")
            }
            let segment = LiveSegmentIntake.segment(reading, entry: entry, sequence: new.sequence, channel: storeName, rendition: key,
                                                   filePTS: placed.filePTS, clockOffset: placed.clockOffset, discontinuity: placed.discontinuity,
                                                   key: segmentKey, cmaf: kept.map { ($0.initialization, $0.sound, $0.mediaStart) })
            r.timeline.handled(new)
            r.segments.append(segment)
            encryptedCMAF.withLock { $0 = kept?.said }
            if let start = entry.mediaStart { r.mediaEnd = start + entry.duration }
            // (an encrypted segment is never a CMAF track's source: no clear copy is kept)
            if !r.initializationKept && segmentKey == nil && kept == nil { r.initializationKept = keepInitialization(file, rendition: key) }
            if reading.rejectedSections > 0 {
                report(.signalIgnored, rendition: key, "\(reading.rejectedSections) SCTE-35 sections of \(entry.uri.prefix(200)) refused")
            }
            let ignored = r.tracker.add(sequence: new.sequence, firstPTS: segment.firstPTS, clockOffset: segment.clockOffset,
                                        markers: r.carried + entry.markers, cues: reading.cues)
            r.carried = []
            if let why = ignored.first { report(.signalIgnored, rendition: key, why) }
        }
        // keep the origin's window of time and `history` before it (on the channel's clock: the
        // origin's numbers may not be the channel's)
        let span = playlist.segments.reduce(MediaTime.zero) { $0 + ($1.problem == nil ? $1.duration : .zero) } + history
        var kept = MediaTime.zero
        var keep = r.segments.count
        while keep > 0, kept + r.segments[keep - 1].duration <= span {
            kept += r.segments[keep - 1].duration
            keep -= 1
        }
        keep = min(keep, max(0, r.segments.count - 1))   // the newest stays
        let gone = r.segments[..<keep].flatMap { [$0.storePath] + ($0.encryption?.sound.map { [$0.path] } ?? []) }
        for p in gone { StoreFile.remove(p, in: folder) }
        if !gone.isEmpty { evicted(gone) }
        r.segments.removeFirst(keep)
        forgetInitializations(&r)
        if let first = r.segments.first { r.tracker.forget(endingBefore: first.firstPTS - LiveBreakTracker.farLimit) }
        renditions[key] = r
    }
}
