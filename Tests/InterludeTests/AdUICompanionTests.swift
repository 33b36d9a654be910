import Draw
import Foundation
import Testing
import Timing
import TestSupport
import Playback
@testable import Interlude

/// Companion slots in a tag stitch: filled with the ad's companion of their size over the ad's
/// stream-time range, and the L-shaped layout (ad shrunk, companions around it) on ad frames only.
@MainActor @Suite(.serialized) struct AdUICompanionTests {
    @Test func slotsAreFilledAndTheLBarShowsThemOnAdFramesOnly() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-companion-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let tall = dir.appendingPathComponent("tall.png"), wide = dir.appendingPathComponent("wide.png")
        _ = try await Tools.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=white:s=300x250", "-frames:v", "1", tall.path])
        _ = try await Tools.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x808080:s=728x90", "-frames:v", "1", wide.path])
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 2)
        let ad = try await TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 25, seconds: 1)
        let vmap = """
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
            <vmap:AdBreak timeOffset="00:00:01.000" breakType="linear" breakId="mid"><vmap:AdSource><vmap:VASTAdData>
            <VAST version="3.0"><Ad id="a"><InLine><AdSystem>T</AdSystem><AdTitle>a</AdTitle><Impression><![CDATA[http://127.0.0.1:9/i]]></Impression>
            <Creatives><Creative><Linear><Duration>00:00:01</Duration>
            <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[\(ad.path)]]></MediaFile></MediaFiles>
            </Linear></Creative><Creative><CompanionAds>
            <Companion id="t" width="300" height="250"><StaticResource creativeType="image/png"><![CDATA[\(tall.path)]]></StaticResource></Companion>
            <Companion id="w" width="728" height="90"><StaticResource creativeType="image/png"><![CDATA[\(wide.path)]]></StaticResource></Companion>
            </CompanionAds></Creative></Creatives></InLine></Ad></VAST>
            </vmap:VASTAdData></vmap:AdSource></vmap:AdBreak></vmap:VMAP>
            """
        func stitch(_ name: String, lbar: Bool) async throws -> (StitchResult, DecodedPictures) {
            let out = dir.appendingPathComponent("\(name).nut")
            let s = TagStitcher(output: StitchRequest(content: content.path, breaks: [], output: out.path, container: .nut), adsResponse: vmap)
            s.cache = AdMediaCache(directory: dir.appendingPathComponent("cache"))
            s.drawsDefaultAdUI = false
            s.companionSlots = [CompanionAdSlot(width: 300, height: 250), CompanionAdSlot(width: 728, height: 90)]
            s.companionLBar = lbar
            let r = try await s.run()
            return (r, try await DecodedPictures.decode(out))
        }
        let (plainResult, plain) = try await stitch("plain", lbar: false)
        let (result, lbar) = try await stitch("lbar", lbar: true)
        // both slots filled over the ad's range, 1 s to 2 s
        #expect(plainResult.companions.map(\.slot) == ["300x250", "728x90"])
        #expect(plainResult.companions.allSatisfy { $0.streamStart == MediaTime(value: 1, timescale: 1) && $0.streamEnd == MediaTime(value: 2, timescale: 1) })
        #expect(plainResult.companions.first?.data == (try Data(contentsOf: tall)))
        #expect(result.companions.count == 2)
        // 75 frames: content 0..<25, ad 25..<50, content 50..<75
        #expect(plain.frames.count == 75 && lbar.frames.count == 75)
        let l = CompanionLBarLayer.layout([(300, 250), (728, 90)], width: 320, height: 180)
        #expect(l.video == Draw.PixelRect(x: 0, y: 0, width: 240, height: 134))
        let t = try #require(l.companions[0]), w = try #require(l.companions[1])
        #expect(t.x >= 240 && t.y + t.height <= 134 && w.y >= 134, "tall on the right, wide below: \(t) \(w)")
        for n in 0..<75 {
            if (25..<50).contains(n) {
                #expect(lbar.mean(frame: n, x: t.x + 4, y: t.y + 4, width: t.width - 8, height: t.height - 8) > 250, "tall companion, frame \(n)")
                let grey = lbar.mean(frame: n, x: w.x + 4, y: w.y + 4, width: w.width - 8, height: w.height - 8)
                #expect(grey > 120 && grey < 136, "wide companion, frame \(n): \(grey)")
                #expect(lbar.frames[n] != plain.frames[n])
            } else {
                #expect(lbar.frames[n] == plain.frames[n], "content frame \(n) untouched")
            }
        }
    }
}
