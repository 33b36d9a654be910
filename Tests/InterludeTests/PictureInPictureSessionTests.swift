import Draw
import Foundation
import Playback
import Testing
import TestSupport
import Interlude

/// Stands in for ad UI (issue 9's default UI layer): a white box in the top-left corner of ad frames.
final class FakeAdUI: SurfaceLayer {
    static let box = Draw.PixelRect(x: 8, y: 8, width: 64, height: 32)
    func isVisible(_ f: SurfaceFrameInfo) -> Bool { f.isAd }
    func draw(on canvas: Canvas, _ f: SurfaceFrameInfo) throws { canvas.fill(Self.box, color: .white) }
}

/// Picture-in-picture and background playback through `PlaySession` (a Player with an
/// EncodedOutput), checked by decoding the output with the ffmpeg CLI: the window rect holds the
/// scaled video (its identity band read there), outside it the picture is dimmed; a mid-roll
/// reached in PiP plays in the window with no ad UI pixels; the background pauses content and ads
/// (and their beacons) unless `enableBackgroundPlayback`.
@MainActor @Suite(.serialized) struct PictureInPictureSessionTests {
    static let size = PixelSize(width: 320, height: 180)
    static let fullReader = IdentityReader(candidates: [TestSupport.PixelRect(x: 0, y: 0, width: 320, height: 180)])

    final class Arrivals: @unchecked Sendable {
        // @unchecked Sendable: guarded by `lock`.
        private let lock = NSLock()
        private var items: [(target: String, at: Double)] = []
        func add(_ r: HTTPTestServer.Request) { lock.lock(); items.append((r.target, monotonicSeconds())); lock.unlock() }
        var all: [(target: String, at: Double)] { lock.lock(); defer { lock.unlock() }; return items }
    }

    /// Content (source 7, 3 s, 30 fps) with a mid-roll at 1.0 s (source 3, 1 s): a local VMAP (and
    /// VAST) naming the local media file, so the break needs no fetch and pauses content on its cue
    /// frame even as fast as possible; beacons go to a loopback server. Returns the tag paths.
    static func server() throws -> (HTTPTestServer, Arrivals, URL, vmap: String, vast: String) {
        let server = try HTTPTestServer()
        let content = try TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 30, seconds: 3)
        let mid = try TestMedia.clip(sourceID: 3, width: 320, height: 180, fps: 30, seconds: 1)
        let b = server.url("/b")
        let vast = """
            <VAST version="4.0"><Ad id="mid"><InLine><AdSystem>Loopback</AdSystem><AdTitle>mid</AdTitle>
            <Impression><![CDATA[\(b)?e=impression]]></Impression>
            <Creatives><Creative><Linear><Duration>00:00:01</Duration><TrackingEvents>
            <Tracking event="start"><![CDATA[\(b)?e=start]]></Tracking>
            <Tracking event="firstQuartile"><![CDATA[\(b)?e=firstQuartile]]></Tracking>
            <Tracking event="midpoint"><![CDATA[\(b)?e=midpoint]]></Tracking>
            <Tracking event="thirdQuartile"><![CDATA[\(b)?e=thirdQuartile]]></Tracking>
            <Tracking event="pause"><![CDATA[\(b)?e=pause]]></Tracking>
            <Tracking event="resume"><![CDATA[\(b)?e=resume]]></Tracking>
            <Tracking event="complete"><![CDATA[\(b)?e=complete]]></Tracking>
            </TrackingEvents>
            <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[\(mid.absoluteString)]]></MediaFile></MediaFiles>
            </Linear></Creative></Creatives></InLine></Ad></VAST>
            """
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-pip-tags-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let vmapPath = dir.appendingPathComponent("vmap.xml").path, vastPath = dir.appendingPathComponent("vast.xml").path
        try Data("""
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
            <vmap:AdBreak timeOffset="00:00:01.000" breakType="linear" breakId="mid"><vmap:AdSource><vmap:VASTAdData>\(vast)</vmap:VASTAdData></vmap:AdSource></vmap:AdBreak>
            </vmap:VMAP>
            """.utf8).write(to: URL(fileURLWithPath: vmapPath))
        try Data(vast.utf8).write(to: URL(fileURLWithPath: vastPath))
        let arrivals = Arrivals()
        server.setHandler { r in
            if r.path == "/b" { arrivals.add(r); return .init(status: 204, headers: [:], body: Data()) }
            return nil
        }
        return (server, arrivals, content, vmapPath, vastPath)
    }

    struct Run {
        let session: PlaySession
        let events: [[String: Any]]
        let pictures: DecodedPictures
        let null: NullOutput
        let arrivals: Arrivals
        var names: [String] { events.compactMap { $0["event"] as? String } }
    }

    static func play(_ script: String, ads: Bool = true, clock: PlaybackClock = .asFastAsPossible, settings: Settings? = nil,
                     adUI: Bool = false, name: String) async throws -> Run {
        let (server, arrivals, content, vmap, _) = try Self.server()
        defer { server.stop() }
        let player = try Player.open(url: content, clock: clock)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-pip-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let out = dir.appendingPathComponent(name + ".nut")
        try? FileManager.default.removeItem(at: out)
        player.surface.attach(try EncodedOutput(url: out.path, container: .nut, format: player.surface.format, settings: EncoderSettings()))
        let null = NullOutput()
        player.surface.attach(null)
        if adUI { player.surface.addLayer(FakeAdUI()) }
        let log = SessionEventLog(handle: nil, wallTime: clock == .realTime)
        let session = PlaySession(player: player, adTag: ads ? vmap : nil,
                                  script: try SessionScript.parse(Data(script.utf8)), log: log, settings: settings)
        try await session.run()
        try await Task.sleep(nanoseconds: 200_000_000)   // let fired beacons land
        let events = log.written.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        return Run(session: session, events: events, pictures: try await DecodedPictures.decode(out), null: null, arrivals: arrivals)
    }

    /// The PiP window's rect in the output, as the tests' pixel type.
    static func window(_ s: PlaySession) -> TestSupport.PixelRect {
        let r = s.pictureInPictureController.layer.windowRect(width: size.width, height: size.height)
        return TestSupport.PixelRect(x: r.x, y: r.y, width: r.width, height: r.height)
    }

    static func identity(_ p: DecodedPictures, _ n: Int, in rect: TestSupport.PixelRect) -> Int {
        let id = IdentityReader(candidates: [rect]).read(p.frames[n], width: p.width, height: p.height).identity
        return id.map { $0.sourceID * 1000 + $0.frameIndex } ?? -1
    }

    /// Mean luma outside the window, over the left half (which the bottom-right window never covers).
    static func leftHalfMean(_ p: DecodedPictures, _ n: Int) -> Double { p.mean(frame: n, x: 0, y: 0, width: 160, height: 180) }

    @Test func thePipWindowHoldsTheScaledVideoOverADimmedBackgroundAndLeavingRestoresFullSize() async throws {
        let run = try await Self.play("""
            {"actions": [{"at": 0.5, "do": "pip on"}, {"at": 1.5, "do": "pip off"}]}
            """, ads: false, name: "pip-plain")
        let p = run.pictures
        #expect(p.frames.count == 90)
        let content = try await DecodedPictures.decode(try TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 30, seconds: 3))
        let window = Self.window(run.session)
        #expect(window.width == 128 && window.height == 72 && window.x + window.width <= 320 && window.y + window.height <= 180)
        let veil = Double(run.session.pictureInPictureController.layer.dimAlpha) / 255
        for n in 0..<90 {
            let inPiP = (15..<45).contains(n)
            let full = Self.identity(p, n, in: TestSupport.PixelRect(x: 0, y: 0, width: 320, height: 180))
            if inPiP {
                #expect(Self.identity(p, n, in: window) == 7000 + n, "frame \(n): content frame \(n) scaled in the window")
                #expect(full == -1, "frame \(n): the full-size picture is dimmed, its band unreadable")
                // dimmed: the veil (black) over the content as played; decoded to full-range grey,
                // black is 0, so the veil scales the grey value
                let expected = Self.leftHalfMean(content, n) * (1 - veil)
                #expect(abs(Self.leftHalfMean(p, n) - expected) < 6, "frame \(n): background \(Self.leftHalfMean(p, n)) vs dimmed \(expected)")
            } else {
                #expect(full == 7000 + n, "frame \(n) full size")
                #expect(abs(Self.leftHalfMean(p, n) - Self.leftHalfMean(content, n)) < 4)
            }
        }
        #expect(run.names.contains("pictureInPictureStarted") && run.names.contains("pictureInPictureStopped"))
    }

    @Test func aMidrollReachedInPipPlaysInTheWindowWithNoAdUI() async throws {
        // PiP from content 0.5 s; the mid-roll at 1.0 s (stream frames 30-59) plays in it; PiP stops
        // at stream 2.5 s (after frame 74)
        let run = try await Self.play("""
            {"actions": [{"at": 0.5, "do": "pip on"}, {"at": 2.5, "clock": "stream", "do": "pip off"}]}
            """, adUI: true, name: "pip-midroll")
        let p = run.pictures
        #expect(p.frames.count == 120)
        let window = Self.window(run.session)
        let box = FakeAdUI.box
        for n in 0..<120 {
            let id = Self.identity(p, n, in: window)
            switch n {
            case 15..<30: #expect(id == 7000 + n, "frame \(n): content in the window")
            case 30..<60:
                #expect(id == 3000 + n - 30, "frame \(n): ad frame \(n - 30) in the window")
                #expect(p.mean(frame: n, x: box.x, y: box.y, width: box.width, height: box.height) < 120, "frame \(n): no ad UI pixels")
            case 60..<75: #expect(id == 7000 + n - 30, "frame \(n): content after the break, in the window")
            default: break
            }
        }
        // the same ad UI shows on ad frames outside PiP: the check above can fail
        let ad = try #require(run.session.adsManager?.playedBreaks.first?.ads.first)
        #expect(ad.presentation == .pictureInPicture)
        let started = try #require(run.events.first { $0["event"] as? String == "STARTED" })
        #expect(started["presentation"] as? String == "pictureInPicture")
        #expect(Self.identity(p, 80, in: TestSupport.PixelRect(x: 0, y: 0, width: 320, height: 180)) == 7050, "full size after pip off")
    }

    @Test func adUIShowsOnAdFramesOutsidePip() async throws {
        // control for the test above: without PiP the fake ad UI box is there on ad frames
        let run = try await Self.play(#"{"actions": []}"#, adUI: true, name: "pip-control")
        let p = run.pictures
        let box = FakeAdUI.box
        for n in 30..<60 { #expect(p.mean(frame: n, x: box.x, y: box.y, width: box.width, height: box.height) > 220) }
        #expect(run.session.adsManager?.playedBreaks.first?.ads.first?.presentation == .normal)
    }

    @Test func inBackgroundWithoutBackgroundPlaybackContentAndAdsPauseWithTheirBeacons() async throws {
        // background for 0.6 s at stream 0.5 s (content) and at stream 1.5 s (in the ad, frame 44)
        let run = try await Self.play("""
            {"actions": [{"at": 0.5, "clock": "stream", "do": "background on", "for": 0.6},
                         {"at": 1.5, "clock": "stream", "do": "background on", "for": 0.6}]}
            """, clock: .realTime, name: "background-off")
        let times = run.null.presentationTimes
        #expect(times.count == 120)
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        try #require(gaps.count > 44)
        #expect(gaps[14] > 0.5, "content held in the background: \(gaps[14]) s after frame 14")
        #expect(gaps[44] > 0.5, "the ad held in the background: \(gaps[44]) s after frame 44")
        #expect(run.names.filter { $0 == "PAUSE" }.count == 1 && run.names.filter { $0 == "RESUME" }.count == 1)
        #expect(run.events.filter { $0["event"] as? String == "background" }.allSatisfy { $0["playback"] as? String == "pauses" })
        let beacons = run.arrivals.all
        let pauseAt = try #require(beacons.first { $0.target.contains("e=pause") }).at
        let resumeAt = try #require(beacons.first { $0.target.contains("e=resume") }).at
        #expect(resumeAt - pauseAt > 0.5)
        // no beacon fired while the app was in the background
        #expect(!beacons.contains { $0.at > pauseAt + 0.05 && $0.at < resumeAt - 0.05 }, "\(beacons)")
        #expect(beacons.contains { $0.target.contains("e=complete") })
    }

    @Test func withBackgroundPlaybackEverythingGoesOn() async throws {
        let settings = Settings()
        settings.enableBackgroundPlayback = true
        let run = try await Self.play("""
            {"actions": [{"at": 0.5, "clock": "stream", "do": "background on", "for": 0.6},
                         {"at": 1.5, "clock": "stream", "do": "background on", "for": 0.6}]}
            """, clock: .realTime, settings: settings, name: "background-on")
        let times = run.null.presentationTimes
        #expect(times.count == 120)
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect((gaps.max() ?? 1) < 0.3, "no hold: largest gap \(gaps.max() ?? -1) s")
        #expect(!run.names.contains("PAUSE"))
        #expect(run.events.filter { $0["event"] as? String == "background" }.allSatisfy { $0["playback"] as? String == "continues" })
        let beacons = run.arrivals.all
        // the quartiles of the ad went out while the app was in the background (stream 1.5-2.1 s)
        #expect(beacons.contains { $0.target.contains("e=midpoint") } && !beacons.contains { $0.target.contains("e=pause") })
    }

    @Test func theScriptReadsPipAndBackgroundActions() throws {
        let s = try SessionScript.parse(Data("""
            {"actions": [{"at": 1, "do": "pip on"}, {"at": 2, "do": "pip off"},
                         {"at": 3, "do": "background on", "for": 1.5}, {"at": 4, "do": "background off"}]}
            """.utf8))
        #expect(s.actions.map(\.kind) == [.pictureInPicture(true), .pictureInPicture(false), .background(true, seconds: 1.5), .background(false, seconds: nil)])
        #expect(throws: SessionScript.Invalid.self) { try SessionScript.parse(Data(#"{"actions": [{"at": 1, "do": "pip"}]}"#.utf8)) }
    }
}
