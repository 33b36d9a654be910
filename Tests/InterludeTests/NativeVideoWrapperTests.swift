import Ads
import Foundation
import Interlude
import Testing
import TestSupport

/// A native video asset whose VAST is a wrapper: the chain is followed with the ad-tag loader's
/// limits (hops, deadlines, loops, no local files from network documents) on a loopback server.
@MainActor @Suite(.serialized) struct NativeVideoWrapperTests {
    /// A VAST wrapper pointing at `uri`.
    static func wrapper(_ uri: String, id: String = "w") -> String {
        "<VAST version=\"3.0\"><Ad id=\"\(id)\"><Wrapper><AdSystem>W</AdSystem><VASTAdTagURI><![CDATA[\(uri)]]></VASTAdTagURI>"
            + "<Impression><![CDATA[http://i.invalid/\(id)]]></Impression><Creatives></Creatives></Wrapper></Ad></VAST>"
    }

    /// An inline VAST whose media file is `media`.
    static func inline(_ media: String) -> String {
        "<VAST version=\"3.0\"><Ad id=\"in\"><InLine><AdSystem>I</AdSystem><AdTitle>native video</AdTitle><Impression><![CDATA[http://i.invalid/in]]></Impression>"
            + "<Creatives><Creative><Linear><Duration>00:00:01</Duration><MediaFiles><MediaFile delivery=\"progressive\" type=\"video/mp4\" width=\"320\" height=\"180\">"
            + "<![CDATA[\(media)]]></MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>"
    }

    /// The fixture's response with its video asset's VAST replaced by `vast`.
    static func response(_ f: NativeAdServer, vast: String) throws -> NativeResponse {
        let text = NativeAdServer.response(server: f.server, video: true)
        let start = try #require(text.range(of: "<VAST")), end = try #require(text.range(of: "</VAST>"))
        let escaped = vast.replacingOccurrences(of: "\"", with: "\\\"")
        let json = text.replacingCharacters(in: start.lowerBound..<end.upperBound, with: escaped)
        return try NativeResponseParser().parse(Data(json.utf8)).get()
    }

    static func assemble(_ f: NativeAdServer, vast: String, timeout: Double = 8) async throws -> CustomNativeAd {
        var settings = NativeLoadSettings()
        settings.timeout = timeout
        let format = try NativeFormatDefinition.parse(Data(NativeRenderTests.formatFile.utf8)).get()
        return try await NativeAdAssembler.assemble(response: try response(f, vast: vast), format: format,
                                                    responseURL: URL(string: f.server.url("/native.json")), settings: settings)
    }

    @Test func aWrapperChainIsFollowedToTheVideoWhichPlaysInTheMediaWindow() async throws {
        let clip = try await TestMedia.clip(sourceID: 5, width: 320, height: 180, fps: 25, seconds: 1)
        let f = try NativeAdServer(video: clip)
        f.server.route("/vast/w2.xml", body: Self.wrapper(f.server.url("/vast/inline.xml"), id: "w2"))
        f.server.route("/vast/inline.xml", body: Self.inline(f.server.url("/media/native.mp4")))
        let ad = try await Self.assemble(f, vast: Self.wrapper(f.server.url("/vast/w2.xml")))
        #expect(ad.videoController.hasVideoContent())
        #expect(ad.mediaContent.videoURL == f.server.url("/media/native.mp4"))
        #expect(ad.mediaContent.videoProblem == nil)
        #expect(f.server.requestCount("/vast/w2.xml") == 1 && f.server.requestCount("/vast/inline.xml") == 1)
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 4)
        let (r, out) = try await NativeRenderTests.stitch([NativeBreak(position: .time(MediaTime(seconds: 1)), ad: ad, layout: .fullFrame,
                                                                       template: try NativeRenderTests.template("template"))], content: content)
        #expect(r.natives.first?.media == f.server.url("/media/native.mp4") && r.natives.first?.frames == 25)
        #expect(r.videoFrames == 125)
        try await NativeRenderTests.expectVideoInMediaWindow(try DecodedPictures.decode(out, pixelFormat: "rgb24"), clip: clip)
    }

    @Test func hostileChainsGiveNoVideoAndTheImageLayoutWithAReason() async throws {
        let clip = try await TestMedia.clip(sourceID: 5, width: 320, height: 180, fps: 25, seconds: 1)
        let f = try NativeAdServer(video: clip)
        let s = f.server
        s.route("/vast/loop.xml", body: Self.wrapper(s.url("/vast/loop.xml"), id: "loop"))
        s.route("/vast/local-media.xml", body: Self.inline("file://" + clip.path))
        s.route("/vast/local-wrapper.xml", body: Self.wrapper("file://" + clip.path))
        s.route("/vast/slow.xml", body: Self.inline(s.url("/media/native.mp4")), delay: 20)   // answers far past the deadline
        for i in 0..<6 { s.route("/vast/hop\(i).xml", body: Self.wrapper(s.url("/vast/hop\(i + 1).xml"), id: "h\(i)")) }
        s.route("/vast/hop6.xml", body: Self.inline(s.url("/media/native.mp4")))
        let cases: [(String, String, String)] = [
            (Self.wrapper(s.url("/vast/loop.xml")), "loop", "wrapper loop"),
            (Self.wrapper(s.url("/vast/local-media.xml")), "local media file from the network", "local file named by a network document"),
            (Self.wrapper(s.url("/vast/local-wrapper.xml")), "local wrapper from the network", "refused in a document fetched from http"),
            (Self.inline("file://" + clip.path), "local media in a network response", "local file named by a network document"),
            (Self.wrapper(s.url("/vast/hop0.xml")), "too many hops", "more than 4 redirects"),
            ("<VAST version=\"3.0\"><Ad><Wrapper>", "malformed", "not well-formed XML"),
        ]
        for (vast, what, why) in cases {
            let ad = try await Self.assemble(f, vast: vast)
            #expect(!ad.videoController.hasVideoContent(), "\(what)")
            #expect(ad.mediaContent.videoProblem?.contains(why) == true, "\(what): \(ad.mediaContent.videoProblem ?? "no reason")")
            #expect(ad.image(forKey: "MainImage")?.image != nil, "\(what): the image is there for the fallback")
        }
        #expect(s.requestCount("/vast/hop5.xml") == 0, "the chain stops at the redirect limit")
        let started = Date()
        let slow = try await Self.assemble(f, vast: Self.wrapper(s.url("/vast/slow.xml")), timeout: 1)
        #expect(!slow.videoController.hasVideoContent())
        #expect(slow.mediaContent.videoProblem?.contains("no answer within 1") == true, "\(slow.mediaContent.videoProblem ?? "no reason")")
        // the 1 s deadline ends the wait, not the answer 20 s later (loose bound: the main actor is shared with other tests)
        #expect(Date().timeIntervalSince(started) < 12, "the wrapper request has a deadline")
    }
}
