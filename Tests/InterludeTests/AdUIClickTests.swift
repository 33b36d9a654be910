import Foundation
import Testing
import Timing
import TestSupport
import Playback
@testable import Interlude

/// Clicks in a live window, as `PlaySession.click(atX:y:)` gets them: on the drawn "Learn more"
/// a click-through, on the drawn skip button a skip, elsewhere on a paused ad TAPPED and resume.
@MainActor @Suite(.serialized) struct AdUIClickTests {
    static func tag(_ dir: URL, ad: URL) throws -> String {
        let vmap = """
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
            <vmap:AdBreak timeOffset="00:00:01.000" breakType="linear" breakId="mid"><vmap:AdSource><vmap:VASTAdData>
            <VAST version="3.0"><Ad id="a"><InLine><AdSystem>T</AdSystem><AdTitle>a</AdTitle><Impression><![CDATA[http://127.0.0.1:9/i]]></Impression>
            <Creatives><Creative><Linear skipoffset="00:00:00.400"><Duration>00:00:02</Duration>
            <VideoClicks><ClickThrough><![CDATA[https://example.com/learn]]></ClickThrough></VideoClicks>
            <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[\(ad.path)]]></MediaFile></MediaFiles>
            </Linear></Creative></Creatives></InLine></Ad></VAST>
            </vmap:VASTAdData></vmap:AdSource></vmap:AdBreak></vmap:VMAP>
            """
        let url = dir.appendingPathComponent("tag.xml")
        try Data(vmap.utf8).write(to: url)
        return url.path
    }

    /// Plays with the ad paused at its midpoint, then runs `clicks` on the paused ad.
    static func play(_ clicks: @escaping @MainActor (PlaySession, AdUILayer) -> Void) async throws -> [AdEventType] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-click-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 2)
        let ad = try await TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 25, seconds: 2)
        let player = Player(url: content, clock: .asFastAsPossible)
        player.surface.attach(NullOutput())
        let script = try SessionScript.parse(Data(#"{"actions": [{"on": "MIDPOINT", "do": "pause"}]}"#.utf8))
        let session = PlaySession(player: player, adTag: try tag(dir, ad: ad), script: script, log: SessionEventLog(handle: nil, wallTime: false))
        let clicker = Task { @MainActor in
            let deadline = Date().addingTimeInterval(60)
            while !(session.adsManager?.isAdPaused ?? false), Date() < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
            guard let layer = session.adUI else { return }
            clicks(session, layer)
        }
        try await session.run()
        _ = await clicker.result
        return session.adsManager?.events.map(\.type) ?? []
    }

    @Test func learnMoreThenATapOnThePausedAd() async throws {
        let events = try await Self.play { session, layer in
            let areas = layer.hitAreas
            #expect(areas.map(\.action) == [.learnMore, .skip], "\(areas)")
            guard let learn = areas.first?.rect else { return }
            session.click(atX: learn.x + learn.width / 2, y: learn.y + learn.height / 2)
            #expect(session.adsManager?.isAdPaused == true, "Learn more does not resume")
            session.click(atX: 160, y: 40)                       // the picture itself: TAPPED, resumed
        }
        let tail = events.drop { $0 != .pause }
        #expect(Array(tail.prefix(4)) == [.pause, .clicked, .tapped, .resume], "\(events)")
        #expect(events.contains(.complete) && !events.contains(.skipped))
    }

    @Test func theSkipButtonSkips() async throws {
        let events = try await Self.play { session, layer in
            guard let skip = layer.hitAreas.first(where: { $0.action == .skip })?.rect else { Issue.record("no skip button"); return }
            session.click(atX: skip.x + 2, y: skip.y + 2)
        }
        #expect(events.contains(.skipped) && !events.contains(.complete), "\(events)")
    }
}
