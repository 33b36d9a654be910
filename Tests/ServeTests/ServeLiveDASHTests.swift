import Foundation
import Media
@testable import Serve
import Testing
import TestSupport
import Timing

/// A live session as DASH: a dynamic multi-period MPD over the viewer's own timeline (the items
/// its HLS playlists list), refreshed as a player does. Every update valid against the DASH
/// schema, never rewriting what an earlier one published; every Period downloaded and decoded by
/// tools that are not Interlude's.
@Suite(.serialized) struct ServeLiveDASHTests {
    typealias Live = ServeLiveSessionTests

    /// The `EventStream` elements of each Period of an MPD's text, by Period id.
    static func eventStreams(_ text: String) -> [String: [String]] {
        var out: [String: [String]] = [:]
        for block in text.components(separatedBy: "<Period ").dropFirst() {
            guard let r = block.range(of: "id=\""), let id = block[r.upperBound...].split(separator: "\"").first else { continue }
            let body = block.components(separatedBy: "</Period>")[0]
            out[String(id)] = body.components(separatedBy: "<EventStream").dropFirst().map { $0.components(separatedBy: "</EventStream>")[0] }
        }
        return out
    }

    /// What update `new` rewrote of update `old` (DASH: a Period keeps its id, start, offset and
    /// published segments; Periods leave only from the front and come only at the end): one line each.
    /// `events`: whether a Period's events must stay as they were (a single live Period's grow and slide).
    static func rewrites(_ old: [DASHPeriods.Period], _ new: [DASHPeriods.Period], oldText: String, newText: String, events: Bool = true) -> [String] {
        var out: [String] = []
        let newIDs = new.map(\.id), oldIDs = old.map(\.id)
        let kept = oldIDs.filter { newIDs.contains($0) }
        if kept != Array(newIDs.prefix(kept.count)) || kept != Array(oldIDs.suffix(kept.count)) {
            out.append("Periods left other than from the front or came other than at the end: \(oldIDs) → \(newIDs)")
        }
        let oldEvents = eventStreams(oldText), newEvents = eventStreams(newText)
        for o in old {
            guard let n = new.first(where: { $0.id == o.id }) else { continue }
            if o.start != n.start { out.append("\(o.id): start \(o.start) → \(n.start)") }
            if let d = o.duration, n.duration != d { out.append("\(o.id): duration \(d) → \(n.duration.map(String.init) ?? "none")") }
            if o.asset != n.asset { out.append("\(o.id): asset \(o.asset ?? "none") → \(n.asset ?? "none")") }
            if events, oldEvents[o.id] != newEvents[o.id] { out.append("\(o.id): its events changed") }
            for r in o.representations {
                guard let m = n.representations.first(where: { $0.id == r.id }) else { out.append("\(o.id) \(r.id): gone"); continue }
                if r.presentationTimeOffset != m.presentationTimeOffset || r.initialization != m.initialization {
                    out.append("\(o.id) \(r.id): offset or initialization changed")
                }
                let was = zip(r.segments, r.media).map { "\($0.start) \($0.duration) \($1)" }
                let now = zip(m.segments, m.media).map { "\($0.start) \($0.duration) \($1)" }
                // what is still listed is what was listed, then new segments at the end
                let first = m.segments.first?.start ?? .max
                let stillListed = zip(r.segments, was).filter { $0.0.start >= first }.map(\.1)
                if Array(now.prefix(stillListed.count)) != stillListed { out.append("\(o.id) \(r.id): a published segment changed") }
            }
        }
        return out
    }

    /// Update `step` of the live MPD at `path`, kept as `folder/u<step>.mpd`: answered, valid
    /// against the DASH schema, dynamic, its `Location` the URL asked, absolute (Streamlink takes
    /// it as the base of every later URL without resolving it). At step 0 also: `X-Forwarded-Proto:
    /// https` and another `Host` make it `https://` that host; a malformed `Host` only the path.
    static func update(_ rig: Live.Rig, _ path: String, step: Int, into folder: URL) async throws -> (CurlResult, URL) {
        let r = try await curl(rig.url(path))
        #expect(r.status == 200, "step \(step): \(r.status) \(r.text.prefix(200))")
        let file = folder.appendingPathComponent("u\(step).mpd")
        try r.body.write(to: file)
        #expect(try await offPool { try DASHSchema.problems(file) } == [], "step \(step)")
        let escaped = path.replacingOccurrences(of: "&", with: "&amp;")
        #expect(r.text.contains("type=\"dynamic\"") && r.text.contains("<Location>\(rig.url(escaped))</Location>"), "step \(step)")
        if step == 0 {
            let proxied = try await curl(rig.url(path), headers: ["Host: cdn.example.com:8443", "X-Forwarded-Proto: https, http"])
            #expect(proxied.text.contains("<Location>https://cdn.example.com:8443\(escaped)</Location>"), "\(proxied.text.prefix(400))")
            let hostile = try await curl(rig.url(path), headers: ["Host: a@evil.example"])
            #expect(hostile.status != 200 || hostile.text.contains("<Location>\(escaped)</Location>"), "\(hostile.text.prefix(400))")
        }
        return (r, file)
    }

    /// Records each segment `rep` lists under `key` by its time, and downloads its initialization
    /// and media segments not downloaded yet (each must be there: 200).
    static func download(_ rep: DASHPeriods.Representation, key: String, rig: Live.Rig, listed: inout [String: [Int64: (duration: Int64, media: String)]],
                         bytes: inout [String: Data]) async throws {
        for (seg, m) in zip(rep.segments, rep.media) { listed[key, default: [:]][seg.start] = (seg.duration, m) }
        for m in [rep.initialization] + rep.media where bytes[m] == nil {
            let s = try await curl(rig.url(m))
            #expect(s.status == 200, "\(m): \(s.status)")
            bytes[m] = s.body
        }
    }

    /// `rep`'s track as one file (its initialization segment, then every segment `listed`, in time
    /// order, which must meet), clean in `ffmpeg -xerror`; its segments in order and the file.
    static func track(_ rep: DASHPeriods.Representation, listed: [Int64: (duration: Int64, media: String)], bytes: [String: Data], to file: URL,
                      what: String) async throws -> (segments: [(key: Int64, value: (duration: Int64, media: String))], file: URL) {
        let all = listed.sorted { $0.key < $1.key }
        for (x, y) in zip(all, all.dropFirst()) { #expect(x.key + x.value.duration == y.key, "\(what): segments meet") }
        var data = bytes[rep.initialization] ?? Data()
        for (_, s) in all { data += bytes[s.media] ?? Data() }
        try data.write(to: file)
        let ff = try await runOffPool("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-xerror", "-i", file.path, "-f", "null", "-"])
        #expect(ff.status == 0, "\(what): \(ff.stderr)")
        return (all, file)
    }

    /// Two breaks (a DATERANGE one inside a segment, an in-band one inside another): the viewer's
    /// MPD, fetched after each new origin segment, is dynamic, valid against the DASH schema at every
    /// update, its Periods meeting one another, and no update rewrites what an earlier one
    /// published (ids, starts, offsets, segments, events; Periods leave from the front only). Every
    /// Period's video and audio, downloaded as listed when it last appeared (initialization and
    /// segments), decodes clean in `ffmpeg -xerror`; its pictures start at its offset; in Period
    /// order the pictures are the content's frames once each and in order with each break's ad
    /// frame-exact in place. Ad Periods name their ad and carry the SCTE-35 out; the Period after a
    /// break carries the splice back in. The implicit route answers with a redirect to the
    /// session's own MPD. With a two-rung channel, both rungs are in every Period of every update
    /// (the top one's pictures are the ones compared).
    @Test(arguments: [1, 2]) func aLiveSessionsMPDKeepsWhatItPublishedAndIsFrameExact(rungs: Int) async throws {
        let sizes = [PixelSize(width: 320, height: 180), PixelSize(width: 160, height: 90)].prefix(rungs)
        let rig = try await Live.Rig.start(breaks: Live.twoBreaks, seconds: 40, sizes: Array(sizes))
        defer { rig.stop() }
        try await rig.warm()
        // the implicit route: a session, and a redirect to its own MPD (what a player refetches)
        let redirect = try await runOffPool("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", rig.url("/v1/dash/ch/index.mpd")])
        let answer = String(decoding: redirect.stdout, as: UTF8.self).split(separator: " ")
        #expect(answer.first == "302" && answer.last?.hasSuffix("/index.mpd") == true, "\(answer)")
        let created = try await curl(rig.url("/v1/session/ch"), method: "POST", body: "{}")
        guard let path = created.json?["dashManifestUrl"] as? String else { Issue.record("\(created.text)"); return }

        let folder = rig.root.appendingPathComponent("dash-live")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var last: (periods: [DASHPeriods.Period], text: String)?
        var latest: [String: DASHPeriods.Period] = [:]
        var order: [String] = []
        var bytes: [String: Data] = [:]
        var published: [String] = []
        // every segment each Period's Representation listed in any update, by its time
        var listed: [String: [Int64: (duration: Int64, media: String)]] = [:]
        for step in 0...16 {
            let (r, file) = try await Self.update(rig, path, step: step, into: folder)
            #expect(r.text.contains("availabilityStartTime="))
            if let t = r.text.range(of: "publishTime=\"") { published.append(String(r.text[t.upperBound...].prefix(24))) }
            let (periods, _) = try DASHPeriods.read(file)
            for (a, b) in zip(periods, periods.dropFirst()) { #expect(a.start + (a.duration ?? -1) == b.start, "step \(step): \(a.id) ends where \(b.id) starts") }
            #expect(periods.last?.duration == nil, "the last Period is open")
            for p in periods { #expect(p.representations.filter { $0.contentType == "video" }.count == rungs, "step \(step) \(p.id): every rung") }
            if let (old, oldText) = last { #expect(Self.rewrites(old, periods, oldText: oldText, newText: r.text) == [], "step \(step)") }
            last = (periods, r.text)
            for p in periods {
                if latest[p.id] == nil { order.append(p.id) }
                latest[p.id] = p
                for rep in p.representations {
                    try await Self.download(rep, key: p.id + " " + rep.id, rig: rig, listed: &listed, bytes: &bytes)
                }
            }
            rig.origin.advance()
            try await rig.channel.poll()
        }
        #expect(published == published.sorted(), "publishTime never goes back")
        #expect(order.count >= 5, "content, ads and slate, content: \(order)")
        // every Period with every segment any update listed in it, in time order
        var shown: [Live.Shown] = []
        for (n, id) in order.enumerated() {
            guard let p = latest[id] else { continue }
            for rep in p.representations {
                let (all, file) = try await Self.track(rep, listed: listed[id + " " + rep.id] ?? [:], bytes: bytes,
                                                       to: folder.appendingPathComponent("p\(n)-\(rep.id).mp4"), what: "\(id) \(rep.id)")
                guard rep.contentType == "video", rep.id == p.representations.first(where: { $0.contentType == "video" })?.id else { continue }
                let span = try #require(try ServeDASHTests.span(file, stream: "v:0"))
                let first = Double(all.first?.key ?? 0) / 90_000
                #expect(all.first?.key == rep.presentationTimeOffset || n == 0, "\(id): its first segment starts it")
                #expect(abs(span.start - first) < 0.0001, "\(id): pictures start at the first segment")
                if let d = p.duration, all.first?.key == rep.presentationTimeOffset {
                    #expect(abs(span.end - (first + Double(d) / 90_000)) < 0.0001, "\(id): pictures fill the Period")
                }
                shown += try await Live.shown(file, contentSource: rig.origin.media.sourceID)
            }
        }
        // ad Periods name their ad, break starts carry the SCTE-35 out, the Period after the splice in
        let periods = order.compactMap { latest[$0] }
        for (i, p) in periods.enumerated() where p.id.contains("-ad-") {
            #expect(p.asset == "ad1" || p.asset == "ad2", "\(p.id): \(p.asset ?? "no asset")")
            if i > 0 && periods[i - 1].id.hasPrefix("content-") { #expect(p.eventSchemes.contains("urn:scte:scte35:2014:xml+bin"), "\(p.id)") }
        }
        for (i, p) in periods.enumerated() where i > 0 && p.id.hasPrefix("content-") && !periods[i - 1].id.hasPrefix("content-") {
            #expect(p.eventSchemes == ["urn:scte:scte35:2014:xml+bin"], "\(p.id): the splice back in")
        }
        guard case .content(let firstFrame)? = shown.first, case .content(let lastFrame)? = shown.last else {
            Issue.record("the viewer does not start and end on content: \(shown.prefix(3)) … \(shown.suffix(3))"); return
        }
        let b = rig.origin.breaks
        Live.compare(shown, Live.expected(from: firstFrame, to: lastFrame + 1, breaks: [(b[0], [(7, 120)]), (b[1], [(7, 120)])]))
    }
}

extension ServeLiveDASHTests {
    /// `?periods=single`: the same live session as one Period (players that do not follow
    /// multi-period live). Refreshed after each new origin segment: one Period at every update,
    /// valid against the DASH schema, its start, offset, initialization segments and published
    /// segments never changed, the query kept in `Location` (and in the implicit route's
    /// redirect); the SCTE-35 out and back in and each ad's event at the wire PTS of the
    /// pictures they mark. Every segment any update listed, downloaded: one track per
    /// Representation, clean in `ffmpeg -xerror`, its pictures at the times its `SegmentTimeline`
    /// gives, and the content's frames once each in order with each break's ad frame-exact in place.
    @Test func aSingleLivePeriodIsTheSameTimelineFrameExact() async throws {
        let rig = try await Live.Rig.start(breaks: Live.twoBreaks, seconds: 40)
        defer { rig.stop() }
        try await rig.warm()
        let redirect = try await runOffPool("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}",
                                                              rig.url("/v1/dash/ch/index.mpd?periods=single")])
        let answer = String(decoding: redirect.stdout, as: UTF8.self).split(separator: " ")
        #expect(answer.first == "302" && answer.last?.hasSuffix("/index.mpd?periods=single") == true, "\(answer)")
        let created = try await curl(rig.url("/v1/session/ch"), method: "POST", body: "{}")
        guard let base = created.json?["dashManifestUrl"] as? String else { Issue.record("\(created.text)"); return }
        let path = base + "?periods=single"
        let folder = rig.root.appendingPathComponent("dash-single")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var last: (periods: [DASHPeriods.Period], text: String)?
        var bytes: [String: Data] = [:]
        var listed: [String: [Int64: (duration: Int64, media: String)]] = [:]
        var representations: [String: DASHPeriods.Representation] = [:]
        var eventTimes: Set<String> = []
        for step in 0...16 {
            let (r, file) = try await Self.update(rig, path, step: step, into: folder)
            let (periods, _) = try DASHPeriods.read(file)
            #expect(periods.count == 1 && periods.first?.start == 0 && periods.first?.duration == nil, "step \(step): \(periods.map(\.id))")
            if let (old, oldText) = last { #expect(Self.rewrites(old, periods, oldText: oldText, newText: r.text, events: false) == [], "step \(step)") }
            last = (periods, r.text)
            for block in r.text.components(separatedBy: "<Event ").dropFirst() {
                if let t = block.range(of: "presentationTime=\"") { eventTimes.insert(String(block[t.upperBound...].prefix { $0 != "\"" })) }
            }
            for rep in periods.first?.representations ?? [] {
                representations[rep.id] = rep
                try await Self.download(rep, key: rep.id, rig: rig, listed: &listed, bytes: &bytes)
            }
            rig.origin.advance()
            try await rig.channel.poll()
        }
        var shown: [Live.Shown] = []
        for (id, rep) in representations.sorted(by: { $0.key < $1.key }) {
            let (all, file) = try await Self.track(rep, listed: listed[id] ?? [:], bytes: bytes, to: folder.appendingPathComponent("\(id).mp4"), what: id)
            guard rep.contentType == "video" else { continue }
            let span = try #require(try ServeDASHTests.span(file, stream: "v:0"))
            let first = Double(all.first?.key ?? 0) / 90_000, end = Double((all.last?.key ?? 0) + (all.last?.value.duration ?? 0)) / 90_000
            #expect(abs(span.start - first) < 0.0001 && abs(span.end - end) < 0.0001, "\(id): pictures \(span) where the timeline says \(first)…\(end)")
            // the breaks' events at pictures the timeline lists: an ad's first, content's first after it
            #expect(eventTimes.count >= 4, "\(eventTimes)")
            for t in eventTimes { #expect(all.contains { String($0.key) == t }, "an event at \(t) is at a segment's start") }
            shown = try await Live.shown(file, contentSource: rig.origin.media.sourceID)
        }
        guard case .content(let firstFrame)? = shown.first, case .content(let lastFrame)? = shown.last else {
            Issue.record("the viewer does not start and end on content: \(shown.prefix(3)) … \(shown.suffix(3))"); return
        }
        let b = rig.origin.breaks
        Live.compare(shown, Live.expected(from: firstFrame, to: lastFrame + 1, breaks: [(b[0], [(7, 120)]), (b[1], [(7, 120)])]))
    }
}

extension ServeLivePlayTests {
    /// The live session as DASH in the players here, each on a session of its own for `seconds`
    /// through breaks of every signalling form, the session's own MPD URL played
    /// (`dashManifestUrl`: what a player refetches). Opt-in (`LIVE_DASH_CLIENTS=vlc,gst3,ffmpeg,
    /// mpv,chromium`): none of them plays a live multi-period MPD through its Period changes yet
    /// (docs/SERVE.md, "Live DASH": each one's behaviour as seen), so it is not in `make test`.
    /// `LIVE_DASH_PERIODS=single` plays the one-Period MPD (`?periods=single`) instead.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["LIVE_DASH_CLIENTS"] != nil,
                   "no player here follows a live MPD, nor FFmpeg's own (scripts/live-dash-reference.sh): LIVE_DASH_CLIENTS=… to try"))
    func theFieldsPlayersPlayALiveDASHSession() async throws {
        let seconds = Self.seconds
        let rig = try await Self.liveRig(seconds: seconds + 20)
        defer { rig.stop() }
        let clients: [FieldCheck.Client] = ProcessInfo.processInfo.environment["LIVE_DASH_CLIENTS"].map {
            $0.split(separator: ",").compactMap { FieldCheck.Client(rawValue: String($0)) }
        } ?? []
        var plays: [(FieldCheck.Client, String)] = []
        for client in clients {
            let created = try await curl(rig.url("/v1/session/ch"), method: "POST", body: "{}")
            let query = ProcessInfo.processInfo.environment["LIVE_DASH_PERIODS"] == "single" ? "?periods=single" : ""
            plays.append((client, rig.url(try #require(created.json?["dashManifestUrl"] as? String) + query)))
        }
        try await Self.play(plays, seconds: seconds)
    }
}
