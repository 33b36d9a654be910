import Draw
import Foundation
import Media
import Testing
import Timing
import TestSupport
import Playback
@testable import Interlude

/// VAST NonLinear overlays reached through wrappers, buffets of overlays, and clicks on an overlay
/// in a live session — all against a real HTTP server on 127.0.0.1.
@MainActor @Suite(.serialized) struct AdUIOverlayWrapperTests {
    /// A temporary folder, a loopback server and a 160x40 banner PNG (white in a 4 px black frame).
    final class Fixture {
        let dir: URL
        let server: HTTPTestServer
        let png: Data
        init() throws {
            dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-ovw-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let file = dir.appendingPathComponent("banner.png")
            _ = try Tools.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=white:s=160x40,drawbox=x=0:y=0:w=160:h=40:color=black:t=4",
                                  "-frames:v", "1", file.path])
            png = try Data(contentsOf: file)
            server = try HTTPTestServer()
            server.route("/banner.png", .init(status: 200, headers: ["Content-Type": "image/png"], body: png))
        }
        func stop() { server.stop(); try? FileManager.default.removeItem(at: dir) }
        func u(_ path: String) -> String { server.url(path) }

        /// An InLine overlay ad; `resource` is the NonLinear's resource element.
        func inline(_ id: String, sequence: Int? = nil, resource: String, seconds: String = "00:00:00.800", click: Bool = false) -> String {
            let seq = sequence.map { " sequence=\"\($0)\"" } ?? ""
            let clicks = click ? "<NonLinearClickThrough><![CDATA[https://example.com/land?ad=\(id)]]></NonLinearClickThrough>"
                + "<NonLinearClickTracking><![CDATA[\(u("/ct?lvl=inline"))]]></NonLinearClickTracking>" : ""
            return """
                <Ad id="\(id)"\(seq)><InLine><AdSystem>T</AdSystem><AdTitle>\(id)</AdTitle><Impression><![CDATA[\(u("/imp?ad=\(id)"))]]></Impression>
                <Error><![CDATA[\(u("/err?ad=\(id)&code=[ERRORCODE]"))]]></Error>
                <Creatives><Creative><NonLinearAds><NonLinear width="160" height="40" minSuggestedDuration="\(seconds)">\(resource)\(clicks)</NonLinear>
                <TrackingEvents><Tracking event="creativeView"><![CDATA[\(u("/cv?lvl=\(id)"))]]></Tracking>
                <Tracking event="close"><![CDATA[\(u("/close?lvl=\(id)"))]]></Tracking></TrackingEvents>
                </NonLinearAds></Creative></Creatives></InLine></Ad>
                """
        }
        var image: String { "<StaticResource creativeType=\"image/png\"><![CDATA[\(u("/banner.png"))]]></StaticResource>" }

        /// A wrapper with its own NonLinear tracking and click tracking, leading to `next`.
        func wrapper(_ level: String, next: String) -> String {
            """
            <Ad id="\(level)"><Wrapper><AdSystem>W</AdSystem><VASTAdTagURI><![CDATA[\(next)]]></VASTAdTagURI>
            <Impression><![CDATA[\(u("/imp?ad=\(level)"))]]></Impression>
            <Creatives><Creative><NonLinearAds>
            <TrackingEvents><Tracking event="creativeView"><![CDATA[\(u("/cv?lvl=\(level)"))]]></Tracking>
            <Tracking event="close"><![CDATA[\(u("/close?lvl=\(level)"))]]></Tracking></TrackingEvents>
            <NonLinear><NonLinearClickTracking><![CDATA[\(u("/ct?lvl=\(level)"))]]></NonLinearClickTracking></NonLinear>
            </NonLinearAds></Creative></Creatives></Wrapper></Ad>
            """
        }

        /// Serves a VMAP with one non-linear break at `offset` holding `ads`, and the chain
        /// w1 → w2 → inline documents; returns the VMAP's URL.
        func vmap(offset: String, ads: String) -> String {
            server.route("/vmap.xml", body: """
                <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
                <vmap:AdBreak timeOffset="\(offset)" breakType="nonlinear" breakId="ov">
                <vmap:AdSource allowMultipleAds="true"><vmap:VASTAdData><VAST version="3.0">
                \(ads)
                </VAST></vmap:VASTAdData></vmap:AdSource></vmap:AdBreak></vmap:VMAP>
                """)
            return u("/vmap.xml")
        }

        /// Serves the two inner documents of a wrapper chain ending in InLine `inline`.
        func chain(inline: String) -> String {
            server.route("/w2.xml", body: "<VAST version=\"3.0\">\(wrapper("w2", next: u("/inline.xml")))</VAST>")
            server.route("/inline.xml", body: "<VAST version=\"3.0\">\(inline)</VAST>")
            return wrapper("w1", next: u("/w2.xml"))
        }
    }

    static func stitch(_ f: Fixture, tag: String, name: String) async throws -> (StitchResult, URL) {
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 2)
        let out = f.dir.appendingPathComponent("\(name).nut")
        let stitcher = TagStitcher(output: StitchRequest(content: content.path, breaks: [], output: out.path, container: .nut), adTag: tag)
        stitcher.cache = AdMediaCache(directory: f.dir.appendingPathComponent("cache"))
        return (try await stitcher.run(), out)
    }

    /// Wrapper-level NonLinearAds tracking applies to the overlay: `creativeView` at the cue and
    /// `close` at its end fire the outer wrapper's, the inner wrapper's, then the InLine's.
    @Test func wrapperTrackingIsMergedIntoTheOverlaysBeacons() async throws {
        let f = try Fixture()
        defer { f.stop() }
        let tag = f.vmap(offset: "00:00:01.000", ads: f.chain(inline: f.inline("in", resource: f.image)))
        let (result, out) = try await Self.stitch(f, tag: tag, name: "wrapped")
        #expect(result.errors.isEmpty, "\(result.errors.map(\.message))")
        let beacons = result.beacons.filter { $0.adId == "in" }
        let levels = { (event: String) in beacons.filter { $0.event == event }.map { URLComponents(string: $0.url)?.queryItems?.first?.value ?? "?" } }
        #expect(levels("impression") == ["w1", "w2", "in"])
        #expect(levels("creativeView") == ["w1", "w2", "in"])
        #expect(levels("close") == ["w1", "w2", "in"])
        #expect(beacons.filter { $0.event == "creativeView" }.allSatisfy { $0.streamTime == MediaTime(value: 1, timescale: 1) })
        #expect(beacons.filter { $0.event == "close" }.allSatisfy { $0.streamTime == MediaTime(value: 9, timescale: 5) })
        // and the overlay was drawn (frame 30 = 1.2 s): the banner's white inside
        #expect(try await DecodedPictures.decode(out).mean(frame: 30, x: 88, y: 138, width: 144, height: 24) > 250)
    }

    /// A buffet of overlays (ads without `sequence`): only the first is shown; when it cannot be
    /// (HTML only: 503; its image is a 404: 502), the next stand-alone ad is tried, as IMA does.
    @Test func aFailedBuffetOverlayFallsBackToTheNext() async throws {
        let f = try Fixture()
        defer { f.stop() }
        let ads = [
            f.inline("html", resource: "<HTMLResource><![CDATA[<b>hi</b>]]></HTMLResource>"),
            f.inline("gone", resource: "<StaticResource creativeType=\"image/png\"><![CDATA[\(f.u("/missing.png"))]]></StaticResource>"),
            f.inline("good", resource: f.image),
            f.inline("spare", resource: f.image),
        ].joined(separator: "\n")
        let (result, out) = try await Self.stitch(f, tag: f.vmap(offset: "00:00:01.000", ads: ads), name: "buffet")
        #expect(result.errors.map(\.code) == [503, 502], "\(result.errors.map(\.message))")
        #expect(result.errors.map(\.adId) == ["html", "gone"])
        #expect(result.beacons.contains { $0.event == "error" && $0.url.contains("ad=html&code=503") })
        #expect(result.beacons.contains { $0.event == "error" && $0.url.contains("ad=gone&code=502") })
        // only the fallback was shown: its impression, creativeView and close; none of the last one
        #expect(result.beacons.filter { $0.adId == "good" }.map(\.event) == ["impression", "creativeView", "close"])
        #expect(!result.beacons.contains { $0.adId == "spare" || ($0.event == "impression" && $0.adId != "good") })
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 2)
        let plainOut = f.dir.appendingPathComponent("plain.nut")
        _ = try Stitcher(request: StitchRequest(content: content.path, breaks: [], output: plainOut.path, container: .nut)).run()
        let drawn = try await DecodedPictures.decode(out), plain = try await DecodedPictures.decode(plainOut)
        for n in [25, 35, 44] {
            #expect(drawn.mean(frame: n, x: 88, y: 138, width: 144, height: 24) > 250, "banner on frame \(n)")
            #expect(drawn.frames[n] != plain.frames[n])
        }
        for n in [0, 24, 45, 49] { #expect(drawn.frames[n] == plain.frames[n], "frame \(n) as the content") }

        // with a good first ad, the buffet's other ads are not shown
        let f2 = try Fixture()
        defer { f2.stop() }
        let ads2 = [f2.inline("first", resource: f2.image), f2.inline("second", resource: f2.image)].joined(separator: "\n")
        let (r2, _) = try await Self.stitch(f2, tag: f2.vmap(offset: "00:00:01.000", ads: ads2), name: "buffet2")
        #expect(r2.errors.isEmpty)
        #expect(Set(r2.beacons.compactMap(\.adId)) == ["first"])
    }

    /// A click on an overlay in a live session (the content paused under it, as a viewer might):
    /// CLICKED with the NonLinearClickThrough, that URL opened by the link opener, and the
    /// NonLinearClickTracking of both wrappers and the InLine fired; a click beside it does nothing.
    @Test func aClickOnAnOverlayInTheLiveWindowIsItsClickThrough() async throws {
        let f = try Fixture()
        defer { f.stop() }
        let tag = f.vmap(offset: "00:00:00.400", ads: f.chain(inline: f.inline("in", resource: f.image, seconds: "00:00:05", click: true)))
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 2)
        // in real time (2 s), as a window plays: the overlay's image is fetched at its cue while
        // the content plays on, so it shows from the first frame after the fetch
        let player = Player(url: content, clock: .realTime)
        player.surface.attach(NullOutput())
        let script = try SessionScript.parse(Data(#"{"actions": [{"at": 1.8, "do": "pause"}]}"#.utf8))
        let session = PlaySession(player: player, adTag: tag, script: script, log: SessionEventLog(handle: nil, wallTime: false))
        let opened = Recorded<String>()
        session.renderingSettings.linkOpener = { opened.append($0.absoluteString) }
        let clicker = Task { @MainActor () -> (ScheduledOverlay?, ScheduledOverlay?) in
            let deadline = Date().addingTimeInterval(60)
            while !(player.rate == 0 && session.adsManager?.overlay(atX: 160, y: 150) != nil), Date() < deadline {
                try await Task.sleep(nanoseconds: 5_000_000)
            }
            let besideHit = session.adsManager?.overlay(atX: 20, y: 20)
            session.click(atX: 20, y: 20)                 // beside the overlay: nothing
            let hit = session.adsManager?.overlay(atX: 160, y: 150)
            session.click(atX: 160, y: 150)               // on it
            session.perform(.resume)
            return (besideHit, hit)
        }
        try await session.run()
        let (besideHit, hit) = try await clicker.value
        #expect(besideHit == nil)
        #expect(hit?.adId == "in")
        let m = try #require(session.adsManager)
        let clicked = m.events.filter { $0.type == .clicked }
        #expect(clicked.count == 1)
        #expect(clicked.first?.ad?.adId == "in" && clicked.first?.ad?.isLinear == false)
        #expect(clicked.first?.data?["clickThroughUrl"] == "https://example.com/land?ad=in")
        #expect(opened.all == ["https://example.com/land?ad=in"])
        let tracking = m.beacons.filter { $0.event == "clickTracking" }
        #expect(tracking.map(\.url) == [f.u("/ct?lvl=w1"), f.u("/ct?lvl=w2"), f.u("/ct?lvl=inline")], "\(tracking.map(\.url))")
        #expect(tracking.allSatisfy { $0.adId == "in" && $0.breakId == "ov" })
        // fired live: the server got each level's click tracking once
        let deadline = Date().addingTimeInterval(60)
        while f.server.requestCount("/ct") < 3, Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(f.server.requests.filter { $0.path == "/ct" }.map(\.target).sorted() == ["/ct?lvl=inline", "/ct?lvl=w1", "/ct?lvl=w2"])
        // the content was not paused by the overlay: no break, every content frame played
        #expect(!m.events.contains { $0.type == .adBreakStarted || $0.type == .started })
    }
}
