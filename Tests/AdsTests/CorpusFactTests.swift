// Facts read off real corpus documents, asserted through the parser and the loader.
import Ads
import Foundation
import Testing
import Timing

private let iab = "InteractiveAdvertisingBureau__VAST_Samples/"
private let introMP4 = "https://iab-publicfiles.s3.amazonaws.com/vast/VAST-4.0-Short-Intro.mp4"

@Suite(.enabled(if: Corpus.available, "VAST corpus not found at ../shared/vast-corpus relative to the package root"))
struct CorpusFactTests {
    @Test func iab42InlineLinear() async throws {
        let s = try await Corpus.schedule(iab + "VAST 4.2 Samples/Inline_Linear_Tag-test.xml")
        #expect(s.kind == .vast && s.cuePoints == [0])
        let ad = try #require(s.allAds.first)
        #expect(ad.id == "20001" && ad.sequence == 1)
        #expect(ad.title == "iabtechlab video ad" && ad.adSystem?.name == "iabtechlab")
        #expect(ad.duration == secs(16) && ad.skipOffset == nil)
        #expect(ad.trackingEvents.count == 6)
        #expect(ad.mediaFile?.url.template == introMP4)
        #expect(ad.universalAdIds == [UniversalAdId(registry: "Ad-ID", value: "8465"), UniversalAdId(registry: "Foo-ID", value: "4444323")])
        #expect(ad.pricing?.value == "25.00" && ad.adServingId == "a532d16d-4d7f-4440-bd29-2ec0e693fc80")
        #expect(ad.clickThrough?.template == "https://iabtechlab.com")
    }

    @Test func iab42InlineLinearMediaPreferences() async throws {
        let file = iab + "VAST 4.2 Samples/Inline_Linear_Tag-test.xml"
        let low = try await Corpus.schedule(file, media: MediaSelectionPreferences(targetBitrate: 700))
        #expect(low.allAds.first?.mediaFile?.url.template.hasSuffix("VAST-4.0-Short-Intro-low-resolution.mp4") == true)
        let mid = try await Corpus.schedule(file, media: MediaSelectionPreferences(outputWidth: 854, outputHeight: 480))
        #expect(mid.allAds.first?.mediaFile?.url.template.hasSuffix("VAST-4.0-Short-Intro-mid-resolution.mp4") == true)
        let noMP4 = try await Corpus.schedule(file, media: MediaSelectionPreferences(mimeTypes: ["video/webm"]))
        #expect(noMP4.allAds.first?.mediaFile == nil)
        #expect(noMP4.errors.map(\.code) == [.noSupportedMediaFile])
    }

    @Test func iab40MezzaninePreferred() async throws {
        let file = iab + "VAST 4.0 Samples/SSAI_stitching_mezzanine_file_support-test.xml"
        let s = try await Corpus.schedule(file)
        let ad = try #require(s.allAds.first)
        #expect(ad.mediaFile?.isMezzanine == true)
        #expect(ad.mediaFile?.url.template.hasPrefix("http://pilot.iabtechlab.com/beacon?type=complete") == true)
        let plain = try await Corpus.schedule(file, media: MediaSelectionPreferences(preferMezzanine: false))
        #expect(plain.allAds.first?.mediaFile?.url.template == introMP4)
    }

    @Test func iab40VPAIDSeparationPlaysTheMediaFile() throws {
        let doc = try Corpus.vast(iab + "VAST 4.0 Samples/SSAI_stitching _VPAID_separation-test.xml")
        let linear = try #require(doc.ads.first?.inline?.creatives.compactMap(\.linear).first)
        #expect(linear.interactiveCreativeFiles.count == 1)
        #expect(linear.mediaFiles.count == 1 && linear.mediaFiles[0].bitrate == 2500)
        let sel = MediaFileSelector.select(mediaFiles: linear.mediaFiles, preferences: MediaSelectionPreferences())
        #expect(sel.chosen?.url.template == "http://cdn.iabcdn.com/website/engineering/vast_4_0_pilot/vast_4.0_pilot-iab-hd.mp4")
    }

    @Test func iab41AudioAd() throws {
        let ad = try #require(try Corpus.vast(iab + "VAST 4.1 Samples/Audio_DAAST_Sample.xml").ads.first)
        #expect(ad.adType == "audio" && ad.id == "20007")
        #expect(ad.inline?.adTitle == "iabtechlab audio ad")
    }

    @Test func iab42MultipleUniversalAdIds() throws {
        let c = try #require(try Corpus.vast(iab + "VAST 4.2 Samples/Universal_Ad_ID-multi-test.xml").ads.first?.inline?.creatives.first)
        #expect(c.universalAdIds.map(\.registry) == ["Ad-ID", "FooId", "BarId"])
        #expect(c.universalAdIds.map(\.value) == ["8465", "9999", "ADSe9999"])
    }

    @Test func iab41Categories() throws {
        let inline = try #require(try Corpus.vast(iab + "VAST 4.1 Samples/Category-test.xml").ads.first?.inline)
        #expect(inline.categories.map(\.code) == ["American Cuisine", "Guitar", "Vegan"])
        #expect(inline.categories.allSatisfy { $0.authority == "https://www.iabtechlab.com/categoryauthority" })
    }

    @Test func iab42IconClickFallbacks() throws {
        let linear = try #require(try Corpus.vast(iab + "VAST 4.2 Samples/IconClickFallbacks.xml").ads.first?.inline?.creatives.compactMap(\.linear).first)
        #expect(linear.icons.count == 1)
    }

    @Test func iab41ClosedCaptions() throws {
        let linear = try #require(try Corpus.vast(iab + "VAST 4.1 Samples/Closed_Caption_Test.xml").ads.first?.inline?.creatives.compactMap(\.linear).first)
        #expect(linear.closedCaptionFiles.count == 4)
    }

    @Test func iab42WrapperTagURI() async throws {
        let file = iab + "VAST 4.2 Samples/Wrapper_Tag-test.xml"
        let w = try #require(try Corpus.vast(file).ads.first?.wrapper)
        #expect(w.vastAdTagURI?.template == "https://raw.githubusercontent.com/InteractiveAdvertisingBureau/VAST_Samples/master/VAST%204.2%20Samples/Inline_Companion_Tag-test.xml")
        // Offline: the wrapper cannot be fetched, so it fails with 301 and reports its own Error URL.
        let s = try await Corpus.schedule(file)
        #expect(s.allAds.isEmpty)
        #expect(s.errors.first?.code == .wrapperTimeout && s.errors.first?.adId == "20011")
        #expect(s.errors.first?.errorURLs.count == w.errorURLs.count)
    }

    @Test func iab42EventTrackingNames() throws {
        let linear = try #require(try Corpus.vast(iab + "VAST 4.2 Samples/Event_Tracking-test.xml").ads.first?.inline?.creatives.compactMap(\.linear).first)
        #expect(Set(linear.trackingEvents.map(\.event)) == ["start", "progress", "firstQuartile", "midpoint", "thirdQuartile", "complete"])
        #expect(linear.trackingEvents.first { $0.event == "progress" }?.offset != nil)
    }

    @Test func iab30ClickTracking() async throws {
        let s = try await Corpus.schedule(iab + "VAST 3.0 Samples/Video_Clicks_and_click_tracking-Inline-test.xml")
        let ad = try #require(s.allAds.first)
        #expect(ad.id == "20009" && ad.clickTracking.count == 1 && ad.clickThrough?.template == "https://iabtechlab.com")
        #expect(ad.mediaFile?.width == 400 && ad.mediaFile?.height == 300)
    }

    @Test func iab20InlineLinear() async throws {
        let s = try await Corpus.schedule(iab + "VAST 1-2.0 Samples/Inline_LinearRegular_VAST2.0.xml")
        let ad = try #require(s.allAds.first)
        #expect(ad.id == "preroll-1" && ad.duration == secs(30) && ad.mediaFile?.bitrate == 496)
        #expect(ad.impressions.count == 1)
        #expect(ad.impressions.first?.template.hasPrefix("http://b.scorecardresearch.com/b?C1=1&C2=6000003&C3=00000002") == true)
    }

    @Test func iab20NonLinearIsNotSpliceable() async throws {
        let s = try await Corpus.schedule(iab + "VAST 1-2.0 Samples/Inline_NonLinear_VAST2.0.xml")
        let ad = try #require(s.allAds.first)
        #expect(ad.id == "overlay-1" && !ad.isLinear && !ad.nonLinears.isEmpty && ad.mediaFile == nil)
        #expect(s.errors.map(\.code) == [.unexpectedLinearity])
    }

    @Test func iab41AdVerifications() throws {
        let inline = try #require(try Corpus.vast(iab + "VAST 4.1 Samples/Ad_Verification-test.xml").ads.first?.inline)
        #expect(inline.verifications.count == 2)
    }

    @Test func vast1IsUnsupported() async throws {
        await #expect { try await Corpus.schedule(iab + "VAST 1-2.0 Samples/vast1RegularLinear.xml") } throws: {
            ($0 as? AdLoadError)?.code == .unsupportedVersion
        }
    }

    @Test func dfpPodPlaysInSequence() async throws {
        let s = try await Corpus.schedule("guozheng__jvast/src/test/resources/pixel/vast_3.0_pods_dfp.xml")
        let pod = try #require(s.breaks.first?.ads)
        #expect(pod.map(\.id) == ["697203496", "697203497"])
        #expect(pod.map(\.sequence) == [1, 2] && pod.map(\.adPosition) == [1, 2])
        #expect(pod.allSatisfy { $0.duration == secs(10) })
        // 8 renditions each; highest-bitrate MP4 is the 1280x720 at 450 kbps, not the one at 241.
        #expect(pod[0].mediaFile?.bitrate == 450 && pod[0].mediaFile?.type == "video/mp4")
        #expect(pod[0].trackingEvents.count == 15)
    }

    @Test func dfpInlineMediaSelectionByBitrate() async throws {
        let file = "guozheng__jvast/src/test/resources/pixel/vast_3.0_inline_dfp.xml"
        let s = try await Corpus.schedule(file, media: MediaSelectionPreferences(targetBitrate: 200))
        let m = try #require(s.allAds.first?.mediaFile)
        #expect(m.type == "video/mp4" && m.bitrate == 118 && m.width == 640)
        let byBitrate = try await Corpus.schedule(file, media: MediaSelectionPreferences(targetBitrate: 300))
        #expect(byBitrate.allAds.first?.mediaFile?.bitrate == 241)
    }

    @Test func dfpWrapperURI() throws {
        let w = try #require(try Corpus.vast("guozheng__jvast/src/test/resources/pixel/vast_3.0_wrapper_dfp.xml").ads.first?.wrapper)
        #expect(w.vastAdTagURI?.template.hasPrefix("https://pubads.g.doubleclick.net/gampad/ads?sz=640x480&iu=/124319096/e") == true)
    }

    @Test func jvastVAST2Inline() async throws {
        let s = try await Corpus.schedule("guozheng__jvast/src/test/resources/pixel/vast_inline.xml")
        let ad = try #require(s.allAds.first)
        #expect(ad.id == "1234" && ad.duration == secs(30) && ad.inline.creatives.compactMap(\.linear).first?.mediaFiles.count == 3)
    }

    @Test func vast43InlineSkipOffsetAndProgress() async throws {
        let s = try await Corpus.schedule("haxqer__vast/testdata/vast_43_inline.xml")
        let ad = try #require(s.allAds.first)
        #expect(ad.skipOffset == secs(5) && ad.duration == secs(16))
        #expect(ad.trackingURLs(for: "progress") == ["https://example.com/track/progress"])
        #expect(ad.trackingEvents.first { $0.event == "progress" }?.offset == .time(secs(10)))
        // A Mezzanine is present and preferred; without that preference the progressive 2000 kbps MP4 wins over streaming.
        #expect(ad.mediaFile?.url == "https://example.com/media/mezzanine.mp4" && ad.mediaFile?.isMezzanine == true)
        let plain = try await Corpus.schedule("haxqer__vast/testdata/vast_43_inline.xml", media: MediaSelectionPreferences(preferMezzanine: false))
        #expect(plain.allAds.first?.mediaFile?.url == "https://example.com/media/high.mp4")
        #expect(ad.universalAdIds.map(\.value) == ["8465", "test-8465"])
    }

    @Test func vast43WrapperAttributes() throws {
        let w = try #require(try Corpus.vast("haxqer__vast/testdata/vast_43_wrapper.xml").ads.first?.wrapper)
        #expect(w.vastAdTagURI?.template == "https://example.com/vast/secondary.xml")
        #expect(!w.blockedAdCategories.isEmpty)
    }

    @Test func liverailCompanionsAndImpressions() async throws {
        let s = try await Corpus.schedule("haxqer__vast/testdata/liverail-vast2-linear-companion.xml")
        let ad = try #require(s.allAds.first)
        #expect(ad.id == "229" && ad.duration == secs(11) && ad.impressions.count == 55)
        #expect(!ad.companions.isEmpty)
    }

    @Test func adaptvIconsAndVendorEvents() async throws {
        let s = try await Corpus.schedule("haxqer__vast/testdata/vast_adaptv_attempt_attr.xml")
        let ad = try #require(s.allAds.first)
        #expect(ad.duration == secs(15) && ad.icons.count == 1 && ad.impressions.count == 12)
        #expect(ad.trackingURLs(for: "linearChange").count == 1 && ad.trackingURLs(for: "stopped").count == 1)
        // 13 renditions: MP4 preferred over WebM and FLV; highest bitrate wins without a target.
        #expect(ad.mediaFile?.type == "video/mp4" && ad.mediaFile?.bitrate == 1024)
    }

    @Test func interactiveCreativeDataURI() throws {
        let linear = try #require(try Corpus.vast("haxqer__vast/testdata/iab/vast_4.3_samples/Interactive_Creative_File_Data_URI-test.xml")
            .ads.first?.inline?.creatives.compactMap(\.linear).first)
        #expect(linear.interactiveCreativeFiles.first?.url.template.hasPrefix("data:") == true)
    }

    @Test func undefinedDurationIsToleratedWithWarning() async throws {
        let s = try await Corpus.schedule("rs__vast/testdata/vast_inline_linear-duration_undefined.xml")
        let ad = try #require(s.allAds.first)
        #expect(ad.duration == nil)
        #expect(s.warnings.contains { $0.message.contains("undefined") })
        // Its only file is FLV: nothing to splice.
        #expect(ad.mediaFile == nil && s.errors.map(\.code) == [.noSupportedMediaFile])
    }

    @Test func tremorInlineLinear() async throws {
        let s = try await Corpus.schedule("rs__vast/testdata/vast_inline_linear.xml")
        let ad = try #require(s.allAds.first)
        #expect(ad.impressions == ["http://myTrackingURL/impression", "http://myTrackingURL/impression2"])
        #expect(ad.errorURLs.count == 2 && ad.trackingEvents.count == 6 && ad.duration == secs(30))
    }

    @Test func spotxVPAIDOnlyIs403() async throws {
        let s = try await Corpus.schedule("rs__vast/testdata/spotx_vpaid.xml")
        #expect(s.allAds.first?.mediaFile == nil)
        #expect(s.errors.first?.code == .noSupportedMediaFile)
        #expect(s.allAds.first?.mediaSelection.rejected.first?.reason.contains("vpaid") == true)
    }

    @Test func fullVAST4PodWithWrapperAndInline() throws {
        let doc = try Corpus.vast("realeyes-media__ios-vast-client/Tests/VastClientTests/Assets/Vast4-resources/TestFullVast4.xml")
        #expect(doc.ads.map(\.id) == ["AdId1", "AdId2"] && doc.ads.map(\.sequence) == [1, 2])
        let w = try #require(doc.ads[0].wrapper)
        #expect(w.vastAdTagURI?.template == "http://example.com/VASTAdTagURI" && w.impressions.count == 2)
        let linear = try #require(doc.ads[1].inline?.creatives.compactMap(\.linear).first)
        #expect(linear.skipOffset == .time(secs(8)) && linear.duration == secs(70))
        #expect(doc.ads[1].inline?.categories.map(\.code) == ["Category1", "Category2"])
    }

    @Test func pubadsWrapperExtensions() throws {
        let w = try #require(try Corpus.vast("realeyes-media__ios-vast-client/Tests/VastClientTests/Assets/Vast4-resources/Pubads wrapper/Pubads_Wrapper_Model-test.xml").ads.first?.wrapper)
        #expect(w.extensions.compactMap(\.type) == ["geo", "pod", "activeview", "metrics", "ShowAdTracking", "wrapper_info", "video_ad_loaded"])
        #expect(w.extensions[1].rawXML.contains("type=\"pod\""))
        #expect(w.vastAdTagURI?.template == "test://Pubads_Inline_Model-test")
    }

    @Test func iconsAndMezzanineInRealeyesSample() throws {
        let linear = try #require(try Corpus.vast("realeyes-media__ios-vast-client/Tests/VastClientTests/Assets/Vast4-resources/Inline_linear_icons-test.xml")
            .ads.first?.inline?.creatives.compactMap(\.linear).first)
        #expect(linear.icons.count == 2 && linear.mezzanines.map(\.url) == ["https://iabtechlab.com/mezzanineurl"])
    }

    @Test func dailymotionSamplePodAndBuffet() async throws {
        let s = try await Corpus.schedule("dailymotion__vast-client-js/spec/samples/sample.xml")
        let b = try #require(s.breaks.first)
        #expect(b.ads.map(\.id) == ["ad_id_0001"] && b.standaloneAds.map(\.id) == ["ad_id_0002"])
        let ad = b.ads[0]
        #expect(ad.duration == MediaTime(value: 90123, timescale: 1000))
        #expect(ad.trackingURLs(for: "progress").count == 2)
        #expect(ad.trackingEvents.contains { $0.offset == .percent(Rational(60, 1)) })
        #expect(ad.mediaFile?.url.template == "http://example.com/linear-mezzanine.mp4")
        #expect(ad.impressions.count == 3 && ad.clickTracking.count == 2)
        // The buffet ad: bare-seconds Duration "30" and skipoffset 00:00:10.
        #expect(b.standaloneAds[0].duration == secs(30) && b.standaloneAds[0].skipOffset == secs(10))
    }

    @Test func dailymotionLocalWrapperChain() async throws {
        // wrapper-a.xml → wrapper-b.xml → sample.xml (relative URIs against the file's directory).
        let s = try await Corpus.schedule("dailymotion__vast-client-js/spec/samples/wrapper-a.xml")
        let ad = try #require(s.breaks.first?.ads.first ?? s.breaks.first?.standaloneAds.first)
        #expect(ad.wrappers.map { URL(string: $0.tagURL)!.lastPathComponent } == ["wrapper-b.xml", "sample.xml"])
        #expect(ad.wrapperAdIds == ["1234", "4321"])
        #expect(ad.impressions.contains("http://example.com/wrapperA-impression"))
        #expect(ad.impressions.contains("http://example.com/wrapperB-impression1"))
        #expect(ad.trackingURLs(for: "start").contains("http://example.com/wrapperA-linear-start1"))
    }

    @Test func legacyVASTAdTagURL() throws {
        let w = try #require(try Corpus.vast("dailymotion__vast-client-js/spec/samples/wrapper-legacy.xml").ads.first?.wrapper)
        #expect(w.vastAdTagURI != nil && w.impressions.map(\.url) == ["http://example.com/wrapper-impression"])
    }

    @Test func emptyNoAdIs303WithRootErrors() async throws {
        let s = try await Corpus.schedule("dailymotion__vast-client-js/spec/samples/empty-no-ad.xml")
        #expect(s.allAds.isEmpty && s.errors.first?.code == .noAdsAfterWrapper)
        #expect(!(s.errors.first?.errorURLs.isEmpty ?? true))
    }

    @Test func brokenDocumentsGetTheirCodes() async throws {
        let cases: [(String, VASTErrorCode)] = [
            ("dailymotion__vast-client-js/spec/samples/invalid-xmlfile.xml", .xmlParsing),
            ("dailymotion__vast-client-js/spec/samples/outdated-vast.xml", .unsupportedVersion),
            ("flipkart-incubator__madman-android/madman/src/test/assets/corrupt_vast.xml", .schemaValidation),
            ("flipkart-incubator__madman-android/madman/src/test/assets/corrupt_vmap.xml", .vmapParsing),
            ("dailymotion__vmap-js/spec/samples/incorrect-vmap.xml", .vmapSchema),
        ]
        for (file, code) in cases {
            await #expect { try await Corpus.schedule(file) } throws: { ($0 as? AdLoadError)?.code == code }
        }
    }

    @Test func madmanVASTPod() async throws {
        let s = try await Corpus.schedule("flipkart-incubator__madman-android/madman/src/test/assets/vast.xml")
        let ad = try #require(s.allAds.first)
        #expect(ad.id == "1" && ad.sequence == 1 && ad.adSystem?.name == "iabtechlab" && ad.duration == secs(16))
    }
}
