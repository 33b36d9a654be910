import Foundation
import Interlude
import Testing
import TestSupport

/// Runs the ported custom-native guide code (CustomNativeViewController.swift) against a loopback
/// ad server serving an OpenRTB Native 1.2 response of format 10063170, and checks what the app's
/// views hold, the impression counted once, the AdChoices tap and the custom click handler.
@MainActor @Suite(.serialized) struct CustomNativeGuideTests {
    static let template = """
        {"template": {"width": 320, "height": 180, "background": "#102030", "views": [
          {"name": "MainPlaceholder", "kind": "media", "x": 8, "y": 8, "width": 192, "height": 108},
          {"name": "Headline", "kind": "text", "x": 208, "y": 8, "width": 104, "height": 28, "size": 18},
          {"name": "MainImage", "kind": "image", "x": 208, "y": 40, "width": 64, "height": 36},
          {"name": "Caption", "kind": "text", "x": 8, "y": 124, "width": 300, "height": 20, "size": 12},
          {"name": "AdChoices", "kind": "image", "x": 296, "y": 152, "width": 20, "height": 20}]}}
        """

    struct Server {
        let server: HTTPTestServer
        init(video: URL?) throws {
            server = try HTTPTestServer()
            let png = TestMedia.cacheDirectory.appendingPathComponent("guide-native-\(UUID().uuidString.prefix(6)).png")
            try FileManager.default.createDirectory(at: TestMedia.cacheDirectory, withIntermediateDirectories: true)
            _ = try Tools.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=orange:s=160x90", "-frames:v", "1", png.path])
            server.route("/main.png", .init(status: 200, headers: ["Content-Type": "image/png"], body: try Data(contentsOf: png)))
            try? FileManager.default.removeItem(at: png)
            for p in ["/imp", "/click", "/privacy", "/landing"] { server.route(p, .init(status: 200, headers: [:], body: Data("ok".utf8))) }
            var videoAsset = ""
            if let video {
                server.route("/v.mp4", .init(status: 200, headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: video)))
                let vast = "<VAST version=\\\"4.0\\\"><Ad><InLine><AdSystem>L</AdSystem><AdTitle>v</AdTitle><Impression>\(server.url("/vimp"))</Impression><Creatives><Creative><Linear><Duration>00:00:01</Duration><MediaFiles><MediaFile delivery=\\\"progressive\\\" type=\\\"video/mp4\\\" width=\\\"320\\\" height=\\\"180\\\">\(server.url("/v.mp4"))</MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>"
                videoAsset = ", {\"id\": 4, \"video\": {\"vasttag\": \"\(vast)\"}}"
            }
            server.route("/native", body: """
                {"native": {"assets": [{"id": 1, "title": {"text": "Headline from the server"}},
                  {"id": 2, "img": {"url": "\(server.url("/main.png"))"}}, {"id": 3, "data": {"value": "A caption"}}\(videoAsset)],
                 "link": {"url": "\(server.url("/landing"))", "clicktrackers": ["\(server.url("/click"))"]},
                 "imptrackers": ["\(server.url("/imp"))"], "privacy": "\(server.url("/privacy"))"}}
                """)
        }

        func hits(_ path: String, atLeast n: Int) async -> Int {
            let end = Date().addingTimeInterval(30)
            while server.requestCount(path) < n && Date() < end { try? await Task.sleep(nanoseconds: 20_000_000) }
            return server.requestCount(path)
        }
    }

    /// The app's view, loaded from the template (the "nib") with its outlets bound by name.
    static func makeView() throws -> MySimpleNativeAdView {
        let template = try #require(try NativeTemplate.parse(formatFile: Data(template.utf8), key: "template").get())
        let view = MySimpleNativeAdView()
        view.load(template)
        view.headlineView = view.view(named: "Headline") as? NativeLabel
        view.mainImageView = view.view(named: "MainImage") as? NativeImageView
        view.captionView = view.view(named: "Caption") as? NativeLabel
        view.adChoicesView = view.view(named: "AdChoices") as? NativeImageView
        view.mainPlaceholder = view.view(named: "MainPlaceholder")
        view.awakeFromNib()
        return view
    }

    static func run(_ s: Server, beforeLoad: (CustomNativeViewController) -> Void = { _ in }) async throws -> CustomNativeViewController {
        CustomNativeViewController.AdUnitID = s.server.url("/native")
        let vc = CustomNativeViewController()
        vc.nativeAdView = try makeView()
        vc.viewDidLoad()
        beforeLoad(vc)
        let end = Date().addingTimeInterval(60)   // the parallel pass: a loaded machine
        while vc.nativeAdView.customNativeAd == nil && vc.log.isEmpty && Date() < end { try await Task.sleep(nanoseconds: 10_000_000) }
        return vc
    }

    @Test func theGuidesViewShowsTheAssetsAndCountsOneImpression() async throws {
        let s = try Server(video: nil)
        let vc = try await Self.run(s)
        #expect(vc.log.isEmpty, "\(vc.log)")
        let view = try #require(vc.nativeAdView)
        let ad = try #require(view.customNativeAd)
        #expect(view.headlineView.text == "Headline from the server")
        #expect(view.captionView.text == "A caption")
        #expect(view.mainImageView.image?.width == 160 && view.mainImageView.image?.height == 90)
        // no video: the placeholder holds an image view of MainImage, filling it
        #expect(!ad.videoController.hasVideoContent() && ad.mediaView == nil)
        let main = try #require(view.mainPlaceholder.subviews.first as? NativeImageView)
        #expect(view.mainPlaceholder.subviews.count == 1 && main.frame == view.mainPlaceholder.bounds && main.image?.width == 160)
        // AdChoices shown, at least 15x15
        #expect(!view.adChoicesView.isHidden)
        #expect((view.adChoicesView.image?.width ?? 0) >= 15 && (view.adChoicesView.image?.height ?? 0) >= 15)
        // the impression: recorded in didReceive, once, even when recorded again
        #expect(await s.hits("/imp", atLeast: 1) == 1)
        ad.recordImpression()
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(s.server.requestCount("/imp") == 1)
        // the populated view can be drawn (its snapshot holds the texts, images and AdChoices icon)
        let ops = NativeLayoutSnapshot(view).ops
        #expect(ops.filter { if case .text = $0 { return true } else { return false } }.count == 2)
        #expect(ops.filter { if case .image = $0 { return true } else { return false } }.count == 3)
    }

    @Test func tappingAdChoicesOpensThePrivacyPageAndTheCustomClickHandlerTakesClicks() async throws {
        let s = try Server(video: nil)
        let vc = try await Self.run(s)
        let view = try #require(vc.nativeAdView)
        let ad = try #require(view.customNativeAd)
        let opener = try #require(ad.opener as? RecordingURLOpener)
        #expect(view.adChoicesView.tap())
        #expect(opener.opened == [URL(string: s.server.url("/privacy"))!])
        #expect(ad.clicks == 0)
        view.setUpCustomClickHandler()
        #expect(view.log == ["Custom Click: You just clicked on the image!"])
        #expect(ad.clicks == 1)
        #expect(opener.opened.count == 1)   // the handler took the click: no page opened
        #expect(await s.hits("/click", atLeast: 1) == 1)
    }

    @Test func withAVideoAssetThePlaceholderHoldsTheMediaView() async throws {
        let clip = try await TestMedia.clip(sourceID: 3, width: 320, height: 180, fps: 25, seconds: 1)
        let s = try Server(video: clip)
        let vc = try await Self.run(s) { vc in
            // the publisher made format 10063170 video-enabled: asset 4 is its video
            vc.adLoader.register(CustomNativeFormat(formatID: "10063170", assets: CustomNativeFormat.guideSample.assets + [.init(name: "MainVideo", id: 4, type: .video)]))
        }
        let view = try #require(vc.nativeAdView)
        let ad = try #require(view.customNativeAd, "\(vc.log)")
        #expect(ad.videoController.hasVideoContent())
        let media = try #require(view.mainPlaceholder.subviews.first as? MediaView)
        #expect(media.mediaContent?.videoURL == s.server.url("/v.mp4"))
        #expect(media.frame == view.mainPlaceholder.bounds)
    }
}
