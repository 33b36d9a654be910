import Foundation
import Testing
import TestSupport
import Interlude

/// Live ad behaviour through the player, driven by viewer scripts: skip at the exact frame, ad
/// pause holding the picture with its beacons, TAPPED on a paused ad, clicks with the link opener,
/// snapback after a seek past a mid-roll, and the same script giving the same events and frames.
@MainActor @Suite(.serialized) struct PlaySessionTests {
    static let reader = IdentityReader(output: PixelSize(width: 320, height: 180), sources: [PixelSize(width: 320, height: 180)])

    final class Arrivals: @unchecked Sendable {
        // @unchecked Sendable: guarded by `lock`.
        private let lock = NSLock()
        private var items: [(target: String, at: Double)] = []
        func add(_ r: HTTPTestServer.Request) { lock.lock(); items.append((r.target, monotonicSeconds())); lock.unlock() }
        var all: [(target: String, at: Double)] { lock.lock(); defer { lock.unlock() }; return items }
    }

    /// Content (source 7, 4 s) with a pre-roll (source 2, 1.5 s, skippable after 0.5 s, with a
    /// click-through) and a mid-roll at 2.5 s (source 3, 1 s), served with beacons to the server.
    static func server(midDelay: Double = 0) throws -> (HTTPTestServer, Arrivals, URL) {
        let server = try HTTPTestServer()
        let content = try TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 30, seconds: 4)
        let pre = try TestMedia.clip(sourceID: 2, width: 320, height: 180, fps: 30, seconds: 1.5)
        let mid = try TestMedia.clip(sourceID: 3, width: 320, height: 180, fps: 30, seconds: 1)
        // media paths unique to this server: the loader's media cache is keyed by URL and lives
        // across runs, and a reused port would otherwise find last run's files
        let token = "/" + UUID().uuidString.prefix(8)
        server.route(token + "/pre.mp4", .init(status: 200, headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: pre)))
        server.route(token + "/mid.mp4", .init(status: 200, headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: mid), delay: midDelay))
        let b = server.url("/b")
        func inline(_ id: String, _ media: String, skip: String?) -> String {
            """
            <VAST version="4.0"><Ad id="\(id)"><InLine><AdSystem>Loopback</AdSystem><AdTitle>\(id)</AdTitle>
            <Impression><![CDATA[\(b)?e=impression&ad=\(id)]]></Impression>
            <Creatives><Creative><Linear\(skip.map { " skipoffset=\"\($0)\"" } ?? "")><Duration>00:00:01</Duration><TrackingEvents>
            <Tracking event="start"><![CDATA[\(b)?e=start&ad=\(id)]]></Tracking>
            <Tracking event="pause"><![CDATA[\(b)?e=pause&ad=\(id)]]></Tracking>
            <Tracking event="resume"><![CDATA[\(b)?e=resume&ad=\(id)]]></Tracking>
            <Tracking event="skip"><![CDATA[\(b)?e=skip&ad=\(id)]]></Tracking>
            <Tracking event="complete"><![CDATA[\(b)?e=complete&ad=\(id)]]></Tracking>
            </TrackingEvents>
            <VideoClicks><ClickThrough><![CDATA[https://advertiser.example/\(id)]]></ClickThrough>
            <ClickTracking><![CDATA[\(b)?e=click&ad=\(id)]]></ClickTracking></VideoClicks>
            <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[\(server.url(media))]]></MediaFile></MediaFiles>
            </Linear></Creative></Creatives></InLine></Ad></VAST>
            """
        }
        server.route("/vmap.xml", body: """
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
            <vmap:AdBreak timeOffset="start" breakType="linear" breakId="pre"><vmap:AdSource><vmap:VASTAdData>\(inline("pre", token + "/pre.mp4", skip: "00:00:00.500"))</vmap:VASTAdData></vmap:AdSource></vmap:AdBreak>
            <vmap:AdBreak timeOffset="00:00:02.500" breakType="linear" breakId="mid"><vmap:AdSource><vmap:VASTAdData>\(inline("mid", token + "/mid.mp4", skip: nil))</vmap:VASTAdData></vmap:AdSource></vmap:AdBreak>
            </vmap:VMAP>
            """)
        let arrivals = Arrivals()
        server.setHandler { r in
            if r.path == "/b" { arrivals.add(r); return .init(status: 204, headers: [:], body: Data()) }
            return nil
        }
        return (server, arrivals, content)
    }

    struct Run {
        let session: PlaySession
        let events: [[String: Any]]
        let frames: [Int]   // source*1000 + frame index of each output frame
        let null: NullOutput
    }

    static func play(_ script: String, clock: PlaybackClock = .asFastAsPossible, name: String, midDelay: Double = 0, preload: Bool = true) async throws -> (Run, Arrivals) {
        let (server, arrivals, content) = try Self.server(midDelay: midDelay)
        defer { server.stop() }
        let player = try Player.open(url: content, clock: clock)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-session-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let out = dir.appendingPathComponent(name + ".nut")
        try? FileManager.default.removeItem(at: out)
        player.surface.attach(try EncodedOutput(url: out.path, container: .nut, format: player.surface.format, settings: EncoderSettings()))
        let null = NullOutput()
        player.surface.attach(null)
        let log = SessionEventLog(handle: nil, wallTime: clock == .realTime)
        let session = PlaySession(player: player, adTag: server.url("/vmap.xml"), script: try SessionScript.parse(Data(script.utf8)), log: log)
        session.renderingSettings.enablePreloading = preload
        try await session.run()
        // the session's link opener logged one openURL per click-through
        #expect(log.written.filter { $0.contains("\"openURL\"") }.count == log.written.filter { $0.contains("\"CLICKED\"") }.count)
        try await Task.sleep(nanoseconds: 200_000_000)   // let fired beacons land
        let events = log.written.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let frames = try await MediaVerifier.videoFrames(out, reader: Self.reader).map { ($0.identity?.sourceID ?? -1) * 1000 + ($0.identity?.frameIndex ?? -1) }
        return (Run(session: session, events: events, frames: frames, null: null), arrivals)
    }

    static func names(_ run: Run) -> [String] { run.events.compactMap { $0["event"] as? String } }

    /// The mid-roll's media is still downloading when content reaches its cue (no preloading, and
    /// the server holds it 1.5 s; as fast as possible content gets there in a fraction of that): the player holds
    /// at the cue until the ad can start, so no content frame at or after 2.5 s comes before it.
    @Test func aMidrollWhoseMediaIsStillDownloadingStillCutsOnTheCueFrame() async throws {
        let (run, _) = try await Self.play(#"{"actions": []}"#, name: "slow-mid", midDelay: 1.5, preload: false)
        let content = run.frames.filter { $0 / 1000 == 7 }.map { $0 % 1000 }
        #expect(content == Array(0..<120), "every content frame once, in order")
        let firstMid = try #require(run.frames.firstIndex { $0 / 1000 == 3 })
        #expect(run.frames[firstMid - 1] == 7000 + 74, "the last content frame before the mid-roll is the one before 2.5 s")
        #expect(run.frames[firstMid + 30] == 7000 + 75, "content resumes at the cue frame after the 30 ad frames")
    }

    @Test func skipAfterTheOffsetEndsTheAdAtThatFrame() async throws {
        // too early (0.3 s < 0.5 s offset): refused; at 0.8 s of stream: the ad ends after frame 23
        let (run, _) = try await Self.play("""
            {"actions": [{"at": 0.3, "clock": "stream", "do": "skip"}, {"at": 0.8, "clock": "stream", "do": "skip"}]}
            """, name: "skip")
        #expect(run.frames.prefix(24) == ArraySlice((0..<24).map { 2000 + $0 }))
        #expect(run.frames[24] == 7000, "content follows the skipped ad at once")
        #expect(Self.names(run).filter { $0 == "SKIPPED" }.count == 1)
        #expect(!Self.names(run).contains("COMPLETE") || Self.names(run).firstIndex(of: "COMPLETE")! > Self.names(run).firstIndex(of: "SKIPPED")!)
        let skipped = try #require(run.session.adsManager?.playedBreaks.first?.ads.first)
        #expect(skipped.skipped && skipped.placement.frames == 24)
        #expect(skipped.tracking.contains { $0.event == "skip" && $0.streamTime == MediaTime(value: 4, timescale: 5) })
    }

    @Test func tapOnAPausedAdResumesItAndClickOpensTheLink() async throws {
        let (run, _) = try await Self.play("""
            {"actions": [{"at": 0.5, "clock": "stream", "do": "pause"}, {"on": "PAUSE", "do": "click"},
                         {"on": "FIRST_QUARTILE", "occurrence": 2, "do": "click"}]}
            """, name: "tap")
        let names = Self.names(run)
        let pause = try #require(names.firstIndex(of: "PAUSE"))
        #expect(Array(names[pause...].prefix(4)) == ["PAUSE", "action", "TAPPED", "RESUME"], "\(names)")
        let clicked = run.events.filter { $0["event"] as? String == "CLICKED" }
        #expect(clicked.count == 1 && clicked[0]["adId"] as? String == "mid")
        #expect(clicked[0]["clickThroughUrl"] as? String == "https://advertiser.example/mid")
        #expect(run.events.contains { $0["event"] as? String == "openURL" && $0["url"] as? String == "https://advertiser.example/mid" })
        #expect(run.session.adsManager?.beacons.contains { $0.event == "clickTracking" && $0.adId == "mid" } == true)
        // every frame still there: 45 + 120 + 30
        #expect(run.frames.count == 195)
    }

    @Test func seekPastAMidrollPlaysItThenContinuesAtTheTarget() async throws {
        // at content 1.0 s the viewer seeks to 3.0 s, past the mid-roll at 2.5 s: snapback
        let (run, _) = try await Self.play("""
            {"actions": [{"at": 1.0, "do": "seek", "to": 3.0}]}
            """, name: "snapback")
        let expected = (0..<45).map { 2000 + $0 } + (0..<30).map { 7000 + $0 } + (0..<30).map { 3000 + $0 } + (90..<120).map { 7000 + $0 }
        #expect(run.frames == expected, "\(run.frames)")
        let brk = try #require(run.session.adsManager?.playedBreaks.last)
        #expect(brk.id == "mid" && brk.contentTime == MediaTime(value: 3, timescale: 1))
    }

    @Test func theSameScriptGivesTheSameEventsAndFrames() async throws {
        let script = """
            {"actions": [{"at": 0.5, "clock": "stream", "do": "pause", "for": 1}, {"at": 1.0, "do": "seek", "to": 3.0},
                         {"on": "MIDPOINT", "occurrence": 2, "do": "click"}]}
            """
        let (a, _) = try await Self.play(script, name: "same-a")
        let (b, _) = try await Self.play(script, name: "same-b")
        #expect(a.frames == b.frames)
        #expect(a.events.map { NSDictionary(dictionary: $0) } == b.events.map { NSDictionary(dictionary: $0) })
    }

    @Test func inRealTimeAPausedAdHoldsThePictureAndFiresItsBeacons() async throws {
        let (run, arrivals) = try await Self.play("""
            {"actions": [{"at": 0.5, "clock": "stream", "do": "pause", "for": 0.6}]}
            """, clock: .realTime, name: "live-pause")
        let times = run.null.presentationTimes
        #expect(times.count == 195)
        // the gap after frame 14 (the one that reached 0.5 s) is the pause: no frame meanwhile
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        try #require(gaps.count > 14)
        #expect(gaps[14] > 0.5, "the picture held after stream 0.5 s: \(gaps[14]) s between frames 14 and 15")
        let targets = arrivals.all.map(\.target)
        #expect(targets.filter { $0.contains("e=pause&ad=pre") }.count == 1)
        #expect(targets.filter { $0.contains("e=resume&ad=pre") }.count == 1)
        let pauseAt = arrivals.all.first { $0.target.contains("e=pause") }!.at
        let resumeAt = arrivals.all.first { $0.target.contains("e=resume") }!.at
        #expect(resumeAt - pauseAt > 0.5, "beacons fired when the viewer paused and resumed")
    }
}
