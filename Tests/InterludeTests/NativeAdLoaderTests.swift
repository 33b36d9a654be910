import Ads
import Foundation
import Interlude
import Testing
import TestSupport

/// AdLoader and CustomNativeAd against a loopback ad server: assets by key, images decoded,
/// video or image fallback, impressions once, clicks in the guide's order, AdChoices, hostile responses.
@MainActor @Suite struct NativeAdLoaderTests {
    func load(_ fixture: NativeAdServer, options: [AdLoaderOption]? = nil, path: String = "/native.json",
              configure: (AdLoader) -> Void = { _ in }) async -> (CustomNativeAd?, Error?, AdLoader) {
        let loader = AdLoader(adUnitID: fixture.server.url(path), rootViewController: nil, adTypes: [.customNative], options: options)
        configure(loader)
        let probe = NativeDelegateProbe()
        await probe.load(loader)
        #expect(probe.finished == 1)
        return (probe.ads.first, probe.errors.first, loader)
    }

    @Test func assetsByKeyWithTheImageDecodedAndMissingKeysNil() async throws {
        let f = try NativeAdServer()
        let (loaded, error, _) = await load(f)
        let ad = try #require(loaded, "\(String(describing: error))")
        #expect(ad.formatID == "10063170")
        #expect(ad.string(forKey: "Headline") == "Fresh coffee")
        #expect(ad.string(forKey: "Caption") == "Roasted this morning")
        #expect(Set(ad.availableAssetKeys) == ["Headline", "MainImage", "Caption", NativeAssetIdentifier.adChoicesViewAsset.rawValue])
        let main = try #require(ad.image(forKey: "MainImage"))
        #expect(main.imageURL?.absoluteString == f.server.url("/img/main.png"))
        let picture = try #require(main.image)
        #expect(picture.width == 160 && picture.height == 90)
        // each quadrant holds its colour (decoded by FFmpeg from the served PNG)
        for (i, (x, y)) in [(20, 20), (140, 20), (20, 70), (140, 70)].enumerated() {
            let p = picture.pixel(x: x, y: y), want = NativeAdServer.quadrants[i]
            #expect(abs(Int(p.r) - Int(want.0)) < 8 && abs(Int(p.g) - Int(want.1)) < 8 && abs(Int(p.b) - Int(want.2)) < 8, "quadrant \(i): \(p)")
        }
        // keys the ad does not have, or of the other kind: nil, no crash
        #expect(ad.string(forKey: "Nope") == nil)
        #expect(ad.image(forKey: "Nope") == nil)
        #expect(ad.string(forKey: "MainImage") == nil)
        #expect(ad.image(forKey: "Headline") == nil)
        #expect(ad.performClickOnAsset(withKey: "Nope") == .none("no asset 'Nope' in this ad"))
        #expect(ad.clicks == 0)
    }

    @Test func urlsOnlyWhenImageLoadingIsDisabled() async throws {
        let f = try NativeAdServer()
        let (loaded, _, _) = await load(f, options: [NativeAdImageAdLoaderOptions(disableImageLoading: true)])
        let ad = try #require(loaded)
        let main = try #require(ad.image(forKey: "MainImage"))
        #expect(main.image == nil)
        #expect(main.imageURL?.absoluteString == f.server.url("/img/main.png"))
        #expect(f.server.requestCount("/img/main.png") == 0)
        #expect(ad.image(forKey: NativeAssetIdentifier.adChoicesViewAsset.rawValue)?.image == nil)
    }

    @Test func imageOnlyFallbackWithoutVideoAndVideoWhenThereIsOne() async throws {
        let f = try NativeAdServer()
        let (plain, _, _) = await load(f)
        let ad = try #require(plain)
        #expect(ad.videoController.hasVideoContent() == false)
        #expect(ad.mediaContent.hasVideoContent == false)
        #expect(ad.image(forKey: "MainImage")?.image != nil)   // what the app shows instead

        let clip = try await TestMedia.clip(sourceID: 5, width: 320, height: 180, fps: 25, seconds: 1)
        let v = try NativeAdServer(video: clip)
        let format = NativeFormatDefinition(formatID: "777", assets: NativeFormatDefinition.guideSample.assets + [.init(name: "MainVideo", id: 4, type: .video)])
        let probe = NativeDelegateProbe()
        probe.formatIDs = ["777"]
        let loader = AdLoader(adUnitID: v.server.url("/native.json"), adTypes: [.customNative])
        loader.register(format)
        await probe.load(loader)
        let videoAd = try #require(probe.ads.first, "\(probe.errors)")
        #expect(videoAd.formatID == "777")
        #expect(videoAd.videoController.hasVideoContent())
        #expect(videoAd.mediaContent.videoURL == v.server.url("/media/native.mp4"))
        #expect(videoAd.mediaContent.aspectRatio == 320.0 / 180.0)
        #expect(videoAd.availableAssetKeys.contains("MainVideo"))

        // a video asset naming a local file, from a network response: no video (the image shows instead)
        let hostile = try NativeAdServer(video: clip)
        hostile.server.route("/native.json", body: NativeAdServer.response(server: hostile.server, video: true)
            .replacingOccurrences(of: hostile.server.url("/media/native.mp4"), with: "file://" + clip.path))
        let probe2 = NativeDelegateProbe()
        probe2.formatIDs = ["777"]
        let loader2 = AdLoader(adUnitID: hostile.server.url("/native.json"), adTypes: [.customNative])
        loader2.register(format)
        await probe2.load(loader2)
        let refused = try #require(probe2.ads.first, "\(probe2.errors)")
        #expect(!refused.videoController.hasVideoContent() && refused.mediaContent.videoURL == nil)
        #expect(refused.image(forKey: "MainImage")?.image != nil)
    }

    @Test func duplicateRecordImpressionFiresOnce() async throws {
        let f = try NativeAdServer()
        let ad = try #require(await load(f).0)
        #expect(f.server.requestCount("/imp") == 0)
        #expect(ad.recordImpression() == true)
        #expect(ad.recordImpression() == false)
        ad.recordImpression()
        #expect(await f.waitForHits("/imp", count: 1) == 1)
        #expect(await f.waitForHits("/ev-imp", count: 1) == 1)
        try await Task.sleep(nanoseconds: 300_000_000)   // room for a wrong second hit to arrive
        #expect(f.server.requestCount("/imp") == 1)
        #expect(f.server.requestCount("/ev-imp") == 1)
        #expect(f.server.requestCount("/js") == 0)   // a JavaScript tracker is never fetched
        #expect(ad.firedTrackers.filter { $0.event == "impression" }.count == 2)
    }

    @Test func clickWithoutHandlerOpensTheFirstOpenableDeepLinkElseTheClickThrough() async throws {
        let f = try NativeAdServer()
        let ad = try #require(await load(f).0)
        let shopApp = RecordingURLOpener(appSchemes: ["shop"])
        ad.opener = shopApp
        #expect(ad.performClickOnAsset(withKey: "MainImage") == .deepLink(URL(string: "shop://item/7")!))
        #expect(shopApp.opened == [URL(string: "shop://item/7")!])
        // no app for the deep link: the click-through URL
        let browser = RecordingURLOpener()
        ad.opener = browser
        #expect(ad.performClickOnAsset(withKey: "MainImage") == .clickThrough(URL(string: f.server.url("/landing"))!))
        // an asset without its own link: the ad's link
        #expect(ad.performClickOnAsset(withKey: "Headline") == .clickThrough(URL(string: f.server.url("/landing"))!))
        #expect(ad.clicks == 3)
        #expect(await f.waitForHits("/click", count: 3) == 3)          // the ad's click tracker on every click
        #expect(await f.waitForHits("/asset-click", count: 2) == 2)    // the asset's own, on its clicks
        #expect(f.server.requestCount("/landing") == 0)                // opening is the opener's business
    }

    @Test func customClickHandlerTakesTheClickBeforeDeepLinksAndPages() async throws {
        let f = try NativeAdServer()
        let ad = try #require(await load(f).0)
        let opener = RecordingURLOpener(appSchemes: ["shop"])
        ad.opener = opener
        var seen: [String] = []
        ad.customClickHandler = { assetID in seen.append(assetID) }
        #expect(ad.performClickOnAsset(withKey: "MainImage") == .customHandler)
        #expect(seen == ["MainImage"])
        #expect(opener.opened.isEmpty)
        #expect(ad.clicks == 1)
        #expect(await f.waitForHits("/click", count: 1) == 1)   // trackers still fire
        ad.customClickHandler = nil
        #expect(ad.performClickOnAsset(withKey: "MainImage") == .deepLink(URL(string: "shop://item/7")!))
    }

    @Test func adChoicesIconIsAtLeast15PixelsAndItsClickOpensThePrivacyPageWithoutCountingAClick() async throws {
        let f = try NativeAdServer()
        let ad = try #require(await load(f).0)
        let key = NativeAssetIdentifier.adChoicesViewAsset.rawValue
        let icon = try #require(ad.image(forKey: key)?.image)
        #expect(icon.width >= 15 && icon.height >= 15)
        let opener = RecordingURLOpener()
        ad.opener = opener
        #expect(ad.performClickOnAsset(withKey: key) == .adChoices(URL(string: f.server.url("/privacy"))!))
        #expect(opener.opened == [URL(string: f.server.url("/privacy"))!])
        #expect(ad.clicks == 0)
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(f.server.requestCount("/click") == 0)
        // a response without a privacy page has no AdChoices asset
        let g = try NativeAdServer(privacy: false)
        let plain = try #require(await load(g).0)
        #expect(plain.image(forKey: key) == nil)
        #expect(!plain.availableAssetKeys.contains(key))
    }

    func failure(_ f: NativeAdServer, path: String = "/native.json", configure: (AdLoader) -> Void = { _ in }) async -> NativeAdError? {
        let (ad, error, _) = await load(f, path: path, configure: configure)
        #expect(ad == nil)
        return error as? NativeAdError
    }

    @Test func hostileResponsesFailWithClearErrors() async throws {
        let f = try NativeAdServer()
        f.server.route("/malformed.json", body: "{\"native\": {\"assets\": [")
        f.server.route("/wrong.json", body: #"{"native": {"assets": [{"id": 2, "img": {"url": ["x"]}}]}}"#)
        f.server.route("/huge.json", .generated(1 << 20, contentType: "application/json"))
        f.server.route("/local.json", body: NativeAdServer.response(server: f.server, imageURL: "file:///etc/hostname"))
        f.server.route("/other.json", body: #"{"native": {"assets": [{"id": 40, "title": {"text": "x"}}], "link": {"url": "https://x.example"}}}"#)
        f.server.route("/empty", .init(status: 204, headers: [:], body: Data()))
        f.server.route("/notimage.png", .init(status: 200, headers: ["Content-Type": "image/png"], body: Data("not an image".utf8)))
        f.server.route("/badimage.json", body: NativeAdServer.response(server: f.server, imageURL: f.server.url("/notimage.png")))
        f.server.route("/bigimage.png", .generated(5 << 20, contentType: "image/png"))
        f.server.route("/bigimage.json", body: NativeAdServer.response(server: f.server, imageURL: f.server.url("/bigimage.png")))

        let malformed = await failure(f, path: "/malformed.json")
        #expect(malformed?.code == .receivedInvalidResponse)
        #expect(malformed?.message.hasSuffix("native response is not valid JSON") == true)
        #expect(await failure(f, path: "/wrong.json")?.message.hasSuffix("native.assets[0].img.url must be a string") == true)
        let huge = await failure(f, path: "/huge.json")
        #expect(huge?.code == .receivedInvalidResponse && huge?.message.contains("larger than 262144 bytes") == true, "\(String(describing: huge))")
        let local = await failure(f, path: "/local.json")
        #expect(local?.code == .receivedInvalidResponse)
        #expect(local?.message == "MainImage image: file URL 'file:///etc/hostname' refused in a document fetched from http")
        #expect(await failure(f, path: "/other.json")?.code == .noFill)
        #expect(await failure(f, path: "/empty")?.code == .noFill)
        let notImage = await failure(f, path: "/badimage.json")
        #expect(notImage?.message.contains("not a PNG, JPEG, WebP, GIF or BMP image") == true, "\(String(describing: notImage))")
        let bigImage = await failure(f, path: "/bigimage.json")
        #expect(bigImage?.code == .networkError && bigImage?.message.contains("larger than 4194304 bytes") == true, "\(String(describing: bigImage))")
        // a server that never answers: the deadline holds
        f.server.route("/slow.json", .init(status: 200, headers: ["Content-Type": "application/json"], body: Data("{}".utf8), delay: 5))
        let started = Date()
        let slow = await failure(f, path: "/slow.json") { $0.settings.timeout = 0.5 }
        #expect(slow?.code == .networkError && slow?.message.contains("no answer within 0.5 s") == true, "\(String(describing: slow))")
        #expect(Date().timeIntervalSince(started) < 3)
        // images slower than the ad's images deadline, all together
        f.server.route("/slowimg.png", .init(status: 200, headers: ["Content-Type": "image/png"], body: f.imagePNG, delay: 5))
        f.server.route("/slowimg.json", body: NativeAdServer.response(server: f.server, imageURL: f.server.url("/slowimg.png")))
        let imagesStarted = Date()
        let slowImage = await failure(f, path: "/slowimg.json") { $0.settings.imagesTimeout = 0.4 }
        #expect(slowImage?.code == .networkError && slowImage?.message.contains("MainImage image") == true
                && slowImage?.message.contains("no answer within") == true, "\(String(describing: slowImage))")
        #expect(Date().timeIntervalSince(imagesStarted) < 3)
        // a loader asked for no custom native format
        let loader = AdLoader(adUnitID: f.server.url("/native.json"), adTypes: [.native])
        let probe = NativeDelegateProbe()
        await probe.load(loader)
        #expect((probe.errors.first as? NativeAdError)?.code == .invalidRequest)
    }
}
