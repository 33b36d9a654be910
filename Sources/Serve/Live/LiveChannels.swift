import Foundation
import Manifest
import Threads
import Timing

/// One rung of a live channel as sessions serve it: the channel's rendition key (`main`, `v0`
/// …), the store rendition ads and slate are made in (`<channel>-<key>`), what it is.
public struct LiveRung: Sendable, Hashable, Codable {
    /// The channel's rendition key.
    public var key: String
    /// The store's rendition (registered with `LiveMedia.addRendition`).
    public var rendition: Rendition
    /// Size, frame rate, codecs.
    public var info: LiveRungInfo
}

/// One other audio language of a live channel as sessions serve it: its language rung (the
/// channel's `aN`: the lowest variant's video with that language's sound, in that variant's
/// store rendition, so ads and slate are the lowest rung's) and the origin's `EXT-X-MEDIA` for it.
public struct LiveLanguage: Sendable, Hashable {
    /// The language rung.
    public var rung: LiveRung
    /// Its name, language and channels as the origin gives them.
    public var rendition: HLS.Rendition
}

/// The live channels `interlude serve` follows (`--live NAME=SOURCE`): each polled on a task of
/// its own at its target duration into the store, its rungs registered once its first segments
/// are in. Thread-safe.
public final class LiveChannels: Sendable {
    /// The channels by name.
    public let channels: [String: LiveChannel]
    private let media: any LiveMedia
    /// The fleet's store (`--redis`): every node serves a channel in the same rungs.
    private let fleet: (any LiveViewerStore)?
    /// The rungs found so far, by channel; the polling tasks while they run.
    private struct State {
        var rungs: [String: [LiveRung]] = [:]
        var tasks: [Task<Void, Never>] = []
    }
    private let state = Locked(State())

    /// Channels reading `sources` (name → playlist URL or path) into `folder` (the store root);
    /// `log` hears each origin fault a channel recovers from (`LiveChannel`); with `fleet`, the
    /// nodes sharing it agree on each channel's rungs (`rungs(of:)`).
    public init(_ sources: [(name: String, source: String)], folder: URL, media: any LiveMedia, timeout: Double = 10,
                log: ServeLog? = nil, fleet: (any LiveViewerStore)? = nil) throws {
        var c: [String: LiveChannel] = [:]
        for s in sources {
            c[s.name] = try LiveChannel(name: s.name, source: s.source, folder: folder, timeout: timeout, log: log) { [media] paths in
                media.forgetLiveSegments(paths)
            }
        }
        channels = c
        self.media = media
        self.fleet = fleet
    }

    /// Starts polling every channel.
    public func start() {
        state.withLock { s in
            guard s.tasks.isEmpty else { return }
            for c in channels.values { s.tasks.append(Task.detached { await c.run() }) }
        }
    }

    /// Stops polling.
    public func stop() {
        let t = state.withLock { s in
            defer { s.tasks = [] }
            return s.tasks
        }
        for task in t { task.cancel() }
    }

    /// Whether `name` is a live channel.
    public func contains(_ name: String) -> Bool { channels[name] != nil }

    /// The channel's rungs, top first, once its first poll brought a segment of each (probed once,
    /// registered with the store); nil while it has none. A rung's bit rate is estimated from the
    /// first segment this node took in; in a fleet the first node's estimates hold for every node
    /// (`LiveViewerStore.agreeRungs`), so that an ad is transcoded once per rung for the fleet and
    /// a viewer moving between nodes keeps its renditions.
    public func rungs(of name: String) async -> [LiveRung]? {
        if let r = state.withLock({ $0.rungs[name] }) { return r }
        guard let channel = channels[name] else { return nil }
        var found: [LiveRung] = []
        for key in await channel.renditionNames {
            guard let w = await channel.window(rendition: key), let first = w.segments.first,
                  let info = await channel.clearRung(key) ?? (first.encryption == nil ? try? media.probeRung(ofSegment: first.storePath) : nil)
            else { return nil }
            let bytes = media.file(forSegment: first.storePath).flatMap { try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int } ?? 0
            let bitrate = max(100_000, Int(Double(bytes * 8) / max(0.1, first.duration.seconds)))
            let r = Rendition(name: "\(name)-\(key)", width: info.width, height: info.height, videoBitrate: bitrate, audioBitrate: 128_000)
                .serving(frameRate: info.frameRate, codecs: info.codecs, decodeDelayTicks: info.decodeDelayTicks)
            found.append(LiveRung(key: key, rendition: r, info: info))
        }
        guard !found.isEmpty else { return nil }
        found.sort { $0.rendition.width * $0.rendition.height > $1.rendition.width * $1.rendition.height }
        found = agreed(found, channel: name)
        for r in found {
            do { try media.addRendition(r.rendition) } catch { return nil }
        }
        return state.withLock { s in
            s.rungs[name] = s.rungs[name] ?? found
            return s.rungs[name]!
        }
    }

    /// The channel's other audio languages (`LiveChannel.languages`), each a language rung in the
    /// store rendition of the variant it takes its video from, and the origin's default audio
    /// rendition (what the variants' own sound is); none before its rungs are known, or without
    /// other languages.
    public func languages(of name: String) async -> (main: HLS.Rendition?, others: [LiveLanguage]) {
        guard let channel = channels[name], let rungs = await rungs(of: name) else { return (nil, []) }
        var out: [LiveLanguage] = []
        for l in await channel.languages {
            guard let base = rungs.first(where: { $0.key == l.video }) else { continue }
            out.append(LiveLanguage(rung: LiveRung(key: l.key, rendition: base.rendition, info: base.info), rendition: l.rendition))
        }
        return (out.isEmpty ? nil : await channel.defaultLanguage, out)
    }

    /// The fleet's rungs for `channel` when they are `found`'s but for their bit rates (another
    /// node's estimates); else `found`, which then become the fleet's.
    private func agreed(_ found: [LiveRung], channel: String) -> [LiveRung] {
        guard let fleet, let mine = try? JSONEncoder().encode(found),
              let data = fleet.agreeRungs(channel: channel, proposed: mine),
              let theirs = try? JSONDecoder().decode([LiveRung].self, from: data) else { return found }
        let same = theirs.count == found.count && zip(theirs, found).allSatisfy { t, f in
            var t2 = t.rendition
            t2.videoBitrate = f.rendition.videoBitrate
            return t.key == f.key && t.info == f.info && t2 == f.rendition && t.rendition.videoBitrate > 0
        }
        guard same else {
            fleet.replaceRungs(channel: channel, mine)
            return found
        }
        return theirs
    }

    /// Breaks the channel has signalled since it started, all rungs counted once (the top rung's).
    public func breaksSeen() async -> [String: Int] {
        var out: [String: Int] = [:]
        for (name, c) in channels { out[name] = await c.breaksSeen }
        return out
    }
}
