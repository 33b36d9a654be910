import Foundation
import Playback
import Timing

/// A live HLS source (a sliding media or multivariant playlist) followed into the store.
/// Each `poll()` reads every rendition's playlist through the hardened fetcher
/// (`HLSImport.text` / `HLSImport.fetch`: size caps, timeouts, http(s) only from a remote
/// playlist), fetches each new segment once to `live/<channel>/<rendition>/<msn>.ts` under
/// `folder`, reads its first video PTS and in-band SCTE-35 (`LiveSegmentIntake`), folds markers
/// and cues into breaks (`LiveBreakTracker`) and keeps `history` of segments after they left the
/// origin's window (viewers' playlists hold more than the origin shows: at least three target
/// durations, and a viewer waiting on an ad decision stays inside what the channel holds),
/// deleting older ones. `run()` polls at the playlist's target duration. Readers take
/// snapshots with `window(rendition:)`. A multivariant source's renditions are named `v0`, `v1`
/// … by descending bandwidth; a media playlist source is rendition `main`.
public actor LiveChannel {
    /// The channel's name (a store path component).
    public let name: String
    /// How long segments are kept (on disk, and in `window`) after they leave the origin's window.
    public let history: MediaTime
    private let source: HLSLocation
    private let folder: URL
    private let timeout: Double
    private var renditions: [String: Rendition] = [:]
    private let evicted: @Sendable ([String]) -> Void

    private struct Rendition {
        var location: HLSLocation
        var segments: [LiveSegment] = []
        var tracker = LiveBreakTracker()
        var targetDuration = MediaTime(seconds: 6)
        var mediaSequence = 0
        var ended = false
    }

    /// A channel reading `source` (an http(s) URL or a local path) into `folder` (the store root);
    /// `evicted` hears the store paths of segments deleted (what the store made of them can go too).
    public init(name: String, source: String, folder: URL, history: MediaTime = MediaTime(seconds: 60), timeout: Double = 10,
                log: ServeLog? = nil, evicted: @escaping @Sendable ([String]) -> Void = { _ in }) throws {
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw StoreError.unsupported("live channel name \(name) must be letters, digits, - or _")
        }
        self.name = name
        self.source = try HLSLocation.source(source)
        self.folder = folder
        self.history = MediaTime.max(.zero, history)
        self.timeout = timeout
        self.evicted = evicted
    }

    /// The rendition names, after the first poll.
    public var renditionNames: [String] { renditions.keys.sorted() }

    /// Breaks signalled since the channel started (the first rendition's).
    public var breaksSeen: Int { renditions.keys.sorted().first.flatMap { renditions[$0]?.tracker.breaks.count } ?? 0 }

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
        let scratch = folder.appendingPathComponent("live/\(name)/.scratch")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        if renditions.isEmpty {
            let text = try await HLSImport.text(source, scratch: scratch, timeout: timeout)
            if let variants = try HLSPlaylistText.variants(text) {
                for (i, v) in variants.enumerated() { renditions["v\(i)"] = Rendition(location: try source.resolve(v.uri)) }
            } else {
                renditions["main"] = Rendition(location: source)
            }
        }
        for key in renditions.keys.sorted() { try await poll(key, scratch: scratch) }
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

    private func poll(_ key: String, scratch: URL) async throws {
        guard var r = renditions[key] else { return }
        let text = try await HLSImport.text(r.location, scratch: scratch, timeout: timeout)
        let playlist = try LivePlaylist(parsing: text)
        r.targetDuration = playlist.targetDuration
        r.mediaSequence = playlist.mediaSequence
        r.ended = playlist.ended
        let dir = folder.appendingPathComponent("live/\(name)/\(key)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for entry in playlist.segments where entry.sequence > (r.segments.last?.sequence ?? .min) {
            let path = LiveSegment.storePath(channel: name, rendition: key, sequence: entry.sequence)
            let file = folder.appendingPathComponent(path)
            try await HLSImport.fetch(try r.location.resolve(entry.uri), to: file, maxBytes: HLSImport.maxSegmentBytes, timeout: timeout)
            let expected = r.segments.last.map { $0.firstPTS + $0.duration.mpegTicks }
            guard let taken = LiveSegmentIntake.take(try Data(contentsOf: file), entry: entry, channel: name,
                                                     rendition: key, expectedPTS: expected) else {
                try? FileManager.default.removeItem(at: file)
                throw StoreError.unsupported("live source: segment \(entry.sequence) of \(key) is not MPEG-TS with video")
            }
            r.segments.append(taken.segment)
            r.tracker.add(sequence: entry.sequence, firstPTS: taken.segment.firstPTS, markers: entry.markers, cues: taken.cues)
        }
        // keep `history` before the origin's window: the newest of the older segments up to it
        var kept = MediaTime.zero
        var keep = playlist.mediaSequence
        for old in r.segments.reversed() where old.sequence < playlist.mediaSequence {
            kept += old.duration
            guard kept <= history else { break }
            keep = old.sequence
        }
        let gone = r.segments.filter { $0.sequence < keep }.map(\.storePath)
        for p in gone { try? FileManager.default.removeItem(at: folder.appendingPathComponent(p)) }
        if !gone.isEmpty { evicted(gone) }
        r.segments.removeAll { $0.sequence < keep }
        renditions[key] = r
    }
}
