import Foundation
import Testing
import Media
import TestSupport
import Timing
@testable import Playback

/// The re-encode's libx264 lookahead buffer (`EncoderSettings.lookaheadBuffer`) is a speed
/// setting only: libx264 with three frame threads gives the same packets with it as with its own
/// choice, so the stitch's bytes do not depend on it.
@Suite struct LookaheadBufferTests {
    @Test func theOptionsCarryItAfterTheKeyframeIntervalAndBFrames() {
        var settings = EncoderSettings()
        #expect(settings.x264Options()["x264-params"] == "sync-lookahead=\(EncoderSettings.lookaheadBuffer)")
        settings.keyframeInterval = 60
        settings.bFrames = 0
        #expect(settings.x264Options()["x264-params"] == "keyint=60:scenecut=0:bframes=0:sync-lookahead=\(EncoderSettings.lookaheadBuffer)")
    }

    @Test func libx264GivesTheSamePacketsWithItAsWithItsOwnChoice() throws {
        let format = OutputFormat(width: 640, height: 360, frameRate: Rational(30, 1), sampleRate: 48000, channels: 2)
        var frames: [Frame] = []
        let source = try MediaSource(url: TestMedia.Sample.content.url.path, output: format)
        while frames.count < 150, let f = try source.nextFrame() { frames.append(f.frame) }
        #expect(frames.count == 150)
        func encode(_ params: String?) throws -> [String] {
            var options = EncoderSettings().x264Options()
            options["x264-params"] = params
            options["threads"] = "3"   // frame threads, as on two CPUs: without them libx264 ignores the buffer
            let encoder = try Encoder(video: "libx264", width: format.width, height: format.height,
                                      frameRate: format.frameRate, options: options, globalHeader: true)
            let packet = try Packet()
            var out: [String] = []
            func drain() throws {
                while try encoder.receive(into: packet) == .produced { out.append("\(packet.ptsTicks ?? -1):\(packet.bytes.hashValue)") }
            }
            for (i, f) in frames.enumerated() {
                let c = try f.clone()
                c.setPTS(Int64(i))
                try encoder.send(c)
                try drain()
            }
            try encoder.send(nil)
            try drain()
            return out
        }
        let own = try encode(nil), buffered = try encode("sync-lookahead=\(EncoderSettings.lookaheadBuffer)")
        #expect(own.count == 150)
        #expect(own == buffered)
    }
}
